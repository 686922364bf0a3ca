"""Where a rule looks: the constructs the one ast traversal hands to rules.

The traversal (analysis/function.py) infers which values are tensors and, at each construct
below, calls the hook of the rule that registered for it (analysis/checks.py builds the tables;
two rules cannot claim the same key, so there is no order to get wrong). A hook reports through
the `Checker` and, for calls, may say what the call returns (None: "not mine, infer as usual").
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol

from graphmend_bot.vocabulary.compiled_code import CompiledModule
from graphmend_bot.vocabulary.kind import NOT_TENSOR, TENSOR, Kind

if TYPE_CHECKING:
    from graphmend_bot.rules.rule import Rule

# Where Python converts a value to a bool: `if`/`elif`, a comprehension filter, a ternary, `not`,
# the left operands of `and`/`or`, a `while` test, an `if <cond>: raise` validation guard, and an
# operand of an `if` or ternary test evaluated before the compile guard that decides it.
Conversion = Literal["if", "filter", "case", "ternary", "not", "and", "or", "while", "guard", "before-guard"]


class Checker(Protocol):
    """What a hook may ask of the traversal."""

    @property
    def in_condition(self) -> bool:
        """Inside an `if`/`while` test, which is reported as one conversion as a whole."""
        ...

    @property
    def entry_point(self) -> bool:
        """This function is an entry point (a `forward`, a configured one): the frame Dynamo starts
        in when it is the outermost, not a helper it inlines."""
        ...

    def is_scalar_tensor(self, node: ast.expr) -> bool:
        """`node` is a 0-d tensor by how it is made (`t.argmax()`, `nz[0][0]`), when a tensor at all."""
        ...

    def is_parameter_loop_variable(self, name: str) -> bool:
        """`name` is bound by `for name in m.parameters()` (or `named_parameters()`'s value) here."""
        ...

    def index_read_before(self, subscript: ast.Subscript, name: str) -> bool:
        """An earlier statement that always runs before `subscript` already indexed with `name`: after
        that read's break `name` is an input of the resumed frame, and indexing with it traces
        (analysis/index_reads.py)."""
        ...

    def holds_argument(self, name: str) -> bool:
        """`name` holds a value this function was passed (a parameter it never rebinds, or a loop's
        element of one), not one it made (analysis/argument_values.py)."""
        ...

    def is_python_sequence(self, node: ast.expr) -> bool:
        """`node` is a Python list, tuple or range, or a tensor's `.shape`, not a tensor: a display, a
        comprehension, a local bound to a list, `range(...)`."""
        ...

    def is_ndarray(self, node: ast.expr) -> bool:
        """`node` is a NumPy array under Dynamo, which traces `numpy.*` calls as tensors (`np.prod(shape)`)."""
        ...

    def is_context_manager(self, node: ast.expr) -> bool:
        """`node` is what a `with` statement enters (`with open(path) as f:`)."""
        ...

    def runs_only_for_python_argument(self, call: ast.Call) -> bool:
        """`call` runs only where an `isinstance` test proved a parameter it is passed a Python value
        (`isinstance(path, str) and os.path.exists(path)`): other callers' types never reach it."""
        ...

    def annotated_tensor(self, name: str) -> bool:
        """Parameter `name` of this function is annotated as a tensor (`steps: torch.Tensor`)."""
        ...

    def parameter_annotation(self, name: str) -> ast.expr | None:
        """The annotation of parameter `name` of this function, when it is not bound again so far."""
        ...

    @property
    def resolve(self) -> Callable[[ast.expr], str | None]:
        """The qualified dotted name an expression names through the module's imports (`Tensor` after
        `from torch import Tensor`: "torch.Tensor"); None for a local or what no import names."""
        ...

    def builtin_of(self, func: ast.expr) -> str | None:
        """The builtin `func` names (`id`, `builtins.id`), unless a binding in scope hides it (a
        module's own `def id`)."""
        ...

    def kind_of(self, node: ast.expr) -> Kind:
        """The kind of a part of the `assert` test an assertion hook is looking at."""
        ...

    def closure_kind(self, node: ast.expr) -> Kind | None:
        """When `node` names a function a `def` or a lambda in this function defines (not rebound since): the
        kind of what its body reads of this function's locals (a tensor: Dynamo cannot rebuild the
        closure as constants); None otherwise."""
        ...

    def local_def(self, node: ast.expr) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """When `node` names a function one `def` (and only one) nested in this function defines: that `def`."""
        ...

    def built_collection(self, node: ast.expr) -> bool:
        """`node` is a local every binding of which so far built a new list, dict or set in this
        function (`seen = {}`, `order = list(xs)`): a value Dynamo holds with no source."""
        ...

    def installed(self, package: str) -> bool:
        """`package` is an installed third-party top-level package (analysis/installed_packages.py)."""
        ...

    def installed_class(self, name: str) -> bool:
        """`name` is a class a `class` statement of an installed third-party package defines."""
        ...

    def compiled_module(self, name: str) -> CompiledModule | None:
        """The compiled module of an installed third-party package `name` comes from, if one."""
        ...

    def compiled_inside(self, name: str) -> tuple[str, CompiledModule] | None:
        """When `name` is a Python function of an installed package that calls compiled code on
        every path (analysis/installed_wrappers.py): that call's qualified name and its module."""
        ...

    def skipped_inside(self, name: str) -> tuple[str, str] | None:
        """When `name` is a Python function of an installed package that calls a standard-library
        function Dynamo skips on every path (analysis/installed_skips.py): that call's name and id."""
        ...

    def built_outside(self, node: ast.expr) -> list[str]:
        """Qualified names of the calls outside the tree that build `node`'s value on every path:
        the call itself, the one a local was bound to by a top-level statement (`w = pywt.Wavelet(n)`),
        or those a top-level function of this module returns on each of its paths (`len(as_wavelet(w))`
        where every `return` of `as_wavelet` is such a call, or the argument it coerces passed through when
        this function gives a string or its own parameter); empty when some path may give another value."""
        ...

    def resumed_input(self, node: ast.expr) -> Kind:
        """When `node`'s value is an input of the frame Dynamo resumes in after a break earlier in
        the function (a local, or a display of locals, bound before a top-level statement that
        breaks): the kind under which such a break comes; NOT_TENSOR when none does."""
        ...

    def report(
        self, rule: Rule, node: ast.AST, message: str, deps: Kind, gb_id: str | None = None, mode: str | None = None,
        unless: Kind = NOT_TENSOR, own_frame: bool = False,
    ) -> None:
        """A finding at `node`, standing when `deps` make it a tensor in traced code; `gb_id`: the
        id Dynamo reports for this construct when it differs from the rule's; `mode`: one the
        construct breaks in (vocabulary/mode_names.py), which its message names with the branches';
        `unless`: the finding does not stand when this holds; `own_frame`: it stands where the rest
        of the frame runs eagerly too (Dynamo compiles the callee as a frame of its own there)."""
        ...

    def report_if_callee_breaks(self, rule: Rule, call: ast.Call, message: str, at: ast.expr | None = None) -> None:
        """A finding at `call` (at `at` when given: where Dynamo reports it), standing when what it
        calls breaks (directly or in its callees), which only the scope solver knows."""
        ...

    def steps_dict_iterator(self, node: ast.expr) -> bool:
        """Iterating `node` steps a dict iterator: a dict view (`d.items()`), a dict built in place, or a
        submodule container of the method's class (`self.layers`, module_containers.py)."""
        ...

    def report_if_subclass_method_breaks(self, rule: Rule, call: ast.Call, message: str) -> None:
        """A finding at `call` (`x.m()`), standing when it reaches only plain methods of tensor
        subclasses and one breaks (analysis/subclass_methods.py)."""
        ...

    def report_if_dependency_breaks(self, rule: Rule, call: ast.expr, message: str) -> None:
        """A finding at `call`, standing when what it calls lies in a configured dependency and
        breaks there; the scope solver completes `message` with the break inside."""
        ...

    def keyword_kinds(self, call: ast.Call) -> dict[str, Kind]:
        """The kinds of the named keyword arguments of `call` (a call hook's `args` are the positional ones)."""
        ...

    def assumed_tensor(self, kind: Kind) -> bool:
        """`kind` is a tensor only because the analysis assumes an entry point's unannotated
        parameters are: where an operator wants a number or text, such a parameter is one in
        practice (`alpha=alpha`, `str(mode)`, `self.layers[layer_idx]`, `x.view(height * width)`)."""
        ...

    def compiled_input(self, node: ast.expr) -> bool:
        """`node` is a parameter of this function, not rebound so far, and the function is itself
        compiled (`@torch.compile`): an input of the graph."""
        ...

    def requires_grad_traces(self, call: ast.Call) -> bool:
        """`call` (`y.requires_grad_()`) traces: a statement of its own on a local this function binds
        and reads nowhere else, or on a local holding only `autograd.grad(..., create_graph=True)`
        results (analysis/discarded_locals.py, analysis/grad_results.py)."""
        ...

    def annotated_class(self, node: ast.expr) -> str | None:
        """The qualified class an annotation gives `node`'s value: a parameter annotated `w: Q` (not
        rebound so far), or a call of a top-level function of the module annotated `-> Q`."""
        ...

    def builder_of(self, name: str) -> str | None:
        """The qualified name of the call outside the tree that built local `name` in this function
        (`g = torch.Generator(device)` -> "torch.Generator"), if one did."""
        ...

    def report_if_held_object_breaks(self, rule: Rule, call: ast.Call, message: str) -> None:
        """A finding at `call`, standing when its callee breaks while an object this function built
        earlier holds its own bound methods (analysis/held_objects.py)."""
        ...

    def report_if_built_eagerly(self, rule: Rule, call: ast.Call, message: str) -> None:
        """A finding at `call` in a `__call__`, standing when it is a metaclass's and a frame that
        runs eagerly builds one of its classes (analysis/eager_frames.py)."""
        ...

    def report_if_held_context_refused(self, rule: Rule, node: ast.expr, message: str, gb_id: str | None = None) -> None:
        """A finding at `node` when it is `self.NAME` or a global entered by a `with`, standing when
        what built it makes an object Dynamo cannot enter once built outside the compiled region
        (the scope solver knows the builders: analysis/held_contexts.py)."""
        ...

    def report_if_module_init_breaks(self, rule: Rule, call: ast.Call, message: str) -> None:
        """A finding at `call` (`super().__init__(...)`), standing when the `__init__` holding it
        belongs to an nn.Module subclass and runs as its own frame on an uninitialized module."""
        ...

    def report_if_frame_skipped(self, rule: Rule, node: ast.expr, message: str, deps: Kind) -> None:
        """A finding at `node` (a comprehension), standing when `deps` make it a tensor and a break
        earlier in a `try` or loop body of the function (its own, or in a callee called there)
        makes Dynamo skip the frame (analysis/skipped_frames.py)."""
        ...

    def report_if_entered_manager_breaks(self, rule: Rule, node: ast.expr, message: str) -> None:
        """A finding at `node`, entered by a `with` after a point Dynamo can resume at, standing when
        entering runs a `@contextlib.contextmanager` generator of the tree, or a class's `__enter__`
        or `__exit__`, that breaks (analysis/entered_managers.py)."""
        ...

    def report_if_construction_breaks(self, rule: Rule, call: ast.Call, message: str) -> None:
        """A finding at `call`, entered by a `with` outside any loop or `try`, standing when it
        constructs a context-manager class of the tree whose `__init__` breaks: Dynamo resumes
        after the call and cannot enter the object it built eagerly (analysis/built_managers.py)."""
        ...

    def report_if_manager_body_breaks(self, rule: Rule, node: ast.expr, message: str, by_name: bool) -> None:
        """A finding at `node`, entered by a `with` after a point Dynamo can resume at, standing when
        its body breaks and the manager is one Dynamo inlines (`by_name`: the rule knows it, else a
        class of the tree with `__enter__` or a `@contextlib.contextmanager` generator of the tree),
        and nothing broke since that point (analysis/manager_bodies.py)."""
        ...

    def report_if_try_body_breaks(self, rule: Rule, node: ast.Try, message: str) -> None:
        """A finding at the `try` keyword of `node`, entered after a point Dynamo can resume at,
        standing when its body breaks: a finding there, or a call there whose callee breaks
        (analysis/skipped_frames.py)."""
        ...

    def report_if_read_breaks(self, rule: Rule, node: ast.stmt, sites: tuple[int, ...], message: str) -> None:
        """A finding at the first line of `node`, a statement after a point Dynamo can resume at
        reading properties at `sites`, standing when a getter breaks (analysis/breaking_reads.py)."""
        ...

    def report_if_typed_dict_with_optional_keys(self, rule: Rule, call: ast.Call, message: str) -> None:
        """A finding at `call`, standing when what it calls is a TypedDict class with optional
        keys, which only the scope solver knows (analysis/typed_dicts.py)."""
        ...

    def report_if_builds_pydantic_class(self, rule: Rule, call: ast.Call, message: str) -> None:
        """A finding at `call`, standing when what it calls is a pydantic dataclass or model of
        the tree, which only the scope solver knows (analysis/pydantic_classes.py); it then
        carries that class's id."""
        ...

    def report_if_builds_getattribute_class(self, rule: Rule, call: ast.Call, message: str) -> None:
        """A finding at `call`, standing when what it calls is a class of the tree that defines
        `__getattribute__`, which only the scope solver knows (analysis/getattribute_classes.py)."""
        ...

    def report_if_builds_tensor_subclass(self, rule: Rule, call: ast.Call, message: str) -> None:
        """A finding at `call`, standing when what it calls is a torch.Tensor subclass of the tree
        whose `__init__` the call's keywords alone do not bind (analysis/subclass_inits.py)."""
        ...

    def report_if_enters_dispatch_mode(self, rule: Rule, call: ast.Call, message: str) -> None:
        """A finding at `call`, which a `with` enters, standing when what it calls is a
        TorchDispatchMode subclass of the tree, which only the scope solver knows
        (analysis/dispatch_modes.py)."""
        ...

    def report_if_apply_breaks(self, rule: Rule, call: ast.Call, message: str) -> None:
        """A finding at `call` (`Fn.apply(x)`), standing when Fn is an autograd.Function whose
        `apply` Dynamo refuses, which only the scope solver knows (analysis/autograd_functions.py);
        it then carries that class's id and message."""
        ...

    def report_if_super_reaches_object(self, rule: Rule, call: ast.expr, method: str, message: str,
                                       gb_id: str | None = None) -> None:
        """A finding at `call` (`super().__eq__(other)`), standing when the bases of the class
        holding the function leave `method` to `object`, or a tensor method to torch.Tensor
        (analysis/super_calls.py)."""
        ...

    def report_if_masks(self, rule: Rule, node: ast.expr, message: str, deps: Kind, key: Kind) -> None:
        """A finding at `node` (`x[key]`), standing when `deps` make it a tensor and each atom of
        `key`, a helper's result or `self.NAME`, is a bool tensor: a helper every `return` of which
        gives a mask, an attribute every write stores one in (analysis/masks.py)."""
        ...

    def report_if_scalar_returns(self, rule: Rule, node: ast.expr, message: str, deps: Kind, key: Kind,
                                 gb_id: str | None = None) -> None:
        """A finding at `node` (`x[key]`), standing when `key` is what call sites return and each
        callee returns a 0-d tensor on every path (`return scores.argmax()`: analysis/scalar_returns.py)."""
        ...

    def report_if_held_ranks(self, rule: Rule, node: ast.expr, message: str, deps: Kind, key: ast.expr,
                             gb_id: str) -> None:
        """A finding at `node` (`x[key]`), standing when `key` is an element of a 1-d tensor the module
        holds (`self.perm[0]`, `i` of `for i in self.order`) or a 0-d one computed on (`self.step + 1`),
        by every write of that attribute in the class (analysis/held_ranks.py)."""
        ...

    def report_if_passed_ranks(self, rule: Rule, node: ast.expr, message: str, deps: Kind, key: ast.expr,
                               gb_id: str) -> None:
        """A finding at `node` (`x[key]`), standing when `key` is 0-d by parameters (`torch.bucketize(t,
        grid)`) and every traced caller passes a 0-d tensor for each (analysis/passed_ranks.py)."""
        ...

    def report_if_operand_method(self, rule: Rule, node: ast.BinOp | ast.UnaryOp | ast.AugAssign, method_ref: str, message: str,
                                     deps: Kind, gb_id: str | None = None, objects: tuple[ast.expr, ...] = ()) -> None:
        """A finding at `node` (`t * obj`), standing when `deps` make the other operand a tensor and
        `method_ref` ("instance:Cls>__rmul__") resolves to a method of the checked tree, on a class
        without `__torch_function__` (analysis/object_operands.py); with `gb_id`, an operator Dynamo
        has no handler for on objects (`a @ b`), whatever the class's `__torch_function__`. The
        `objects` that are parameters: inside a dependency, it stands at a call passing them objects."""
        ...

    def report_if_str_enum_member(self, rule: Rule, call: ast.Call, param: str, message: str, gb_id: str) -> None:
        """A finding at `call` (`param.strip()`), standing when a member of a `(str, Enum)` class
        reaches parameter `param` from a default or a traced caller (analysis/str_enums.py)."""
        ...


# Every hook gets its rule first (the dispatch tables bind it), so one hook serves many rules.
# A bool conversion of `test`, whose kind is a tensor.
ConversionHook = Callable[["Rule", Checker, ast.expr, Kind], None]
# A call by name (dotted, after `torch.`, or a builtin) with its arguments' kinds.
CallHook = Callable[["Rule", Checker, ast.Call, str, list[Kind]], "Kind | None"]
# A tensor method call: method name, receiver kind, argument kinds.
MethodHook = Callable[["Rule", Checker, ast.Call, str, Kind, list[Kind]], "Kind | None"]
# A subscript of `owner` by a key (the slice bounds, or the whole index).
SubscriptHook = Callable[["Rule", Checker, ast.Subscript, Kind, Kind], None]
# An `assert` statement whose test's kind is a tensor (the hook decides whether Dynamo breaks).
AssertHook = Callable[["Rule", Checker, ast.Assert, Kind], None]
# `obj.method(...)` where `obj` was built in the same function (`Cls(...)`, `REGISTRY[k](...)`):
# the method's name.
LocalObjectCallHook = Callable[["Rule", Checker, ast.Call, str], None]
# `super().__init__(...)` / `super(Cls, self).__init__(...)` inside an `__init__`.
SuperInitHook = Callable[["Rule", Checker, ast.Call], None]
# A call that may land outside the builtins and torch (in the tree or a configured dependency).
DependencyCallHook = Callable[["Rule", Checker, ast.Call], None]
# An `assert` whose test is no tensor, with the function's `*args` parameter (None without one).
ObjectAssertHook = Callable[["Rule", Checker, ast.Assert, "ast.arg | None"], None]
# What a `with` enters (a call that may land in the tree, or a local built by `Cls(...)`), outside any
# `try` or `with` block and loop, after two tensor operations at the top of the function (a point
# Dynamo can resume at: analysis/entered_managers.py).
EnteredCallHook = Callable[["Rule", Checker, ast.expr], None]
# A call a `with` enters, anywhere in the function (analysis/built_managers.py judges its construction).
BuiltManagerHook = Callable[["Rule", Checker, ast.Call], None]
# What a `with` at a point Dynamo can resume at enters, after its body was walked, with the name the
# call resolves to (None: no call, or unresolved); analysis/manager_bodies.py.
ManagerBodyHook = Callable[["Rule", Checker, ast.expr, "str | None"], None]
# A `try` statement outside any `try`/`with` block and loop, after two tensor operations at the top of
# the function (a point Dynamo can resume at).
TryHook = Callable[["Rule", Checker, ast.Try], None]
ReadStatementHook = Callable[["Rule", Checker, ast.stmt, tuple[int, ...]], None]
# A call that may land in the tree with a generator expression among its arguments.
GeneratorArgumentHook = Callable[["Rule", Checker, ast.Call], None]
# A torch function called with a `generator=` keyword: the call and its resolved name.
# A torch call given a keyword (its resolved name: "torch.randn").
GeneratorKeywordHook = Callable[["Rule", Checker, ast.Call, str], None]
RequiresGradKeywordHook = GeneratorKeywordHook
# A call that may land in the tree, made after the function built an object it keeps in a local.
HeldObjectCallHook = Callable[["Rule", Checker, ast.Call], None]
# `param.method(...)` with a method of `str` on a parameter of the function: the parameter's name.
StrMethodHook = Callable[["Rule", Checker, ast.Call, str], None]
# A call from traced code whose every callee is marked `@torch.compiler.disable`, found by the scope
# solver: given whether Dynamo skips inlining the callee (a method, `recursive=False`), the id it breaks with.
DisabledCallHook = Callable[["Rule", bool, bool], str]  # (rule, skips inlining, a skipped function)
# A call to a function of the tree compiled by numba, by its name: the finding's message and id.
CompiledFunctionCallHook = Callable[["Rule", str], tuple[str, str]]
# The message for a read of the `functools.cached_property` of that name (asked by the scope solver:
# analysis/cached_property_reads.py).
CachedPropertyReadHook = Callable[["Rule", str], str]
# The message for a `return` of an object Dynamo cannot rebuild, in a frame eager code enters
# (asked by the scope solver: analysis/returned_holders.py).
ReturnedUnrebuildableHook = Callable[["Rule"], str]
# A call from traced code whose every callee is a `@contextlib.contextmanager` function of the tree
# that yields nothing, found by the scope solver: given whether a `with` enters the call, the id it breaks with.
ManagerWithoutYieldHook = Callable[["Rule", bool], str]
# The message for a call of a module held in `self.NAME` built by the class of this qualified name,
# or None when calling it traces (asked by the scope solver: analysis/held_module_calls.py).
HeldModuleCallHook = Callable[["Rule", str], "str | None"]
# `owner.attribute = value` (an attribute claimed by name), with the owner's kind.
AttributeWriteHook = Callable[["Rule", Checker, ast.Attribute, Kind], None]
# `Options(...)`: a call of a capitalized name that may build a class of the tree, as written.
ClassCallHook = Callable[["Rule", Checker, ast.Call, str], None]
# `err.NAME = value` on the exception an enclosing `except ... as err:` caught.
CaughtExceptionWriteHook = Callable[["Rule", Checker, ast.Attribute], None]
# A `class` statement in a function's body.
ClassStatementHook = Callable[["Rule", Checker, ast.ClassDef], None]
# `value.attribute` read (not written), with the attribute claimed by name.
AttributeReadHook = Callable[["Rule", Checker, ast.Attribute], None]
# What a `with` enters when it is no call made there (`with lock:`, `with self.lock:`).
EnteredValueHook = Callable[["Rule", Checker, ast.expr], None]
# Whether an object built by this qualified constructor, built outside the compiled region and
# entered by a `with` in it, is one Dynamo cannot enter (asked by analysis/held_contexts.py).
HeldContextHook = Callable[[str], bool]
# `t.NAME` read (not written) on a tensor, the attribute claimed by name, with the tensor's kind.
TensorAttributeHook = Callable[["Rule", Checker, ast.Attribute, Kind], None]
# A comparison (`a == b`, `a < b < c`, `v in t`) with the kinds of its operands, left first.
ComparisonHook = Callable[["Rule", Checker, ast.Compare, list[Kind]], None]
# `NAME = value` in a function whose `global NAME` came before: the target and the value.
GlobalStoreHook = Callable[["Rule", Checker, ast.Name, ast.expr], None]
# A list/set/dict comprehension over a list, after a possible frame-skipping break, with the kind
# of what it captures from the enclosing function.
ComprehensionHook = Callable[["Rule", Checker, ast.expr, Kind], None]
IteratedHook = Callable[["Rule", Checker, ast.expr], None]
# `sorted(items, key=...)` / `items.sort(key=...)`: the call, the key (None when the elements are
# compared themselves) and the kind of what is compared: the key lambda's body with `item` bound to
# the kind of an element of `items`, an element itself, or what `key=torch.norm`/`scores.get` gives.
SortKeyHook = Callable[["Rule", Checker, ast.Call, "ast.expr | None", Kind], None]
# A call whose callee resolves from the module's imports into a package outside the standard
# library and torch (`pywt.Wavelet("db2")`, `tqdm(range(n))`), with its qualified name; or a method
# call on a local such a call built (`bar.update(1)`: "tqdm.tqdm.update", and True).
ThirdPartyCallHook = Callable[["Rule", Checker, ast.Call, str, bool], None]
# `obj.method(...)` on an object of a standard-library class the function built: "module.Class.method"
# as the module imported the class (`p.exists()` on `p = pathlib.Path(root)`: "pathlib.Path.exists").
StdlibMethodHook = Callable[["Rule", Checker, ast.Call, str], None]
# The same on an object built outside the compiled frame (`self.root.exists()`, a global's method),
# and whether the object's class is a subclass of the tree that inherits the method: the message and
# id of a break, or None when it traces (asked by the scope solver: held_methods.py).
HeldMethodHook = Callable[["Rule", str, bool], "tuple[str, str] | None"]
HeldTorchMethodHook = Callable[["Rule", str, str], "tuple[str, str] | None"]
# `t OP obj` / `obj OP t`, a tensor and an object of a known class: the binary operation, the ref
# of the object's method that answers in eager ("instance:Cls>__rmul__", `__mul__` on the left),
# and the tensor's kind.
OperatorHook = Callable[["Rule", Checker, ast.BinOp, Kind, Kind], None]  # (operation, left kind, right kind)
ObjectOperandHook = Callable[["Rule", Checker, ast.BinOp | ast.UnaryOp | ast.AugAssign, str, Kind, bool], None]
# `v in t` / `v not in t` where `t` is a tensor value (not a display or a local collection): the
# comparison, the container and its kind.
MembershipHook = Callable[["Rule", Checker, ast.Compare, ast.expr, Kind], None]
# A call that may land in the tree, inside a list/set/dict comprehension over `d.items()`,
# `d.values()`, `d.keys()` or a submodule container (Python < 3.12), and the comprehension.
DictViewComprehensionCallHook = Callable[["Rule", Checker, ast.Call, ast.expr], None]
# A static `forward(ctx, ..., *args)` of a class (an autograd.Function's), asked once per function.
VarargForwardHook = Callable[["Rule", Checker, ast.FunctionDef], None]
# A class's `__torch_function__(cls, func, types, args, kwargs)`, asked once per function.
TorchFunctionOverrideHook = Callable[["Rule", Checker, ast.FunctionDef], None]
# `Alias[...].method(...)`: a method called on a subscripted name (`Optional[int].__eq__(t)`): the
# subscripted name, resolved from the module's imports ("typing.Optional"), and the method.
SubscriptedReceiverHook = Callable[["Rule", Checker, ast.Call, str, str], None]
# `NDArray[np.float64]` read at run time: the subscripted name, resolved from the module's imports.
SubscriptedNameHook = Callable[["Rule", Checker, ast.Subscript, str], None]
# `super().NAME(...)` / `super(Cls, self).NAME(...)` in a method: the name.
SuperMethodHook = Callable[["Rule", Checker, ast.Call, str], None]
SuperReadHook = Callable[["Rule", Checker, ast.Attribute, str], None]


@dataclass(frozen=True)
class Detection:
    conversions: Mapping[Conversion, ConversionHook] = field(default_factory=dict)
    # Resolved dotted names of calls Dynamo cannot trace ("warnings.warn", "torch.save").
    calls: Mapping[str, CallHook] = field(default_factory=dict)
    # Like `calls`, for a table generated from Dynamo's trace rules: a name another rule claims
    # (in `calls` or `module_functions`, each measured by hand) stays that rule's.
    fallback_calls: Mapping[str, CallHook] = field(default_factory=dict)
    # (module, function) reached through any attribute chain: `logging.root.warning`.
    module_functions: Mapping[tuple[str, str], CallHook] = field(default_factory=dict)
    # torch functions by their name after `torch.`, or by the last part of it.
    torch_functions: Mapping[str, CallHook] = field(default_factory=dict)
    torch_function_leaves: Mapping[str, CallHook] = field(default_factory=dict)
    tensor_methods: Mapping[str, MethodHook] = field(default_factory=dict)
    # Methods called on a NumPy array under Dynamo (Checker.is_ndarray: `np.ones(n).tobytes()`).
    ndarray_methods: Mapping[str, MethodHook] = field(default_factory=dict)
    # Attributes read from a NumPy array under Dynamo (`np.ones(n).flags`).
    ndarray_attributes: Mapping[str, AttributeReadHook] = field(default_factory=dict)
    tensor_attributes: Mapping[str, TensorAttributeHook] = field(default_factory=dict)  # `y.grad_fn`
    builtins: Mapping[str, CallHook] = field(default_factory=dict)
    logger_call: CallHook | None = None  # `logger.warning(...)`; the name is "owner.method"
    # Subscript hooks are asked only when the bounds or key may be tensors (a non-empty Kind).
    slice_bounds: SubscriptHook | None = None  # `x[a:b]` with the bounds' kind
    indexing: SubscriptHook | None = None  # `x[key]` with the key's kind
    indexed_store: SubscriptHook | None = None  # `x[key] = v` with the key's kind (slice bounds: `slice_bounds`)
    # `self.layers[key](x)`: a container of callables (a ModuleList, a list) indexed by a key that
    # may be a tensor; the owner's kind is not looked at (it holds modules).
    called_subscript: SubscriptHook | None = None
    assertion: AssertHook | None = None  # `assert <tensor test>, msg`
    local_object_call: LocalObjectCallHook | None = None  # `obj.method()`, obj built in this function
    instance_method_call: LocalObjectCallHook | None = None  # `x.method()`, x's class proven by isinstance
    super_init: SuperInitHook | None = None  # `super().__init__(...)` in an `__init__`
    super_reinit: SuperInitHook | None = None  # `super().__init__(...)` in a method that is not `__init__`
    # Asked only when the config names `dependencies`: each call the scope solver resolves.
    dependency_call: DependencyCallHook | None = None
    object_assertion: ObjectAssertHook | None = None  # `assert <not a tensor>, msg`
    generator_argument_call: GeneratorArgumentHook | None = None  # `f(*(g(x) for g in gs))`
    # A call made after this function built an object it keeps in a local (`sde = Fwd(sde)`).
    held_object_call: HeldObjectCallHook | None = None
    generator_keyword: GeneratorKeywordHook | None = None  # `torch.randn(..., generator=g)`
    requires_grad_keyword: RequiresGradKeywordHook | None = None  # `torch.zeros(3, requires_grad=True)`
    metaclass_call: HeldObjectCallHook | None = None  # `super().__call__(...)` in a `__call__`
    str_method: StrMethodHook | None = None  # `param.strip()`: a `str` method on a parameter
    skipped_frame_comprehension: ComprehensionHook | None = None
    iterated: IteratedHook | None = None  # `for v in NODE`, a comprehension's, `zip`/`enumerate` arguments there
    sized: IteratedHook | None = None  # `len(NODE)`, `bool(NODE)`: the object asked for its size
    contained: IteratedHook | None = None  # `k in NODE`, `k not in NODE`: the object asked whether it holds k
    # `t.requires_grad = flag`: assignments to these attributes, by name, whatever the owner's kind.
    attribute_writes: Mapping[str, AttributeWriteHook] = field(default_factory=dict)
    # `tb.tb_lasti`, `m.register_forward_hook(f)`: reads of these attributes, by name, whatever the
    # owner, a method's read in a call included.
    attribute_reads: Mapping[str, AttributeReadHook] = field(default_factory=dict)
    caught_exception_write: CaughtExceptionWriteHook | None = None  # `except E as err: err.note = ...`
    class_statement: ClassStatementHook | None = None  # `class Local: ...` inside a function
    class_call: ClassCallHook | None = None  # `Options(...)`, `types.Options(...)`
    autograd_apply: ClassCallHook | None = None  # `Fn.apply(...)`, `func.apply(...)`
    # `ctx.mark_dirty(x)`: a method called on the `ctx` of an autograd.Function's static forward, by name
    autograd_context_call: ClassCallHook | None = None
    vararg_autograd_forward: VarargForwardHook | None = None  # `def forward(ctx, flag, *args)`
    torch_function_override: TorchFunctionOverrideHook | None = None  # `def __torch_function__(cls, func, ...)`
    disabled_call: DisabledCallHook | None = None  # asked by the scope solver (analysis/disabled_calls.py)
    compiled_function_call: CompiledFunctionCallHook | None = None  # `kernel(a)` on a numba function (disabled_calls.py)
    cached_property_read: CachedPropertyReadHook | None = None  # asked by the solver (analysis/cached_property_reads.py)
    returned_unrebuildable: ReturnedUnrebuildableHook | None = None  # asked by the solver (analysis/returned_holders.py)
    manager_without_yield: ManagerWithoutYieldHook | None = None  # asked by the solver (analysis/generator_managers.py)
    held_module_call: HeldModuleCallHook | None = None  # `self.lstm(x)`, judged by what built `self.lstm`
    entered_value: EnteredValueHook | None = None  # `with lock:`: a value built before the `with`
    entered_call: EnteredCallHook | None = None  # `with announced(name):`, `with Timer():` after a resumable point
    built_manager: BuiltManagerHook | None = None  # `with Section(name):`: what the `with` enters is built here
    manager_body: ManagerBodyHook | None = None  # `with Timer():` whose body breaks, after a resumable point
    breaking_try: TryHook | None = None  # `try:` after a resumable point
    breaking_read: ReadStatementHook | None = None  # a statement reading a property, after a resumable point
    breaking_dunder: ReadStatementHook | None = None  # a statement whose operator runs a dunder (GM658)
    held_context: HeldContextHook | None = None  # `with self.lock:`, judged by what built `self.lock`
    object_operand: ObjectOperandHook | None = None  # `t * scale`: scale's class has `__rmul__`
    membership: MembershipHook | None = None  # `3 in t`: Tensor.__contains__ reads the answer back
    comparison: ComparisonHook | None = None  # `id(seen) == key`, `a.data_ptr() == b.data_ptr()`: every comparison
    operator: OperatorHook | None = None  # `x.data_ptr() % 16`: a binary operation with a call operand
    subscripted_receiver: SubscriptedReceiverHook | None = None  # `Optional[int].__eq__(other)`
    # `NDArray[np.float64]` evaluated in traced code: the resolved dotted names subscripted
    subscripted_names: Mapping[str, SubscriptedNameHook] = field(default_factory=dict)
    # `Cls.make(x)`: a classmethod of a class whose metaclass defines `__getattribute__` (the class's name)
    guarded_class_call: ClassCallHook | None = None
    global_store: GlobalStoreHook | None = None  # `HANDLE = t.register_hook(fn)` after `global HANDLE`
    # `[f(v) for v in d.values()]`, `sum(f(v) for v in vs)`: a call in an element, and the comprehension or the
    # consuming call where Dynamo breaks too
    dict_view_comprehension_call: DictViewComprehensionCallHook | None = None
    super_method_call: SuperMethodHook | None = None  # `super().__eq__(other)`
    super_read: SuperReadHook | None = None  # `super().features`, not called
    sort_key: SortKeyHook | None = None  # `sorted(ts, key=lambda t: t.norm())`, `ts.sort()`, `sorted(ts)`
    third_party_call: ThirdPartyCallHook | None = None  # `scipy.special.gammaln(v)`, `tqdm(steps)`
    stdlib_method_call: StdlibMethodHook | None = None  # `p.exists()` on `p = pathlib.Path(root)`
    held_method: HeldMethodHook | None = None  # `self.root.exists()`, judged by what built `self.root`
    # `self.opt.step()`: the builder outside the standard library ("torch.optim.SGD", or "typed:..." for
    # a parameter annotated with the class) and the method: the message and id of a break, or None.
    held_torch_method: HeldTorchMethodHook | None = None


def assumed_parameter(checker: Checker, node: ast.expr, kind: Kind) -> bool:
    """`node` is a parameter as it came in, not annotated as a tensor: an entry point's parameters
    are only assumed to be tensors, and one used as a count (`range(seq_len)`) or as text
    (`str(mode)`) is a Python value in practice."""
    return isinstance(node, ast.Name) and kind == Kind.of_param(node.id) and not checker.annotated_tensor(node.id)


def conversion(message: str) -> ConversionHook:
    """Report every bool conversion of a tensor in this context with `message`."""

    def hook(rule: Rule, checker: Checker, test: ast.expr, kind: Kind) -> None:
        checker.report(rule, test, message, kind)

    return hook


def untraceable(message: str) -> CallHook:
    """A call Dynamo cannot trace, reported wherever traced code makes it; it returns no tensor.
    `{name}` in `message` is the call's name."""

    def hook(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind:
        checker.report(rule, call, message.format(name=name), TENSOR)
        return NOT_TENSOR

    return hook


def host_copy(message: str, array_gb_id: str | None = None) -> MethodHook:
    """A tensor method that copies values to Python: reported, and its result is no tensor. On a NumPy
    array (a tensor under Dynamo, analysis/numpy_values.py) it is reported with `array_gb_id` when given."""

    def hook(rule: Rule, checker: Checker, call: ast.Call, method: str, receiver: Kind, args: list[Kind]) -> Kind:
        owner = call.func.value if isinstance(call.func, ast.Attribute) else None
        if owner is not None and is_array_element(checker, owner):
            return NOT_TENSOR  # array_element_copy's
        array = array_gb_id is not None and owner is not None and checker.is_ndarray(owner)
        checker.report(rule, call, message, receiver, gb_id=array_gb_id if array else None)
        return NOT_TENSOR

    return hook


def is_array_element(checker: Checker, node: ast.expr) -> bool:
    """`a[i]` of a NumPy array: a tensor's element under Dynamo, whose value only the graph knows (a
    0-d array made from Python constants, `np.array(2.0)[()]`, is folded instead)."""
    return (isinstance(node, ast.Subscript) and checker.is_ndarray(node.value)
            and not (isinstance(node.slice, ast.Tuple) and not node.slice.elts))


def array_element_copy(message: str, gb_id: str) -> MethodHook:
    """The NumPy-array side of a host copy, `a[i].item()`: reported whatever the element's kind (the
    solver does not call a NumPy call's result a tensor), with the id Dynamo gives an array."""

    def hook(rule: Rule, checker: Checker, call: ast.Call, method: str, receiver: Kind, args: list[Kind]) -> None:
        if isinstance(call.func, ast.Attribute) and is_array_element(checker, call.func.value):
            checker.report(rule, call, message, TENSOR, gb_id=gb_id)

    return hook
