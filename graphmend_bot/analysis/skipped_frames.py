"""Comprehensions Dynamo compiles as frames of their own, after it skipped the frame around them.

Measured on torch 2.13, Python 3.11 (tests/fixtures/rules/GM611_comprehension_in_skipped_frame.py):
a graph break inside a `try` body or a loop body makes Dynamo skip the whole frame ("Failed to
handle graph break gracefully. Skipping the function and falling back to eager"). Python before
3.12 (PEP 709) runs a list, set or dict comprehension as a nested function, so Dynamo then sees
each comprehension run after the break as a new frame, compiles it when that frame holds a tensor
(a captured tensor, module or container of them, or a reference to the `torch` module:
`has_tensor_in_frame`), and breaks at once when the iterable it was handed is a list ("Dynamo
does not support next() on list_iterator"), a dict, its `keys()`, `values()` or `items()`
(`dict_keyiterator`, ...), or a set (tests/coverage_probes/gb4347_dict_comprehension_after_skip.py).
Not when it iterates a tuple or a range (tuple and range iterators trace), not for generator
expressions. `enumerate` and `zip` over one break as it does. Which comprehensions: after a break in a loop body, every one of the function
(before, in and after the loop: Dynamo skips the whole frame); after a break in a `try` body, those
in that body, before the break too (kornia's `augment.py:722`), and after it. Not those before the
`try` once the graph holds two operations: Dynamo compiles up to the last point before it that it
can resume at ("Compiling up to the previous resumable state"; symbolic_convert keeps such a point
only under `is_non_empty_graph`). With fewer operations before the `try` there is no such point and
it skips the whole frame, so the comprehensions before it run as frames too: transformers'
`output_capturing.py` wrapper builds `{... for k in capturable_flags}` (capturing the model) and
then calls the breaking forward in a `try` (tests/fixtures/rules/GM611_comprehension_in_skipped_frame.py).
Operations are counted as statements computing a tensor anywhere before the `try`, an upper bound.

A break Dynamo cannot resume after at all (its `break_graph_if_unsupported` wraps calls, comparisons,
subscripts and stores only) runs the rest of the frame eagerly wherever it is, so the comprehensions
after it run as frames: a property read whose getter breaks (an attribute load; a
`functools.cached_property` read before 3.12 enters an RLock, cached_property_reads.py), an operator,
a `for` or an `in` on an object whose dunder breaks, and a `with` Dynamo cannot enter (GB0142). Not those before it, traced in the graph Dynamo compiles up to there
(tests/test_frame_skipping_reads.py). The loop variable of `for group in (fresh, ready)` over local
collections (heavyball's `BucketGuard.__call__`) is one of them, and so is a local bound to a property
of the class that builds a list, dict or set (`chain_keys = self._chain_keys`, property_reads.py).

The same record gives GM661 its condition, on every Python (only the comprehensions depend on
COMPREHENSIONS_ARE_FRAMES): a `try` entered after a point Dynamo can resume at breaks at its `try`
line when its body breaks other than on an error or misconfiguration branch (a draft there holds, or
a call there whose callee breaks), and nothing broke since that point (entered_managers.py); see
tests/fixtures/rules/GM661_breaking_try_body.py.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable, Container, Iterable, Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from graphmend_bot.analysis import value_class
from graphmend_bot.analysis.collection_returns import return_collections
from graphmend_bot.analysis.columns import char_column
from graphmend_bot.analysis.eager_entries import in_an_arm
from graphmend_bot.analysis.local_nodes import every_node
from graphmend_bot.analysis.model import Draft
from graphmend_bot.analysis.modes import modes_named, named
from graphmend_bot.analysis.module_containers import iterates_container
from graphmend_bot.vocabulary.kind import NOT_TENSOR, TENSOR, Kind

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import BreakingFunctions, FunctionId, Program, TracedDraft

# 3.12 inlines comprehensions into the function that holds them: no frame of their own.
COMPREHENSIONS_ARE_FRAMES = sys.version_info < (3, 12)
# The dunders Python calls for an instruction Dynamo does not resume after (BINARY_OP, GET_ITER,
# CONTAINS_OP, UNARY_NEGATIVE/POSITIVE, a truth test: operator_dunders.py), measured (tests/test_frame_skipping_reads.py,
# test_breaking_dunders.py); `obj[k]`, `obj[k] = v` and `len(obj)` are a subscript, a store and a call, which it resumes after.
NOT_RESUMED_AFTER = frozenset({"__iter__", "__contains__", "__neg__", "__pos__", "__bool__",
                               *value_class.OPERATOR_METHODS.values(), *value_class.REFLECTED_METHODS.values(),
                               *(f"__i{dunder[2:]}" for dunder in value_class.OPERATOR_METHODS.values())})
_BUILDERS = frozenset({"list", "sorted", "dict", "set"})
_DICT_VIEWS = frozenset({"keys", "values", "items"})
_TYPE_TESTS = frozenset({"isinstance", "issubclass", "type", "hasattr", "callable"})

Comprehension = ast.ListComp | ast.SetComp | ast.DictComp


def dict_view_calls(
    node: ast.expr, self_name: str | None, containers: frozenset[str]
) -> Iterator[tuple[int, ast.expr]]:
    """(id, the comprehension) of the calls a list, set or dict comprehension over `d.items()`,
    `d.values()` or `d.keys()`, or over a submodule container of the method's class (`self.layers`,
    one of `containers`: module_containers.py), makes for every element. Before 3.12 its frame is handed a dict iterator, which
    Dynamo cannot rebuild to resume after a break inside it (GM624). Every element: no `if` filter
    (over a container, a filter on submodules, `if layer.enabled`, keeps some, but one testing their
    type may keep only those that trace), not in a branch of a conditional expression, after the
    first operand of `and`/`or`, nor in a nested lambda or comprehension (kornia's `{k: self.to_tensor(v) if valid(v) else v for ...}`
    converts only some values, and what breaks in `to_tensor` is the conversion)."""
    if not COMPREHENSIONS_ARE_FRAMES or not isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp)):
        return
    iterable = node.generators[0].iter
    view = (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute)
            and iterable.func.attr in _DICT_VIEWS and not iterable.args and not iterable.keywords)
    container = iterates_container(iterable, self_name, containers)
    if not view and not container:
        return
    filters = [condition for generator in node.generators for condition in generator.ifs]
    if filters and (not container or any(type_test(condition) for condition in filters)):
        return
    for call in element_calls(node):
        yield id(call), node


def element_calls(node: Comprehension | ast.GeneratorExp) -> Iterator[ast.Call]:
    """The calls a comprehension's element makes whenever it is built: not in a branch of a
    conditional expression, after the first operand of `and`/`or`, nor in a nested lambda or
    comprehension."""
    stack: list[ast.expr] = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
    while stack:
        expr = stack.pop()
        if isinstance(expr, ast.Call):
            yield expr
        if isinstance(expr, ast.IfExp):
            stack.append(expr.test)
        elif isinstance(expr, ast.BoolOp):
            stack.append(expr.values[0])
        elif not isinstance(expr, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            stack.extend(child for child in ast.iter_child_nodes(expr) if isinstance(child, ast.expr))


def type_test(condition: ast.expr) -> bool:
    """A filter that selects elements by their type (`isinstance(layer, Block)`, `hasattr(...)`)."""
    return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _TYPE_TESTS
               for node in ast.walk(condition))


def moved(draft: Draft, node: ast.expr | None, lines: list[str]) -> Draft:
    """`draft` of a call in a comprehension over a dict iterator, moved to the comprehension's first
    line, where Dynamo reports its break (the frame's own call: measured on a comprehension spanning
    lines); per call its callee decides whether it stands. Unmoved without `node`."""
    if node is None:
        return draft
    line = lines[node.lineno - 1] if node.lineno <= len(lines) else ""
    return replace(draft, row=node.lineno, column=char_column(line, node.col_offset), source_line=sys.intern(line.rstrip("\r\n")))


def builds_collection(node: ast.expr, bound_to_name: bool, builtin: Callable[[ast.expr], str | None]) -> bool:
    """The value is a `list`, `dict` or `set`: a comprehension, `list(...)`, `sorted(...)`,
    `dict(...)`, `set(...)`, or a display (a list or set of constants iterated in place is folded
    into a tuple or frozenset by the compiler; a dict display is always built)."""
    if isinstance(node, (ast.ListComp, ast.DictComp, ast.SetComp, ast.Dict)):
        return True
    if isinstance(node, (ast.List, ast.Set)):
        return bound_to_name or not all(isinstance(element, ast.Constant) for element in node.elts)
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and builtin(node.func) in _BUILDERS


def unpacked_collections(targets: list[ast.expr], value: ast.expr, builtin: Callable[[ast.expr], str | None]) -> list[str]:
    """`fresh, ready = [], []`: the names bound to a collection an unpacked display builds."""
    if len(targets) != 1 or not isinstance(targets[0], ast.Tuple) or not isinstance(value, (ast.Tuple, ast.List)):
        return []
    if len(targets[0].elts) != len(value.elts) or any(isinstance(e, ast.Starred) for e in value.elts):
        return []
    return [target.id for target, element in zip(targets[0].elts, value.elts)
            if isinstance(target, ast.Name) and builds_collection(element, True, builtin)]


def unpacked_objects(targets: list[ast.expr], value: ast.expr, built: Callable[[ast.expr], str | None]) -> dict[str, str]:
    """`cm, other = Section(), Other()`: the names bound to an element a call builds, with what built it
    (as `cm = Section()` binds one: GM612's local managers, method calls on them)."""
    if len(targets) != 1 or not isinstance(targets[0], ast.Tuple) or not isinstance(value, (ast.Tuple, ast.List)):
        return {}
    if len(targets[0].elts) != len(value.elts) or any(isinstance(e, ast.Starred) for e in value.elts):
        return {}
    return {target.id: ref for target, element in zip(targets[0].elts, value.elts, strict=True)
            if isinstance(target, ast.Name) and (ref := built(element)) is not None}


def loop_collections(target: ast.expr, iterable: ast.expr, collections: Container[str]) -> list[str]:
    """`for group in (fresh, ready)`: the loop variable holds each of the local collections listed."""
    if not isinstance(target, ast.Name) or not isinstance(iterable, (ast.Tuple, ast.List)) or not iterable.elts:
        return []
    listed = all(isinstance(element, ast.Name) and element.id in collections for element in iterable.elts)
    return [target.id] if listed else []


def iterates_collection(node: ast.expr, collections: set[str], builtin: Callable[[ast.expr], str | None]) -> bool:
    """The iterator a comprehension is handed steps a list, dict or set: a local bound to one, one
    built in place, a dict's `keys()`/`values()`/`items()`, or `enumerate`/`zip` over one (their
    iterators step its)."""
    if isinstance(node, ast.Name):
        return node.id in collections
    if not isinstance(node, ast.Call):
        return builds_collection(node, False, builtin)
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in _DICT_VIEWS and not node.args and not node.keywords:
        owner = func.value
        return owner.id in collections if isinstance(owner, ast.Name) else builds_collection(owner, True, builtin)
    if isinstance(func, ast.Name) and (name := builtin(func)) in ("enumerate", "zip"):
        return any(iterates_collection(arg, collections, builtin)
                   for arg in node.args[: 1 if name == "enumerate" else None])
    return builds_collection(node, False, builtin)


def captured_kind(
    node: Comprehension, env: dict[str, Kind], resolve: Callable[[ast.expr], str | None], self_name: str | None = None,
) -> Kind:
    """What the comprehension's frame holds from the enclosing function: the kinds of the names
    it reads from there (the first iterable is evaluated outside and handed in as an iterator),
    or a tensor when it reads the `torch` module (Dynamo then compiles any frame). The method's
    `self` is its parameter: the solver asks whether its class is an nn.Module (_reads_module_self)."""
    bound = {
        target.id
        for generator in node.generators
        for target in ast.walk(generator.target)
        if isinstance(target, ast.Name)
    }
    parts: list[ast.AST] = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
    for index, generator in enumerate(node.generators):
        parts.extend(generator.ifs)
        if index:
            parts.append(generator.iter)
    kind = NOT_TENSOR
    for part in parts:
        for child in ast.walk(part):
            if isinstance(child, ast.Attribute) and isinstance(child.value, ast.Name):
                module = resolve(child.value)
                if child.value.id not in env and module is not None and (module == "torch" or module.startswith("torch.")):
                    return TENSOR  # `torch.cat(...)`, `F.pad(...)`: a global torch module
            if isinstance(child, ast.Name) and child.id not in bound and child.id in env:
                kind = kind | env[child.id].without_flags()
            elif isinstance(child, ast.Name) and child.id == self_name and child.id not in bound:
                kind = kind | Kind.of_param(child.id)
    return kind


class _Condition:
    """What makes Dynamo skip the frame, as seen from one comprehension: call sites whose callee
    may break, and the kinds of drafts that break when they hold."""

    __slots__ = ("kind", "sites")

    def __init__(self, sites: list[int], kind: Kind) -> None:
        self.sites = dict.fromkeys(sites)
        self.kind = kind

    def add(self, sites: list[int], kind: Kind) -> None:
        self.sites.update(dict.fromkeys(sites))
        self.kind = self.kind | kind


class _OpenTry:
    """A `try` body being walked: where its call sites start, the kinds of its drafts, the
    comprehensions in it, and the findings at its `try` line (GM661)."""

    __slots__ = ("_armed", "_lazy", "body", "drafts", "frame_wide", "inside", "kind", "start", "unconditional")

    def __init__(self, start: int, frame_wide: bool, body: list[ast.stmt]) -> None:
        self.start = start
        self.frame_wide = frame_wide
        self.body = body
        # the rows of the body that run whenever it does, as a set: asked at every call site in it
        self.unconditional = frozenset(row for first, last in unconditional_rows(body) for row in range(first, last + 1))
        self._armed: frozenset[int] | None = None
        self._lazy: frozenset[int] = frozenset()
        self.kind: Kind = NOT_TENSOR
        self.inside: list[_Condition] = []
        self.drafts: list[tuple[Draft, tuple[int, ...]]] = []

    def armed(self) -> frozenset[int]:
        """The ids of the nodes in the arms of the body's conditional expressions and in the
        operands of `and`/`or` after the first: run on some calls only; and those of `lazy`.
        Walked on first asking."""
        if self._armed is None:
            arms: list[ast.AST] = []
            consumed: set[int] = set()
            generators: list[ast.GeneratorExp] = []
            named: dict[str, list[ast.GeneratorExp]] = {}  # `g = (...)`: consumed if the body reads `g`
            loaded: set[str] = set()
            for statement in self.body:
                for node in every_node(statement):  # ast.walk's order; no context or operator is looked for
                    if isinstance(node, ast.IfExp):
                        arms += (node.body, node.orelse)
                    elif isinstance(node, ast.BoolOp):
                        arms += node.values[1:]
                    elif isinstance(node, ast.GeneratorExp):
                        generators.append(node)
                    elif isinstance(node, ast.Call):
                        consumed.update(id(arg.value if isinstance(arg, ast.Starred) else arg) for arg in node.args)
                        consumed.update(id(keyword.value) for keyword in node.keywords)
                    elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                        loaded.add(node.id)
                    elif isinstance(node, ast.Return) and node.value is not None:
                        consumed.add(id(node.value))  # returned from the frame: Dynamo breaks there (measured)
                    elif (isinstance(node, ast.Assign) and isinstance(node.value, ast.GeneratorExp)
                          and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
                        named.setdefault(node.targets[0].id, []).append(node.value)
            consumed.update(id(generator) for name in loaded & named.keys() for generator in named[name])
            self._lazy = frozenset(id(inner) for generator in generators if id(generator) not in consumed
                                   for part in _lazy_parts(generator) for inner in ast.walk(part))
            self._armed = frozenset(id(inner) for arm in arms for inner in ast.walk(arm)) | self._lazy
        return self._armed

    def lazy(self, node: ast.AST) -> bool:
        """Whether `node` is in a generator expression of the body that no call consumes where it
        is built (`g = (f(y) for y in ys)`): its body runs when something iterates it, not here
        (measured on torch 2.13: a print there breaks neither the `try` nor its rest)."""
        self.armed()
        return id(node) in self._lazy


class FrameSkips:
    """Breaks that make Dynamo skip a function's frame, and the comprehensions they reach, recorded
    in the one traversal. Measured: a break in a loop body skips the whole frame, so every
    comprehension of the function runs as its own frame; a break in a `try` body compiles up to
    the last point it could resume at (before the `try`), so the comprehensions in that `try`
    body and after it do; with no such point yet (fewer than two operations in the graph), the
    whole frame is skipped, as for a loop. The same record says when a `try` statement's body
    breaks (GM661: Dynamo breaks at the `try` line, the point it resumes at)."""

    def __init__(self, comprehensions_are_frames: bool | None = None) -> None:
        # 3.12 runs comprehensions in the frame that holds them: no GM611, but the `try` lines stand
        self._comprehensions_are_frames = (COMPREHENSIONS_ARE_FRAMES if comprehensions_are_frames is None
                                           else comprehensions_are_frames)
        self.sites: list[int] = []  # in try or loop bodies so far
        self.kind: Kind = NOT_TENSOR
        self._frame_sites: list[int] = []  # in loop bodies, and try bodies with no point to resume at
        self._frame_kind: Kind = NOT_TENSOR
        self._tries: list[_OpenTry] = []  # open try bodies
        self._found: list[tuple[_Condition, Draft, tuple[int, ...]]] = []
        # the call sites whose results the next comprehension steps (collection_returns.called_collection_sites)
        self.needs: tuple[int, ...] = ()
        self._try_lines: list[tuple[_Condition, tuple[int, ...], Draft]] = []
        # property reads so far (getter call sites), with their modes and their line and column (read)
        self._reads: list[tuple[int, tuple[str, ...], str, int]] = []
        # reads in a comprehension's or generator's own frame (3.11): Dynamo resumes after its CALL (GM657)
        self.nested_depth = 0
        self.nested_reads: set[int] = set()
        # (first row, column, end row, end column) of each read's expression, by call site (breaking_reads)
        self.read_spans: dict[int, tuple[int, int, int, int]] = {}

    def enter_try(self, frame_wide: bool = False, body: list[ast.stmt] | None = None) -> None:
        self._tries.append(_OpenTry(len(self.sites), frame_wide, body or []))

    def ends_frame(self, node: ast.AST) -> bool:
        """Whether a break at `node` in the open `try` bodies makes the rest of the frame eager
        whenever they run: at a row of each body that runs whenever it does, and not in an arm of
        a conditional expression or after the first operand of `and`/`or` there. One in an `if`
        arm (`if verbose: logger.debug(...)`, `x = log(x) if verbose else x`, also an `if` holding
        an inner `try`) only on the calls that take it, and the calls that do not trace on past the
        `try` (tests/test_try_body_rest.py)."""
        row = node.lineno  # type: ignore[attr-defined]
        return bool(self._tries) and all(
            row in opened.unconditional and id(node) not in opened.armed()
            for opened in self._tries)

    def try_statement(self, draft: Draft, earlier: tuple[int, ...]) -> None:
        """A finding at the `try` just entered, standing when its body breaks and none of the
        `earlier` call sites (since the point Dynamo would resume at) does."""
        self._tries[-1].drafts.append((draft, earlier))

    def exit_try(self) -> None:
        closed = self._tries.pop()
        sites = self.sites[closed.start:]
        for condition in closed.inside:  # the breaks later in the same try body reach back to it
            condition.add(sites, self.kind)
        self._try_lines.extend((_Condition(sites, closed.kind), earlier, draft) for draft, earlier in closed.drafts)
        if closed.frame_wide:
            self._frame_sites.extend(sites)
            self._frame_kind = self._frame_kind | closed.kind
        if self._tries:
            self._tries[-1].inside.extend(closed.inside)

    def _lazy(self, node: ast.AST | None) -> bool:
        """A node of a generator expression the innermost open `try` body builds and does not consume."""
        return node is not None and bool(self._tries) and self._tries[-1].lazy(node)

    def site(self, index: int, in_loop: bool, node: ast.AST | None = None) -> None:
        if self._lazy(node):
            return
        self.sites.append(index)
        if in_loop:
            self._frame_sites.append(index)

    def read(self, index: int, node: ast.expr | None = None, lines: Sequence[str] = (), modes: Iterable[str] = ()) -> None:
        """A property read, or an operator's or `for`'s or `in`'s dunder: a break in it is on an
        attribute load, a BINARY_OP, a GET_ITER or a CONTAINS_OP, instructions Dynamo cannot
        resume after, so the rest of the frame runs eagerly wherever the site is. Not one in an arm
        of a conditional expression or after the first operand of `and`/`or` (`s = self.scale if
        self.verbose else 2`): on the calls that skip it the comprehensions after are traced (measured,
        tests/test_frame_skipping_reads.py), as eager_entries has the rest. `modes`: the arms' around it."""
        one_line = node is not None and node.lineno == node.end_lineno and node.lineno <= len(lines)
        line, column = (lines[node.lineno - 1], node.col_offset) if one_line and node is not None else ("", 0)
        self._reads.append((index, tuple(modes), line, column))  # arms judged when a comprehension asks (rarely)
        if node is not None and node.end_lineno is not None and node.end_col_offset is not None:
            self.read_spans[index] = (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)
        if self.nested_depth:
            self.nested_reads.add(index)

    def read_since(self, site: int) -> bool:
        """Whether a read was recorded at call site `site` or later: asked after each statement (GM657)."""
        return bool(self._reads) and self._reads[-1][0] >= site

    def _usual_reads(self) -> list[tuple[int, tuple[str, ...]]]:
        return [(index, modes) for index, modes, line, column in self._reads if not (line and in_an_arm(line, column))]

    def draft(self, kind: Kind, in_loop: bool, rare: bool = False, node: ast.AST | None = None) -> None:
        if self._lazy(node):
            return
        self.kind = self.kind | kind
        if not rare:  # a break on an error or misconfiguration branch leaves the usual calls traced
            for open_try in self._tries:
                open_try.kind = open_try.kind | kind
        if in_loop:
            self._frame_kind = self._frame_kind | kind

    def comprehension(self, draft: Draft) -> None:
        if not self._comprehensions_are_frames:
            return
        reads = self._usual_reads()
        condition = _Condition([*self.sites, *(index for index, _ in reads)], self.kind)
        if reads and not self.sites and not self.kind:  # only reads may skip the frame so far
            draft = _in_read_modes(draft, {modes for _, modes in reads})
        if self._tries:
            self._tries[-1].inside.append(condition)
        self._found.append((condition, draft, self.needs))

    def finish(self) -> list[tuple[tuple[int, ...], Kind, Draft, tuple[int, ...]]]:
        """(call sites, kind, draft, iterable's call sites) per comprehension, with the
        frame-skipping breaks of the whole function."""
        for condition, _, _ in self._found:
            condition.add(self._frame_sites, self._frame_kind)
        return [(tuple(condition.sites), condition.kind, draft, needs) for condition, draft, needs in self._found
                if condition.sites or condition.kind]

    def try_lines(self) -> list[tuple[tuple[int, ...], Kind, tuple[int, ...], Draft]]:
        """(call sites, kind, earlier call sites, draft) per `try` line, with its body's breaks."""
        return [(tuple(condition.sites), condition.kind, earlier, draft) for condition, earlier, draft in self._try_lines
                if condition.sites or condition.kind]


def comprehension_findings(
    program: Program, targets: dict[tuple[FunctionId, int], list[FunctionId]],
    breaking: Callable[[], BreakingFunctions], holds: Callable[[FunctionId, Kind], bool],
    breaking_reads: Container[tuple[FunctionId, int]] = frozenset(),
) -> list[TracedDraft]:
    """The comprehension drafts that capture a tensor in a frame a break before them skipped:
    a draft of the function in a `try`/loop body, a call there whose callee breaks, or a property
    read before them whose getter breaks (`breaking_reads`: the cached_property reads that do)."""
    from graphmend_bot.analysis.scope import TracedDraft

    pending = program.traced_holding(lambda f: f.skipped_frame_drafts)
    if not pending:
        return []
    broken = breaking()
    found: list[TracedDraft] = []
    for fid in pending:
        function = program.function(fid)
        for sites, skip_kind, draft, needs in function.skipped_frame_drafts:
            if not (holds(fid, draft.deps) or _reads_module_self(program, fid, draft.deps)) or holds(fid, draft.suppressed_if):
                continue
            if needs and not return_collections(program, fid, needs, targets):
                continue
            if (holds(fid, skip_kind) or any((fid, site) in breaking_reads for site in sites)
                    or breaks_at(fid, sites, targets, broken)):
                found.append(TracedDraft(program.modules[fid[0]], function, draft))
    return found


def _reads_module_self(program: Program, fid: FunctionId, deps: Kind) -> bool:
    """The comprehension reads `self` of a method of an nn.Module class: Dynamo compiles a frame that
    holds a module as one holding a tensor (`has_tensor_in_frame`; tests/test_collection_returns.py)."""
    function = program.function(fid)
    if function.class_qualname is None or not function.params or function.params[0] not in deps.params:
        return False
    if any(decorator.rpartition(".")[2] in ("staticmethod", "classmethod") for decorator in function.decorators):
        return False
    return program.is_module_class(fid[0], function.class_qualname)


def breaking_try_bodies(
    program: Program, targets: dict[tuple[FunctionId, int], list[FunctionId]],
    usually_breaking: Callable[[], BreakingFunctions], holds: Callable[[FunctionId, Kind], bool],
) -> list[TracedDraft]:
    """The `try` lines whose body breaks on the usual path (GM661): a draft there, or a call there
    whose callee breaks other than on an error branch, while nothing broke since the point Dynamo
    would resume at (a draft there is the draft's `suppressed_if`, a call there is `earlier`)."""
    from graphmend_bot.analysis.scope import TracedDraft

    pending = program.traced_holding(lambda f: f.try_body_drafts)
    if not pending:
        return []
    broken = usually_breaking()
    found: list[TracedDraft] = []
    for fid in pending:
        function = program.function(fid)
        for sites, body_kind, earlier, draft in function.try_body_drafts:
            if not holds(fid, draft.deps) or holds(fid, draft.suppressed_if) or breaks_at(fid, earlier, targets, broken):
                continue
            if holds(fid, body_kind) or breaks_at(fid, sites, targets, broken):
                found.append(TracedDraft(program.modules[fid[0]], function, draft))
    return found


def _in_read_modes(draft: Draft, read_modes: set[tuple[str, ...]]) -> Draft:
    """The comprehension's draft naming the modes every read before it is in (`if self.verbose: s = self.scale`):
    only then does a read's break skip the frame, as the read's own finding says (modes.py)."""
    if len(read_modes) != 1 or not (modes := next(iter(read_modes))):
        return draft
    own = modes_named(draft.message)
    added = [mode for mode in modes if mode not in own]
    if not added:
        return draft
    bare = draft.message[: draft.message.rfind(" (")] if own else draft.message
    return replace(draft, message=named(bare, [*own, *added]))


def _lazy_parts(generator: ast.GeneratorExp) -> Iterator[ast.AST]:
    """What a generator expression runs when iterated: all but its first iterable, evaluated where built."""
    yield generator.elt
    for index, comprehension in enumerate(generator.generators):
        yield comprehension.target
        yield from comprehension.ifs
        if index:
            yield comprehension.iter


def breaks_at(fid: FunctionId, sites: Iterable[int], targets: dict[tuple[FunctionId, int], list[FunctionId]],
              breaking: Container[FunctionId]) -> bool:
    """Whether one of the call sites of `fid` runs a function that breaks."""
    return any(callee in breaking for site in sites for callee in targets.get((fid, site), ()))


def unconditional_rows(body: list[ast.stmt]) -> list[tuple[int, int]]:
    """(first, last) row ranges of `body` that run whenever it does: its simple statements, the
    headers of its compound ones (an `if` test, a loop's iterable), and the bodies of its `with`
    and `try` statements, not the arms, loop bodies and handlers."""
    rows: list[tuple[int, int]] = []
    for statement in body:
        if isinstance(statement, ast.Match):  # its subject; the cases are arms
            rows.append((statement.lineno, statement.subject.end_lineno or statement.lineno))
            continue
        inner = getattr(statement, "body", None)
        if not isinstance(inner, list) or not inner or isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                              ast.ClassDef)):
            rows.append((statement.lineno, statement.end_lineno or statement.lineno))
            continue
        rows.append((statement.lineno, inner[0].lineno - 1))  # the header
        if isinstance(statement, (ast.With, ast.AsyncWith, ast.Try)) or type(statement).__name__ == "TryStar":
            rows += unconditional_rows(inner)
    return rows
