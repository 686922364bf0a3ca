"""Picklable per-module summaries, produced by workers and joined by the scope solver."""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields, replace
from typing import Any

from graphmend_bot.vocabulary.kind import NOT_TENSOR, Kind


@dataclass(frozen=True, init=False)
class Draft:
    """A finding that stands if its function is traced and `deps` make it a tensor."""

    code: str
    message: str
    row: int
    column: int
    end_row: int
    end_column: int
    gb_id: str
    deps: Kind
    source_line: str
    # Dynamo never reaches this line when these hold: a break earlier in the same loop body
    # makes it skip the whole frame, `with open(...)` makes it run the rest eagerly.
    suppressed_if: Kind = NOT_TENSOR
    # Only on an error or misconfiguration branch (analysis/frequency.py), not on every call.
    rare: bool = False
    # The message without the mode a local brings (analysis/mode_values.py), which stands instead
    # when `any_mode_if` holds: the condition's other operands are tensors, in every mode.
    any_mode_message: str | None = None
    any_mode_if: Kind = NOT_TENSOR
    # The call results a condition tests as a whole (`if tokens:` after `_, tokens = helper()`):
    # where every callee returns a collection there, their truth is its length, no tensor's.
    length_tested: Kind = NOT_TENSOR

    def __init__(self, code: str, message: str, row: int, column: int, end_row: int, end_column: int, gb_id: str,
                 deps: Kind, source_line: str, suppressed_if: Kind = NOT_TENSOR, rare: bool = False,
                 any_mode_message: str | None = None, any_mode_if: Kind = NOT_TENSOR,
                 length_tested: Kind = NOT_TENSOR) -> None:
        # The generated __init__ of a frozen class stores each field through object.__setattr__;
        # one update of the instance's dict is 2.3x faster, and the summaries of transformers 5.24
        # build ~140k drafts (tests/test_summary_speed.py: the parameters are the fields).
        self.__dict__.update({
            "code": code, "message": message, "row": row, "column": column, "end_row": end_row,
            "end_column": end_column, "gb_id": gb_id, "deps": deps, "source_line": source_line,
            "suppressed_if": suppressed_if, "rare": rare, "any_mode_message": any_mode_message,
            "any_mode_if": any_mode_if, "length_tested": length_tested,
        })

    def in_every_mode(self) -> Draft:
        """This draft with the message that names no mode (`any_mode_if` held)."""
        return replace(self, message=self.any_mode_message or self.message, any_mode_message=None)


@dataclass(frozen=True)
class CallSite:
    """`ref` names the callee: "name:f", "self:m", "super:m" ("super:m@Base" for `super(Base, self).m`)
    or "dotted:a.b.c"."""

    ref: str
    args: tuple[Kind, ...]
    kwargs: tuple[tuple[str, Kind], ...]
    bound: bool  # the callee gets an implicit first argument (self / cls)
    row: int = 0  # where the call is: what runs after a break that ends the frame (eager_frames.py)

    def __reduce__(self) -> tuple[type[CallSite], tuple[Any, ...]]:
        # The most numerous object workers send the parent: as a tuple of its fields, not a dict of
        # them, it pickles in a fifth fewer bytes and loads faster.
        return (CallSite, (self.ref, self.args, self.kwargs, self.bound, self.row))


