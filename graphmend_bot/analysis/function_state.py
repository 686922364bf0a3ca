"""What one function's traversal knows as it goes: the state every layer of the analyzer shares.

The analyzer of one function body is built in layers, each a module with one job and each a
subclass of the one below, so a layer calls those below it directly (no extra indirection per
node; method lookups are cached by the interpreter):

- `FunctionState` (here): the environment besides the per-path `Env`, read and written by all,
  and where Dynamo could resume (the operations counted so far);
- `FindingReporter` (function_reporting.py): what a rule's detection hook may ask and report;
- `ObjectTracker` (function_objects.py): which class or object a local holds;
- `SortChecker` (function_sorts.py): what a sort compares;
- `CallResolver` (function_calls.py): calls, into torch, builtins or the checked tree;
- `ExpressionEvaluator` (function_expressions.py): the kind of every other expression, and the
  places Python converts a value to a bool;
- `StatementVisitor` (function_statements.py): statements, branches, loops and bindings;
- `FunctionAnalyzer` (function.py): the driver, from parameters to the function's summary.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from graphmend_bot.analysis import (
    bound_methods,
    function_aliases,
    keyword_arguments,
    shadowed_builtins,
    skipped_frames,
)
from graphmend_bot.analysis.call_spellings import respelled
from graphmend_bot.analysis.guards import GuardHelpers
from graphmend_bot.analysis.mode_values import Modes, ModeValues
from graphmend_bot.analysis.model import FunctionSummary
from graphmend_bot.analysis.resume_points import ResumePoint
from graphmend_bot.vocabulary.kind import NOT_TENSOR, Kind

Env = dict[str, Kind]
Resolve = Callable[[ast.expr], "str | None"]


class Resumable(NamedTuple):
    """A point Dynamo can resume at, for a `with` or `try` after it: the kind of the last operation
    that made it one, the first call site since the graph holds two, and the kinds of the drafts
    since then. A break there leaves it too few operations to resume with (GM660, GM661)."""

    kind: Kind
    first_site: int
    breaks_since: Kind


class FunctionState:
    """The analyzer's state besides the per-path `Env`: what every layer reads and writes."""

    # Every attribute __init__ sets, as slots: past 30 attributes an instance's dict is no longer
    # shared with its class, and each of the 79 was stored and read through a dict of its own
    # (about 2% of the summaries' instructions on transformers). One left out still works, from
    # the layers' __dict__; tests/test_summary_speed.py asks that none is.
    __slots__ = (
        "_annotated_tensors", "_assumed", "_bindings", "_bound_before", "_built_on_every_path", "_call_result_bindings",
        "_call_results", "_caught", "_checked_tensors", "_closures", "_collection_bindings", "_collections",
        "_context_managers", "_dict_view_calls", "_dicts", "_eager_after", "_fields", "_frame_skips", "_function_aliases",
        "_globals", "_handled", "_held_loops", "_held_reported", "_keyword_kinds", "_kinds", "_last_site_node", "_length_tested",
        "_loop_depth", "_manager_body_entry", "_method_tables", "_mode_values", "_modes", "_module_functions", "_ndarrays", "_none_params",
        "_number_bindings", "_numbers", "_one_dimensional", "_operands", "_operations_before", "_parameter_loops", "_passed_ranks", "_python_params", "_rare_depth",
        "_rebound", "_reported", "_respelled", "_resumable_entry", "_resume_points", "_scalars", "_sequences", "_shadowed_builtins", "_sized_params", "_sizes",
        "_tensor_mappings",
        "_test_depth", "_top_level", "_top_level_ops", "_try_checkpoint", "_try_depth", "_tuple_prefixes", "_usual_draft_kinds",
        "_value_mode", "_with_depth", "aliases", "attribute_masks", "attribute_writes", "built_by", "containers",
        "dependency_calls", "entry", "guard_helpers", "guarded_class_methods", "guards", "inherited_shadows", "instances", "lines", "logger_names",
        "mask_returns", "module_objects", "named_tuples", "node", "number_keys", "off_flags", "output_shapes", "own_tensor_methods", "partials", "properties",
        "python_keys", "references", "resolve", "return_shapes", "returned_builtin_collections", "returned_collections", "returned_element_collections",
        "returned_element_functions", "returned_functions", "returns", "scalar_returns", "self_name", "summary", "text", "tuple_fields",
        "tuples", "typed_attributes", "unpacked",
    )

    def __init__(
        self,
        node: ast.FunctionDef | ast.AsyncFunctionDef,
        summary: FunctionSummary,
        resolve: Resolve,
        logger_names: frozenset[str],
        lines: list[str],
        entry: bool,
        guard_helpers: GuardHelpers | None = None,
        dependency_calls: bool = False,
        named_tuples: dict[str, tuple[str, ...]] | None = None,
        python_keys: frozenset[str] = frozenset(),
        properties: Mapping[str, bool] | None = None,
        module_objects: frozenset[str] = frozenset(),
        guarded_class_methods: frozenset[str] = frozenset(), inherited_shadows: frozenset[str] = frozenset(),
        number_keys: frozenset[str] = frozenset(), typed_attributes: frozenset[str] = frozenset(),
        off_flags: frozenset[str] = frozenset(), containers: frozenset[str] = frozenset(), text: str | None = None,
        own_tensor_methods: frozenset[str] = frozenset()) -> None:
        self.python_keys = python_keys
        self.number_keys = number_keys  # number_keys.py: `c["size"]` of them reads a Python number
        self.own_tensor_methods = own_tensor_methods  # tensor-only method names a class of the module defines
        self.off_flags = off_flags  # the attributes of `self` its class keeps off by default (off_flags.py)
        self.node = node
        self._top_level = frozenset(id(statement) for statement in node.body)
        self._held_reported: set[tuple[str, int, int]] = set()
        self._context_managers: set[int] = set()  # ids of the `with` items' expressions
        self._caught: set[str] = set()  # names bound by the `except ... as NAME` clauses being visited
        self._annotated_tensors: set[str] = set()  # parameters annotated as tensors
        # Named tuple types of the module: an instance holds the kinds it was built from, and a
        # read of one of their fields (`tableau.alpha`) is what the instance holds.
        self.named_tuples = named_tuples or {}
        self.tuple_fields = frozenset(name for fields in self.named_tuples.values() for name in fields)
        self.dependency_calls = dependency_calls
        self.properties = properties or {}  # property names of this module's classes: gives a list, dict or set
        self.typed_attributes = typed_attributes  # `self.NAME` the class types (a `getter:` site on `self.NAME.x`)
        self.guard_helpers = guard_helpers
        self._module_functions = guard_helpers.function if guard_helpers is not None else None
        self.summary = summary
        self.resolve = resolve
        self.logger_names = logger_names
        # Module-level names bound by a call to some object that is no logger (`log = Tracker()`):
        # its methods are its class's, whatever the name says (analysis/logger_bindings.py).
        self.module_objects = module_objects
        # `Cls.method` of the module's classes whose metaclass defines `__getattribute__` (guarded_classes.py).
        self.guarded_class_methods = guarded_class_methods
        # Builtin names the module and the enclosing functions bind; with this function's own
        # (worked out at its first call of a builtin name), calls of those are no builtin's.
        self.inherited_shadows = inherited_shadows
        self._shadowed_builtins: shadowed_builtins.Shadows | None = None
        self.lines, self.text = lines, text  # text: its source, docstring blanked (code_text.py), if the caller has it
        self.entry = entry
        self.returns: Kind = NOT_TENSOR
        self.return_shapes: list[tuple[Kind, ...] | None] = []
        # The same returns, an output class built from the tuple's fields as its elements (statement_forms.output_fields).
        self.output_shapes: list[tuple[Kind, ...] | None] = []
        # Per `return` of a value other than None: a collection? and per element of a display returned: returns_sized.
        self.returned_collections: list[bool] = []
        self.returned_builtin_collections: list[bool] = []  # list, dict or set only: returns_builtin_collection
        self.returned_element_collections: list[tuple[bool, ...] | None] = []
        self.references: set[str] = set()
        # Locals bound to a tuple display, element by element (`pad = (0, 0, right, 0)`).
        self.tuples: dict[str, tuple[Kind, ...]] = {}
        # Locals bound to a tuple of which only the first elements are known, and the kind the binding
        # gave them: `outputs = (hidden, dims)` then `outputs += attentions[1:]` (returned by swin's stages).
        self._tuple_prefixes: dict[str, tuple[tuple[Kind, ...], Kind]] = {}
        # Locals whose value under compile a compile guard decides (`is_tracing = ... or
        # is_torchdynamo_compiling()`).
        self.guards: dict[str, bool] = {}
        # Loop variables standing for submodules: `for layer in self.layers` -> "self:layers[]".
        self.aliases: dict[str, str] = {}
        # Locals holding an object built by a call: `solver = SOLVERS[name](...)` -> the
        # constructor's callee ref, so `solver.integrate(t)` reaches the class's method.
        self.instances: dict[str, str] = {}
        # `packed, unpack = pack_one(x)`: local -> "element:INDEX>REF", the place in what the
        # call REF returns that the local took (calling it runs the function returned there)
        self.unpacked: dict[str, str] = {}
        # Locals holding an object a call outside the tree built, by the call's qualified name
        # (`generator = np.random.SeedSequence(...)` -> "numpy.random.SeedSequence"), so that
        # `generator.generate_state(4)` is judged as "numpy.random.SeedSequence.generate_state".
        self.built_by: dict[str, str] = {}
        # Those of them bound by a top-level statement of the function: built on every path after it.
        self._built_on_every_path: set[str] = set()
        # Locals bound to `functools.partial(g, ...)`: g's ref and the arguments bound so far.
        self.partials: dict[str, tuple[str, tuple[Kind, ...], tuple[tuple[str, Kind], ...]]] = {}
        # Locals naming one of several functions (`fn = spline` / `fn = identity`): each is called.
        self._function_aliases = function_aliases.function_aliases(self.node.body)
        self._respelled: dict[ast.Call, ast.expr | None] = {}  # call_spellings: each call's plain spelling
        # Locals holding a tuple of the object's bound methods (`steps = (self.a, self.b)`).
        self._method_tables = bound_methods.MethodTables(self.node.body)
        # The name of the instance parameter of a method (`self`): `self.NAME` is module state.
        self.self_name: str | None = None
        self.attribute_writes: list[tuple[str, Kind]] = []
        self.attribute_masks: dict[str, bool] = {}  # per attribute written: whether every write stores a mask
        self.mask_returns: set[int] | None = set()  # FunctionSummary.mask_returns, None once a return is no mask
        self.scalar_returns: set[int] | None = set()  # FunctionSummary.scalar_returns, the same for 0-d tensors
        self.returned_functions: set[str] = set()
        self.returned_element_functions: set[tuple[int, str]] = set()
        # When this holds, Dynamo runs the rest of the frame eagerly: after `with open(...)` (it cannot resume inside it),
        # after a break in a loop body, `all()`/`any()` of a generator (it skips the frame) or a `try` body (suppressed_if).
        self._eager_after: Kind = NOT_TENSOR
        self._loop_depth = 0
        self._reported: set[tuple[str, int, int] | tuple[str, int, int, int, int]] = set()
        self._test_depth = 0
        # Unannotated parameters defaulting to None, and those proven Python by their fallback (`causal = default(causal, self.causal)`).
        self._none_params: set[str] = set()
        self._python_params: set[str] = set()
        self._rare_depth = 0  # inside an error/misconfiguration branch (analysis/frequency.py)
        # Calls a comprehension over a dict iterator makes for every element (GM624: skipped_frames.py),
        # by id -> the comprehension; `containers`: the class's attributes holding one (module_containers.py).
        self._dict_view_calls: dict[int, ast.expr] = {}
        self.containers = containers
        self._modes: list[str] = []  # the modes of the arms around (analysis/modes.py)
        self._mode_values = ModeValues()  # locals holding a tensor in one mode only (mode_values.py)
        # While a condition is evaluated (`_test`): each operand `and`/`or`/`not` combine, with its kind.
        self._operands: list[tuple[ast.expr, Kind]] | None = None
        # While a conversion is reported: the mode its operands' locals bring and, when they are
        # tensors, the other operands' kind (the finding then breaks in every mode).
        self._value_mode: tuple[Modes, Kind] | None = None
        # While a conversion is reported: the call results its condition tests whole (Draft.length_tested).
        self._length_tested: Kind = NOT_TENSOR
        # Kinds `if isinstance(x, torch.Tensor):` arms prove tensors: `x.detach().cpu()` there is what `x` is (monai).
        self._checked_tensors: list[Kind] = []
        # Parameters annotated as mappings of tensors (`params: Dict[str, Tensor]`): a value read from one is a tensor.
        self._tensor_mappings: set[str] = set()
        # Sizes of argument tensors among keyword values (keyword_arguments.py), built on first use.
        self._sizes: keyword_arguments.Sizes | None = None
        # Nested `def`s and lambdas' locals, by name: the kinds of the enclosing locals their bodies read (closure_kind).
        self._closures: dict[str, Kind] = {}
        # Kinds of the subexpressions of the `assert` test being analysed (see kind_of).
        self._kinds: dict[int, Kind] | None = None
        # Names assigned in the body: a parameter rebound no longer holds what a caller passed.
        self._rebound: set[str] = set()
        # Names a `global` statement of the body declared so far (Python wants it before their use).
        self._globals: set[str] = set()
        # What makes Dynamo skip this frame (analysis/skipped_frames.py): drafts inside a `try` or
        # loop body (their deps), and the call sites there (a break in the callee does it too).
        self._try_depth = 0
        # The names the handlers of each enclosing `try` catch ("*" for `except:` and the catch-alls):
        # a `raise` they catch is control flow Dynamo traces (statement_forms.caught_here).
        self._handled: list[frozenset[str]] = []
        self._frame_skips = skipped_frames.FrameSkips()
        # The tensor operations of the statements at the top of the body so far: (kind, how many call
        # sites and usual-path drafts there were before the statement). For the call a `with` enters
        # after two of them outside any `try`/`with` block (a point Dynamo can resume at:
        # analysis/entered_managers.py): the resume point (Resumable) and the call sites entering it
        # runs: the call, and a class's `__enter__` and `__exit__`.
        self._top_level_ops: list[tuple[Kind, int, int]] = []
        self._usual_draft_kinds: list[Kind] = []  # of the drafts off error and misconfiguration branches
        # Where Dynamo resumes after a break at the top of the body: the kinds under which each top-level
        # statement so far breaks (its own expressions, not its arms), in order, and per local how many
        # of them came before its last binding. A local bound before a break is an input of the frame
        # Dynamo resumes in (resumed_input).
        self._resume_points: list[ResumePoint] = []
        self._bound_before: dict[str, int] = {}
        self._with_depth = 0
        self._resumable_entry: tuple[Resumable, tuple[int, ...]] = (Resumable(NOT_TENSOR, 0, NOT_TENSOR), ())
        self._try_checkpoint = Resumable(NOT_TENSOR, 0, NOT_TENSOR)  # the same for the `try` statement being entered
        # The `with` whose body was just walked (manager_bodies.py): its point, manager and body sites, body kind
        self._manager_body_entry: tuple[Resumable, tuple[int, ...], tuple[int, ...], Kind] | None = None
        self._operations_before = 0  # statements computing a tensor anywhere so far: at least the graph's
        self._last_site_node = 0  # id of the call the last call site was recorded for
        self._collections: set[str] = set()  # locals bound to a list, dict or set (`order = list(range(n))`)
        self._dicts: set[str] = set()  # of those, the dicts: iterated (and sorted) by their keys
        self._sequences: set[str] = set()  # locals bound to a call returning tensors' tuple (`parts = x.chunk(2)`)
        # Locals a class call built with keywords, and their kinds: `state.v` of `state = LIFState(z=..., v=...)`
        self._fields: dict[str, dict[str, Kind]] = {}
        # Locals an assignment bound to what a call returns, or one element of it (`_, tokens = f()`):
        # a condition on one tests that value whole (Draft.length_tested), not an item read from it.
        self._call_results: set[str] = set()
        # How often each bare name is bound, and how often to a collection or to a call's result:
        # a name is trusted as one only when every binding is (the arms of an `if` are visited in
        # order, so the last binding alone would decide for a name that is a tensor in one arm).
        # (Plain dicts read with a default: four Counters cost 2.4 us each, for each of 35,000 functions.)
        self._bindings: dict[str, int] = {}
        self._collection_bindings: dict[str, int] = {}
        self._call_result_bindings: dict[str, int] = {}
        self._number_bindings: dict[str, int] = {}  # to a Python number (tensor_rank.python_number)
        # Parameters that are collections by their annotation (`tokens: list[Tensor]`), and `*args`.
        self._sized_params: set[str] = set()
        self._assumed: set[str] = set()  # an entry point's unannotated parameters (assumed_tensor)
        # Kinds of the keyword arguments of the calls analysed so far, by id of the call (keyword_kinds).
        self._keyword_kinds: dict[int, dict[str, Kind]] = {}
        self._scalars: set[str] = set()  # locals bound to a 0-d tensor by construction (tensor_rank.py)
        self._one_dimensional: set[str] = set()  # locals bound to a 1-d tensor by construction (tensor_rank.py)
        self._held_loops: dict[str, str] = {}  # `i` of `for i in self.order` -> "order" (held_ranks.py)
        self._passed_ranks: Any = None  # passed_ranks.Bindings, made when an index asks
        self._numbers: set[str] = set()  # locals every binding of which is a Python number (tensor_rank.py)
        self._ndarrays: set[str] = set()  # locals bound to a NumPy array under Dynamo (numpy_values.py)
        self._parameter_loops: set[str] = set()  # `p` of `for p in m.parameters()` (is_parameter_loop_variable)

    def forget(self, name: str) -> None:
        """What was known of a local's value, once it is bound again."""
        self._bound_before[name] = len(self._resume_points)
        self._closures.pop(name, None)
        self._collections.discard(name)
        self._dicts.discard(name)
        self._sequences.discard(name)
        self._fields.pop(name, None)
        self._call_results.discard(name)
        self._scalars.discard(name)
        self._one_dimensional.discard(name)
        self._held_loops.pop(name, None)
        self._numbers.discard(name)
        self._ndarrays.discard(name)
        self._parameter_loops.discard(name)
        self.guards.pop(name, None)
        self.aliases.pop(name, None)
        self.instances.pop(name, None)
        self.unpacked.pop(name, None)
        self.built_by.pop(name, None)
        self._built_on_every_path.discard(name)
        self.partials.pop(name, None)
        self.tuples.pop(name, None)
        self._tuple_prefixes.pop(name, None)

    def builtin_called(self, func: ast.expr, resolved: str | None) -> str | None:
        """The builtin a call of `func` runs, or None: not a name rebound in scope (shadowed_builtins.py)."""
        name = shadowed_builtins.builtin_called(func, resolved)
        if name is None or not isinstance(func, ast.Name):
            return name
        if self._shadowed_builtins is None:
            self._shadowed_builtins = shadowed_builtins.function_shadows(self.node, self.inherited_shadows, self.lines, self.text)
        return None if self._shadowed_builtins.hides(name, func) else name

    def builtin_of(self, func: ast.expr) -> str | None:
        """The builtin `func` names (`len`, `builtins.len`), unless a binding in scope hides it."""
        return self.builtin_called(func, self.resolve(func))

    def resolve_callee(self, func: ast.expr) -> str | None:
        """`resolve`, with a builtin name no binding hides as `builtins.NAME` (tensor_rank.python_number)."""
        name = self.builtin_called(func, resolved := self.resolve(func))
        return f"builtins.{name}" if name is not None else resolved

    def plain_spelling(self, node: ast.Call) -> ast.expr | None:
        """The plain call `node` spells through indirection (analysis/call_spellings.py), once per node."""
        if (plain := self._respelled.get(node, node)) is node:
            plain = self._respelled[node] = respelled(node, self.resolve, self.builtin_of, self._function_aliases, self._rebound)
        return plain

    def _grown_tuple(self, node: ast.AugAssign, added: tuple[Kind, ...] | None, previous: Kind
                     ) -> tuple[tuple[Kind, ...], bool] | None:
        """`outputs += ...` on a local holding a tuple of known elements on this path (its kind is
        what they make, not what another arm bound): the elements it then holds, and whether more
        follow them unknown (what was added is no display: `attentions[1:]`)."""
        if not (isinstance(node.op, ast.Add) and isinstance(node.target, ast.Name)):
            return None
        if (known := self.tuples.get(node.target.id)) is not None and Kind.union(known) == previous:
            return (known + added, False) if added is not None else (known, True)
        prefix = self._tuple_prefixes.get(node.target.id)
        return (prefix[0], True) if prefix is not None and prefix[1] == previous else None

    def _returned_tuple(self, value: ast.expr, returned: Kind) -> tuple[Kind, ...] | None:
        """`return outputs` of a local holding a tuple of known elements on this path: those elements
        (only the first ones of a tuple grown by an unknown one: FunctionAnalyzer takes a prefix
        common to every return)."""
        if not isinstance(value, ast.Name):
            return None
        if (known := self.tuples.get(value.id)) is not None and Kind.union(known) == returned:
            return known
        prefix = self._tuple_prefixes.get(value.id)
        return prefix[0] if prefix is not None and prefix[1] == returned else None

    def return_mask(self, returned: Kind, scalar: bool) -> None:
        """Whether this `return` may give a mask, or a 0-d tensor (`scalar`: one by construction):
        one itself, or what a call site returns."""
        if self.scalar_returns is not None and not scalar:
            if returned.is_call_result:
                self.scalar_returns.update(call.site for call in returned.calls)
            else:
                self.scalar_returns = None
        if self.mask_returns is None or (returned.boolean and returned.is_tensor):
            return
        if returned.is_call_result:
            self.mask_returns.update(call.site for call in returned.calls)
        else:
            self.mask_returns = None

    def write_attribute(self, name: str, kind: Kind) -> None:
        """`self.NAME = value` or `self.register_buffer("NAME", value)`: module state."""
        self.attribute_writes.append((name, kind.without_flags()))
        self.attribute_masks[name] = self.attribute_masks.get(name, True) and kind.boolean and kind.is_tensor

    def _resumable(self) -> Resumable | None:
        """Whether Dynamo can go back to this statement to resume, measured on torch 2.13: once the
        graph holds two operations, outside any `try` or `with` block and outside loops (in a `for`
        body the iterator is on the stack: it goes back to the `for`). After a break it resumes with
        an empty graph (tests/fixtures/rules/GM660_breaking_context_manager.py): the two must come
        after the last break, so the point holds while nothing breaks from the first of the last two."""
        if self._try_depth or self._with_depth or self._loop_depth or len(self._top_level_ops) < 2:
            return None
        _, first_site, first_draft = self._top_level_ops[-2]
        return Resumable(self._top_level_ops[-1][0], first_site, Kind.union(self._usual_draft_kinds[first_draft:]))

    def _resume_point(self, node: ast.stmt, drafts_before: int) -> None:
        """A top-level statement whose own expressions made drafts breaks there on every call that
        reaches it when their kinds hold: what is bound so far is an input of the frame after it."""
        if id(node) in self._top_level and (new := len(self._usual_draft_kinds) - drafts_before) > 0:  # arms judged when asked
            self._resume_points.append((node, self._usual_draft_kinds[drafts_before:], self.summary.drafts[-new:]))

    def _count_operation(self, node: ast.stmt, operation: bool, kind: Kind, before: tuple[int, int]) -> None:
        """A statement at the top of the body that computes a tensor by an operation (not a bare
        name or attribute read) puts at least one node in the graph: Dynamo takes a point it can
        resume at only once the graph holds two (symbolic_convert's `is_non_empty_graph`)."""
        if operation and kind.is_tensor:
            self._operations_before += 1
            if id(node) in self._top_level:
                self._top_level_ops.append((kind, *before))
        self._resume_point(node, before[1])

    # The traversal recurses across its layers: a call evaluates its arguments, a walrus or a
    # comprehension binds a target. Defined by ExpressionEvaluator and StatementVisitor above.
    def expr(self, node: ast.expr | None, env: Env) -> Kind:
        raise NotImplementedError

    def _index(self, node: ast.expr, env: Env) -> Kind:
        raise NotImplementedError

    def _bind(
        self, target: ast.expr, kind: Kind, env: Env, elements: tuple[Kind, ...] | None = None,
        value: ast.expr | None = None,
    ) -> None:
        raise NotImplementedError