@dataclass
class FunctionSummary:
    qualname: str
    name: str
    class_qualname: str | None
    params: tuple[str, ...]
    # True: a tensor by annotation or because the function is an entry point;
    # False: not a tensor by annotation or default; absent: decided by the callers.
    param_seeds: dict[str, bool]
    compiled: bool  # decorated with torch.compile
    decorators: tuple[str, ...]
    # `@torch.compiler.disable`: "recursive" (the default: Dynamo traces neither the function nor
    # what it calls), "frame" (`recursive=False`: its callees are traced), "skipped"
    # (`@torch._disable_dynamo`: on Dynamo's skip list, nothing traced), "" when not disabled.
    disabled: str = ""
    # `@contextlib.contextmanager` on a function that yields nothing: calling it breaks (generator_managers.py).
    manager_without_yield: bool = False
    # Whether Dynamo traces it when code running eagerly calls it (eager_entries.py): None when it
    # may; else the classes its parameters hold, each to be checked plain ("<self>": its own class).
    eager_entry: tuple[str, ...] | None = None
    # Per `with` of its body: (first, last line of the header, last line of its block) (eager_entries.py).
    with_tails: tuple[tuple[int, int, int], ...] = ()
    # Of a generator: (first, last row) of each simple statement of its own body; None otherwise
    # (generator_breaks.py: what follows its first break runs eagerly).
    generator_steps: tuple[tuple[int, int], ...] | None = None
    # (first, last line) of each conditional block (`if` arm, handler, case) of the def its module
    # names by this qualname first (conditional_blocks.py); None when the module names none so
    # (a def under a module-level `if`): where an eager rest ends, read without parsing again. Read
    # as the module's text was (Program.conditional_spans notes it), so no edit compares it.
    conditional_spans: tuple[tuple[int, int], ...] | None = field(default=None, compare=False)
    calls: list[CallSite] = field(default_factory=list)
    # The call sites in a `for`/`while` or `try` body, off error branches: a callee breaking there
    # makes Dynamo skip the frame (or, in a `try`, compile up to it), whose rest then runs eagerly
    # (loop_calls.py).
    loop_sites: list[int] = field(default_factory=list)
    references: tuple[str, ...] = ()
    # What it hands one of its own parameters on to, as a value (forwarded_callbacks.py): "" for a
    # call that calls it (`tree_map(f, tree)`), else the callee ref, which may (Program._calls_back).
    forwards: tuple[str, ...] = ()
    returns: Kind = NOT_TENSOR
    # When every `return` is a tuple display of one length: the kind of each element.
    return_elements: tuple[Kind, ...] | None = None
    # Whether every value returned is a collection (a local list, dict or set, a display or a
    # comprehension: its truth is its length), and the same per element of return_elements.
    returns_sized: bool = False
    # Whether it returns a builtin list, dict or set: by its return annotation or by every `return`
    # (collection_returns.py; GM611 over a local bound to its result).
    returns_builtin_collection: bool = False
    # When every `return` gives a bool tensor (a comparison, `&` of masks...) or what one of its
    # call sites returns: those sites (empty when every return is a mask itself), whose callees
    # must return masks too; None otherwise. Indexing with a call's result is then boolean-mask
    # indexing (masks.py).
    mask_returns: tuple[int, ...] | None = None
    # With mask_returns: whether every `return` is `mask.max(dim)` (or `.min`), a (values,
    # indices) pair whose values are a mask: `valid, idx = first_nonzero(m)` then `x[valid]`.
    mask_pair_returns: bool = False
    # The same for a 0-d tensor by construction (`return scores.argmax()`, tensor_rank.py): indexing
    # with a call's result then reads it back as an int (scalar_returns.py).
    scalar_returns: tuple[int, ...] | None = None
    return_elements_sized: tuple[bool, ...] | None = None
    drafts: list[Draft] = field(default_factory=list)
    # Parameters assumed to be tensors only because the function is an entry point (a forward
    # without annotation or default); callers in the tree decide them when there are any.
    entry_params: tuple[str, ...] = ()
    # The parameters that would be entry_params were the function an entry point: a configured
    # entry point (`entry-points` in the config) gets them as tensors, as a forward does.
    configured_entry_params: tuple[str, ...] = ()
    # Parameters not tensors only by their annotation or default (`timestep: int`, `t0=0.0`):
    # hints Dynamo ignores, so a tensor a caller in the tree passes still makes them tensors.
    hinted_params: tuple[str, ...] = ()
    # The `*args` parameter (in `params` after the positional ones): what a call passes by
    # position past them reaches it, the elements of one tuple.
    vararg: str | None = None
    # Module state this method writes: `self.NAME = value` and `self.register_buffer("NAME",
    # value)`, as (NAME, kind of value). Reads of `self.NAME` are the pseudo-parameter "self.NAME".
    attribute_writes: tuple[tuple[str, Kind], ...] = ()
    # Nested functions this function returns (`return _inner`): what calling its result runs.
    returned_functions: tuple[str, ...] = ()
    # (place, name) of the functions it returns inside a tuple (`return packed, unpack_one`).
    returned_element_functions: tuple[tuple[int, str], ...] = ()
    # The class its return annotation names (`-> LinearOperator`), qualified (value_class.py).
    return_class: str | None = None
    # A parameter or the result annotated with a tensor type, bare or in a container
    # (`xs: List[Tensor]`, `-> tuple[Tensor, dict]`), an unannotated parameter the body uses as a
    # tensor (tensor_uses.py), or `-> Tensor` on a method taking only its object: a callable on
    # tensors (public_api.py). Worked out only for names with no private part.
    tensor_signature: bool = False
    # The parameters a public function's body uses or its docstring documents as tensors, when that
    # is what made tensor_signature (tensor_uses.tensor_param_names; forwarded_tensors.py reads them).
    tensor_params: tuple[str, ...] = ()
    # (call site index, draft): findings that stand when a callee of that site breaks (GM605).
    callee_break_drafts: list[tuple[int, Draft]] = field(default_factory=list)
    # (call site index, draft) of `super().__init__(...)` in an `__init__`: findings that stand
    # when Dynamo runs this `__init__` as its own frame on an uninitialized nn.Module (GM606).
    module_init_drafts: list[tuple[int, Draft]] = field(default_factory=list)
    # (call site index, draft): findings that stand when the site's callee lies in a configured
    # dependency and breaks there (GM608); recorded only when the config names dependencies.
    dependency_call_drafts: list[tuple[int, Draft]] = field(default_factory=list)
    # Per such call site, the class each positional argument is an object of, where known
    # (value_class refs): what a break inside that needs objects passed asks (dependency_breaks.py).
    dependency_call_classes: dict[int, tuple[str | None, ...]] = field(default_factory=dict)
    # Recorded only when the config names dependencies (analysis/keyword_arguments.py): the line
    # of a `sorted(kwargs.items())` of this function's `**kwargs` (0: none), and per call site
    # the keywords passed the instance ("<self>") or one of this function's parameters by name.
    sorts_keyword_items: int = 0
    passed_names: dict[int, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    # Objects this function builds and keeps in a local (`sde = ForwardSDE(sde)`): (constructor's
    # call site index, row). See analysis/held_objects.py.
    local_objects: list[tuple[int, int]] = field(default_factory=list)
    # (constructor sites of the local objects alive, call site index, draft): findings that stand
    # when one of those objects holds its own bound methods and the call's callee breaks (GM605).
    held_object_drafts: list[tuple[tuple[int, ...], int, Draft]] = field(default_factory=list)
    # `super().__call__(...)` / `type.__call__(cls, ...)` in a `__call__`: findings that stand when
    # this is a metaclass's `__call__` and a frame running eagerly builds one of its classes.
    metaclass_call_drafts: list[Draft] = field(default_factory=list)
    # Members of `(str, Enum)` classes (analysis/str_enums.py): parameters defaulting to
    # `Cls.NAME` as (param, "Cls.NAME"); per call site index, the arguments that pass on a
    # parameter or read `Cls.NAME`; and (param, draft) of `str` method calls on a parameter.
    member_defaults: tuple[tuple[str, str], ...] = ()
    call_member_sources: list[tuple[int, tuple[tuple[int | str, str], ...]]] = field(default_factory=list)
    str_method_drafts: list[tuple[str, Draft]] = field(default_factory=list)
    # (call sites in try/loop bodies before it, kind of the drafts there, draft) of a comprehension
    # Dynamo compiles as its own frame once a break there skipped this one (GM611); its deps: a
    # tensor it captures; last, the call sites whose callees must return a list, dict or set when it
    # iterates a call's result (collection_returns.py), else empty.
    skipped_frame_drafts: list[tuple[tuple[int, ...], Kind, Draft, tuple[int, ...]]] = field(default_factory=list)
    # (call site, draft) of a call that may build a TypedDict with optional keys (`Options(...)`):
    # it stands when the site resolves to such a class (analysis/typed_dicts.py).
    typed_dict_drafts: list[tuple[int, Draft]] = field(default_factory=list)
    # (call site, draft) of a call that may build a pydantic class (`Config(...)`): it stands when
    # the site resolves to one, with that class's id (analysis/pydantic_classes.py).
    pydantic_drafts: list[tuple[int, Draft]] = field(default_factory=list)
    # (call site, draft) of a call that may build a class defining `__getattribute__` (`Record(...)`):
    # it stands when the site resolves to one (analysis/getattribute_classes.py).
    getattribute_drafts: list[tuple[int, Draft]] = field(default_factory=list)
    # (call site, draft) of a call a `with` enters that may build a class (`with Tracer():`): it
    # stands when the site resolves to a TorchDispatchMode subclass of the tree (analysis/dispatch_modes.py).
    dispatch_mode_drafts: list[tuple[int, Draft]] = field(default_factory=list)
    # (call site, draft) of a `Fn.apply(...)` call: it stands when Fn resolves to an autograd.Function
    # Dynamo cannot apply, with that class's id and message (analysis/autograd_functions.py).
    apply_drafts: list[tuple[int, Draft]] = field(default_factory=list)
    # (call site, position of the receiver among the parameters or -1, draft) of `x.m()` on `x` of a
    # class an annotation or an isinstance test gives: it stands when the site reaches only plain
    # methods of tensor subclasses, one breaking, and a signature types `x` so (subclass_methods.py).
    subclass_method_drafts: list[tuple[int, int, Draft]] = field(default_factory=list)
    # (position, qualified class) of each parameter annotated with one class (subclass_methods.py).
    param_classes: tuple[tuple[int, str], ...] = ()
    # ("self.NAME" or a global's "NAME", draft) of `with self.NAME:` / `with NAME:`: findings that
    # stand when what built it makes an object Dynamo cannot enter once it was built outside the
    # compiled region (held_contexts.py).
    held_context_drafts: list[tuple[str, Draft]] = field(default_factory=list)
    # A nested function's free names an enclosing function binds once by a call: name -> callee (closures.py).
    closure_builds: dict[str, str] = field(default_factory=dict)
    # ("self.NAME", or "typed:Class" of a parameter annotated with a class, call sites before it,
    # draft) of `with self.NAME:` / `with param:`: findings that stand when Dynamo compiles the
    # function as a frame of its own, where the manager is an input (own_frame_managers.py).
    own_frame_context_drafts: list[tuple[str, int, Draft]] = field(default_factory=list)
    # ("self.NAME" or a global's "NAME", method, draft) of `self.NAME.method(...)` / `NAME.method(...)`:
    # findings that stand when what built it is a standard-library class whose method Dynamo refuses
    # on an object built outside the compiled region, with that id and message (held_methods.py); last,
    # the usual-path breaks before it in a frame holding no tensor, or -1 (tensorless_frames.py).
    held_method_drafts: list[tuple[str, str, Draft, int]] = field(default_factory=list)
    # (call sites, earlier call sites, draft) of `with helper(...):` / `with Cls(...):` entered after a
    # resumable point of the frame: it stands when a site runs a `@contextlib.contextmanager` generator
    # of the tree, or the class's `__enter__` or `__exit__`, and that breaks, and no earlier site (from
    # that point on) breaks: Dynamo would then resume with too few operations (entered_managers.py).
    entered_manager_drafts: list[tuple[tuple[int, ...], tuple[int, ...], Draft]] = field(default_factory=list)
    # (call site index, what it passes, draft) of `with Cls(...):` outside any loop or `try`: it stands
    # when the site constructs a context-manager class of the tree whose `__init__` breaks on a line
    # these arguments run (built_managers.py; what it passes: parameter_guards.Passed).
    built_manager_drafts: list[tuple[int, tuple[tuple[int | str, str], ...] | None, Draft]] = field(
        default_factory=list
    )
    # Of an `__init__`: the rows only a truthy argument runs, `if verbose:` (parameter_guards.Guard).
    param_guards: tuple[tuple[str, int | None, bool, int, int], ...] = ()
    # (parameter, kind assigned) of each `if p is None: p = ...` of its body outside loops, `p`
    # defaulting to None: after it `p` holds the pseudo-parameter none_fallbacks.fallback_name(p),
    # a tensor when that kind is and some call leaves `p` None (none_fallbacks.py).
    none_fallbacks: tuple[tuple[str, Kind], ...] = ()
    # Per call site (index) passing some: the positions and keywords of its arguments written as
    # values never None (`x.shape[1]`, `4`), which leave no None-defaulted parameter None there.
    valued_arguments: dict[int, tuple[int | str, ...]] = field(default_factory=dict)
    # Per call site passing some: (position or keyword, "none" or "falsy") of its falsy literal
    # arguments; None when a `*args` or `**kwargs` hides what it passes (parameter_guards.Passed).
    falsy_arguments: dict[int, tuple[tuple[int | str, str], ...] | None] = field(default_factory=dict)
    # Of any function but a forward (an entry point) and an `__init__` (param_guards): the rows only a truthy argument runs, `if generator is not None:`
    # (parameter_guards.Guard): no call runs them when every call leaves it None (none_fallbacks.py).
    default_guards: tuple[tuple[str, int | None, bool, int, int], ...] = ()
    # (by name, manager sites, body sites, body drafts' kind, earlier sites, draft) of a `with` after a
    # resumable point whose body may break: it stands when the manager is one Dynamo inlines (known by
    # name, or a site runs a generator manager or `__enter__`/`__exit__` of the tree), its body breaks,
    # and no earlier site does (GM660, manager_bodies.py).
    manager_body_drafts: list[tuple[bool, tuple[int, ...], tuple[int, ...], Kind, tuple[int, ...], Draft]] = field(
        default_factory=list
    )
    # (body call sites, body drafts' kind, earlier call sites, draft) of a `try` entered after a
    # resumable point: it stands when its body breaks and no earlier site does (GM661, skipped_frames.py).
    try_body_drafts: list[tuple[tuple[int, ...], Kind, tuple[int, ...], Draft]] = field(default_factory=list)
    # (property read sites, earlier call sites, the statement's rows below its first, draft) of a statement after a
    # resumable point that reads a property: it stands when a getter breaks and no earlier site does;
    # Dynamo cannot resume at a load and goes back to the statement (GM657, breaking_reads.py).
    breaking_read_drafts: list[tuple[tuple[int, ...], tuple[int, ...], int, Draft]] = field(default_factory=list)
    # (method name, draft) of `super().NAME(...)` with NAME one of `object`'s methods Dynamo cannot
    # call through `super()`: it stands when the class's bases leave NAME to `object` (super_calls.py).
    super_object_drafts: list[tuple[str, Draft]] = field(default_factory=list)
    # ("instance:Cls>__rmul__", draft) of `tensor * obj` (`__mul__` for `obj * tensor`) on an object
    # of a known class: it stands when the class has that method and no `__torch_function__`
    # (object_operands.py).
    object_operand_drafts: list[tuple[str, Draft]] = field(default_factory=list)
    # The attributes every write of this function stores a bool tensor in (`self.keep = x > 0`,
    # `register_buffer("keep", ...bool...)`), and (the masks, draft) of `x[key]` with a key whose
    # atoms are only "self.NAME" reads and call results ("@3", "@3.0" for element 0 of one): the
    # draft stands when each is a bool tensor, which only the scope solver knows (masks.py); and
    # whether it is in a loop body (on its usual path), where it leaves the rest of the frame eager.
    mask_attributes: tuple[str, ...] = ()
    mask_index_drafts: list[tuple[tuple[str, ...], Draft, bool]] = field(default_factory=list)
    # (the call sites, draft) of `x[key]` whose key is only what those sites return: it stands when
    # each returns a 0-d tensor on every path (scalar_returns.py).
    scalar_index_drafts: list[tuple[tuple[int, ...], Draft]] = field(default_factory=list)
    # (NAME, rank) of the attributes every write of this function stores a tensor of that rank in by
    # construction, and (what the key needs of them, "1:order"/"0:step", draft) of `x[key]` with a
    # key read from them: the draft stands when every writer in the class agrees (held_ranks.py).
    attribute_ranks: tuple[tuple[str, int], ...] = ()
    held_rank_drafts: list[tuple[tuple[str, ...], Draft]] = field(default_factory=list)
    # (call site index, its arguments 0-d by construction: "0", "=NAME"), and (the parameters the key
    # is 0-d by, draft) of `x[key]`: it stands when every traced caller passes 0-d ones (passed_ranks.py).
    scalar_arguments: list[tuple[int, tuple[str, ...]]] = field(default_factory=list)
    passed_rank_drafts: list[tuple[tuple[str, ...], Draft]] = field(default_factory=list)
    # (call site index, draft) of `Cls(...)` calls: findings that stand when Cls is a torch.Tensor
    # subclass of the tree whose `__init__` cannot bind the call's keywords alone (subclass_inits.py).
    subclass_init_drafts: list[tuple[int, Draft]] = field(default_factory=list)

    # Most fields of most functions keep their defaults. Workers pickle every summary for the
    # parent, so a summary leaves those out (a fifth of the bytes on transformers' models/) and
    # gets them back when it is loaded: fresh containers, and the class's own immutable defaults.
    def __getstate__(self) -> dict[str, Any]:
        return {name: value for name, value in self.__dict__.items()
                if name not in _SUMMARY_DEFAULTS or value != _SUMMARY_DEFAULTS[name]}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name in _SUMMARY_CONTAINERS.keys() - state.keys():
            state[name] = _SUMMARY_CONTAINERS[name]()
        self.__dict__.update(state)


_SUMMARY_CONTAINERS = {f.name: f.default_factory for f in fields(FunctionSummary) if f.default_factory is not MISSING}
_SUMMARY_DEFAULTS: dict[str, Any] = {
    **{f.name: f.default for f in fields(FunctionSummary) if f.default is not MISSING},
    **{name: factory() for name, factory in _SUMMARY_CONTAINERS.items()},
}


@dataclass
class ClassSummary:
    qualname: str
    bases: tuple[str, ...]
    methods: tuple[str, ...]
    # Submodules assigned in __init__: `self.NAME = Callee(...)` as NAME -> callee, and the
    # elements of `nn.ModuleList([Callee(...) for ...])` as "NAME[]" -> callee; `self.NAME = p`
    # of a parameter annotated with a class, or `self.NAME = self`, as NAME -> "typed:Class"
    # (an instance of Class or of a subclass).
    attributes: dict[str, str] = field(default_factory=dict)
    metaclass: str | None = None  # `class C(metaclass=M)`: M as written, resolved through imports
    optional_keys: bool = False  # a TypedDict with optional keys: building one breaks (typed_dicts.py)
    build_breaks: str = ""  # the id calling it breaks with, for a pydantic class (pydantic_classes.py)
    guards_attributes: bool = False  # it defines `__getattribute__`, or a base of the module does (getattribute_classes.py)
    # Its own `__init__`'s required parameters after `self`; None when it defines none
    # (subclass_inits.py: Dynamo runs a tensor subclass's `__init__` with the keywords only).
    init_binding: tuple[str, ...] | None = None
    apply_breaks: str = ""  # the id `Cls.apply(...)` breaks with, for an autograd.Function (autograd_functions.py)
    # An autograd.Function's methods defined by a plain `def` (neither static nor class method):
    # `Cls.NAME(...)` on one breaks (autograd_functions.py).
    unbound_methods: tuple[str, ...] = ()
    # Decorated (`@dataclass` writes `__eq__` and `__repr__`), or its body binds one of `object`'s
    # methods other than by `def` (`__hash__ = Base.__hash__`): which of them it has is not known.
    dunders_unknown: bool = False
    # The attributes __init__ stores differing values in, in any arm (`self.ctx = nullcontext()`,
    # then `if frozen: self.ctx = torch.no_grad()`): each value, a call's callee or "" for any
    # other; `attributes` keeps the last one.
    rewritten: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # The attributes an __init__ write builds in one arm only (`nn.Linear(...) if ema else None`,
    # `a or B()`): the object may be the other arm's (GM693: a deepcopy of None traces).
    partly_built: tuple[str, ...] = ()
    # The names its body binds to no function (a property, `act = Scale()`): `super().NAME(...)`
    # reaching one breaks (super_calls.py).
    not_functions: tuple[str, ...] = ()
    # `@dataclass` writes its `__init__` (dataclass_inits.py): building one runs `__post_init__`.
    generated_init: bool = False
    # `self.NAME = PARAM` in its `__init__`: NAME -> (PARAM's place after `self`, -1 for a keyword-only
    # one; PARAM): what the object's builders pass there, a class it calls later (given_callables.py).
    given: dict[str, tuple[int, str]] = field(default_factory=dict)
    # Class-body dict displays of names, `_global_mapping = {"sdpa": sdpa_mask, ...}`: NAME -> the
    # dotted names of the values, what `OBJ[key]` on an instance with a `__getitem__` may give.
    tables: dict[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class CompileTarget:
    """Something passed to torch.compile or compiled with .compile(), as written."""

    ref: str
    constructor: str | None  # when ref is a variable assigned from a call, that call's callee
    in_function: str | None
    method: str = "forward"  # for `var.method`: what runs when the compiled object is called


@dataclass
class ModuleSummary:
    path: str
    module: str
    imports: dict[str, str]
    functions: dict[str, FunctionSummary]
    classes: dict[str, ClassSummary]
    compile_targets: list[CompileTarget]
    # In a file that mentions compile (compile_helpers.py): (function binding the parameter,
    # parameter, callee, place or keyword) of each call given a parameter in scope, and
    # (function, callee, place or keyword, name) of each call given a function of the package.
    parameter_passes: tuple[tuple[str, str, str, str], ...] = ()
    handed_functions: tuple[tuple[str, str, str, str], ...] = ()
    # Module-level dict displays whose values are all names (`SOLVERS = {"rk4": RK4, ...}`):
    # NAME -> the dotted names of the values, so `SOLVERS[name](...)` reaches each of them.
    registries: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Module-level objects built by a call (`COUNTER = Counter()`): NAME -> the callee's dotted name,
    # so `COUNTER.bump(x)` and `COUNTER(x)` reach the class's methods (scope._module_instance_calls),
    # and `with _LOCK:` is judged by what built `_LOCK` (analysis/held_contexts.py).
    instances: dict[str, str] = field(default_factory=dict)
    # The names calls building objects pass, `Jacobians(JacobianReverse)`, `super().__init__(
    # layer_class=DynamicLayer)`: (callee, place or keyword, name), given_callables.py.
    given_arguments: tuple[tuple[str, str, str], ...] = ()
    # Modules this one star-imports (`from .affine import *`), in import order.
    star_imports: tuple[str, ...] = ()
    # The names `__all__` lists, when the module spells it with string literals only (`=`, `+=`,
    # `.extend`, `.append`); None without one, or when one is computed (analysis/public_api.py).
    exports: tuple[str, ...] | None = None
    # Its top level only defines names (no call, loop or main guard): a lone such module is a
    # single-module library, not a script (analysis/lone_modules.py).
    defines_only: bool = False
    # Other files whose text this summary depends on (compile-guard helpers judged by their body,
    # analysis/guards.py): (path relative to the package root, sha256 of the text, "" for a file
    # looked for and absent). A cached summary is used only while they still hold that text.
    read_files: tuple[tuple[str, str], ...] = ()
    # `# graphmend: ignore[...]` comments: (line, the codes they name; ("*",) for a bare `ignore`).
    # They hide findings where findings are reported, never before the solve: a hidden break is
    # still a break to the passes that reason from it (eager regions, GM605/GM684 consequences).
    suppressions: tuple[tuple[int, tuple[str, ...]], ...] = ()
