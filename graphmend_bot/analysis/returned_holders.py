"""Objects Dynamo cannot rebuild, returned by a frame it compiles on its own (GM629).

Measured on torch 2.13 (tests/coverage_probes/gb0092_returned_unrebuildable_object.py; torchio's
`DataParser.get_subject`, `_parse_tensor` and `_get_subject_from_tensor`): an object built in
traced code whose `__init__` stored a function it got as a parameter's default (`self.reader =
reader` for `reader=read_image`; held_objects.py has the same premise) holds a value with no
source, and Dynamo cannot rebuild it as the frame's return value ("Reconstruction failure ...
sourceless variable UserFunctionVariable"): it breaks at the `return` line and runs the frame
eagerly, so the functions it calls are frames of their own, each breaking the same way when it
returns such an object built in it. The object may come back through helpers (`return
self.wrap(t)`), inside a class built around it (`Subject({name: image})`), a tuple or a dict.
Inlined into its caller, the same `return` traces: only a frame Dynamo compiles on its own breaks,
here the callees of a frame running eagerly (a call Dynamo cannot resume at, GM605 and GM609, or a
break while a held object is alive). A frame whose graph holds no operation is skipped silently
(measured: no break reported); not judged here.
"""

from __future__ import annotations

import ast
from collections import deque
from typing import TYPE_CHECKING

from graphmend_bot.analysis.disabled_calls import source_lines
from graphmend_bot.analysis.eager_entries import skipped_when_entered
from graphmend_bot.analysis.held_module_reads import function_definition, parsed_once
from graphmend_bot.analysis.held_objects import holds_unrebuildable
from graphmend_bot.analysis.model import CallSite, Draft
from graphmend_bot.analysis.untraced_callers import called_name
from graphmend_bot.rules import RULES
from graphmend_bot.vocabulary.dotted_names import dotted_name
from graphmend_bot.vocabulary.kind import TENSOR

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import FunctionId, Program, TracedDraft

RULE = next(rule for rule in RULES if rule.detection.returned_unrebuildable is not None)
_MESSAGE = RULE.detection.returned_unrebuildable
_CONTAINERS = frozenset({"dict", "list", "tuple", "set", "frozenset"})  # builtins holding their arguments
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
Targets = dict[tuple["FunctionId", int], list["FunctionId"]]


def returned_holders(
    program: Program, eager_rows: dict[FunctionId, int], targets: Targets
) -> list[TracedDraft]:
    """The `return` lines, in the frames eager code enters, of objects Dynamo cannot rebuild."""
    from graphmend_bot.analysis.scope import TracedDraft

    if not eager_rows:
        return []
    returns = _Returns(program, targets)
    found: list[TracedDraft] = []
    seen: set[FunctionId] = set(eager_rows)
    queue = deque(sorted(eager_rows.items()))
    while queue:
        fid, first_row = queue.popleft()
        for index, site in enumerate(program.function(fid).calls):
            if site.row < first_row:
                continue
            for callee in targets.get((fid, index), ()):
                if callee in seen or callee[0] in program.dependency_modules:
                    continue
                seen.add(callee)
                if skipped_when_entered(program, callee):
                    # nothing tensor-related: Dynamo runs it eagerly, so its callees are frames
                    queue.append((callee, 0))
                    continue
                drafts = [_draft(program, callee, node) for node in returns.breaking(callee)]
                found.extend(
                    TracedDraft(program.modules[callee[0]], program.function(callee), d) for d in drafts
                )
                if drafts:
                    queue.append((callee, 0))  # skipped in turn: its callees are frames of their own
    return found


class _Returns:
    """Which `return` statements of a function hand back an object built in its frame (or in the
    helpers it inlines) that holds a value Dynamo cannot rebuild."""

    __slots__ = ("_builders", "_holding", "_parsed", "_passing", "_program", "_targets")

    def __init__(self, program: Program, targets: Targets) -> None:
        self._program = program
        self._targets = targets
        self._parsed: dict[str, ast.Module | None] = {}
        self._holding: dict[FunctionId, bool] = {}  # returns such an object
        self._passing: dict[FunctionId, bool] = {}  # returns a value holding one of its parameters
        self._builders = _builders(program, targets)

    def breaking(self, fid: FunctionId) -> list[ast.Return]:
        if fid not in self._builders:
            return []  # read no source it need not: an edit of a file read makes a warm run solve again
        frame = self._frame(fid)
        return [] if frame is None else [node for node in frame.returns if frame.holds(node.value, self)]

    def returns_holder(self, fid: FunctionId) -> bool:
        if fid not in self._holding:
            self._holding[fid] = False  # a cycle of calls proves nothing
            self._holding[fid] = bool(self.breaking(fid))
        return self._holding[fid]

    def returns_parameter(self, fid: FunctionId) -> bool:
        if fid not in self._passing:
            self._passing[fid] = False
            frame = self._frame(fid)
            self._passing[fid] = frame is not None and any(
                frame.passes(node.value, self) for node in frame.returns
            )
        return self._passing[fid]

    def site_targets(self, fid: FunctionId, call: ast.Call) -> list[tuple[FunctionId, int]]:
        """(callee, site index) for the call site of `fid` this call is (matched by row and name)."""
        name = _called(call.func)
        calls = self._program.function(fid).calls
        return [
            (callee, index)
            for index, site in enumerate(calls)
            if site.row == call.lineno and called_name(site.ref) == name
            for callee in self._targets.get((fid, index), ())
        ]

    def keeps_arguments(self, fid: FunctionId, call: ast.Call) -> bool:
        """A builtin container, or a class of the tree with no `__init__` of its own there (a `dict`
        subclass): the value built holds what it is given."""
        name = dotted_name(call.func)
        if name is None:
            return False
        return name in _CONTAINERS or self._program.resolve_class(fid[0], name) is not None

    def holds_unrebuildable(self, init: FunctionId, fid: FunctionId, index: int) -> bool:
        return holds_unrebuildable(self._program, init, self._program.function(fid).calls[index])

    def _frame(self, fid: FunctionId) -> _Frame | None:
        module = self._program.modules[fid[0]]
        definition = function_definition(
            parsed_once(module.path, self._program.source_of, self._parsed), fid[1]
        )
        return None if definition is None else _Frame(fid, definition)


def _builders(program: Program, targets: Targets) -> set[FunctionId]:
    """The functions that build such an object, themselves or through what they call."""
    callers: dict[FunctionId, set[FunctionId]] = {}
    found: set[FunctionId] = set()
    unpassed: dict[FunctionId, bool] = {}  # with no argument given: what any call may hold at most
    for (fid, index), callees in targets.items():
        for callee in callees:
            callers.setdefault(callee, set()).add(fid)
            if not callee[1].endswith(".__init__"):
                continue
            if callee not in unpassed:
                unpassed[callee] = holds_unrebuildable(program, callee, CallSite("", (), (), False))
            if unpassed[callee] and holds_unrebuildable(program, callee, program.function(fid).calls[index]):
                found.add(fid)
    stack = list(found)
    while stack:
        for caller in callers.get(stack.pop(), ()):
            if caller not in found:
                found.add(caller)
                stack.append(caller)
    return found


class _Frame:
    """One function's `return` statements and what its local names are bound to."""

    __slots__ = ("bindings", "fid", "params", "returns")

    def __init__(self, fid: FunctionId, definition: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.fid = fid
        arguments = definition.args
        self.params = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)} - {
            "self",
            "cls",
        }
        self.bindings: dict[str, list[ast.expr]] = {}
        self.returns: list[ast.Return] = []
        stack: list[ast.AST] = list(definition.body)
        while stack:
            node = stack.pop()
            if isinstance(node, ast.Return) and node.value is not None:
                self.returns.append(node)
            elif (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
            ):
                self.bindings.setdefault(node.targets[0].id, []).append(node.value)
            stack.extend(child for child in ast.iter_child_nodes(node) if not isinstance(child, _SCOPES))
        self.returns.sort(key=lambda node: (node.lineno, node.col_offset))

    def holds(self, node: ast.expr | None, returns: _Returns, seen: frozenset[str] = frozenset()) -> bool:
        """Whether the value may hold an object built here that Dynamo cannot rebuild."""
        if isinstance(node, ast.Call):
            for callee, index in returns.site_targets(self.fid, node):
                if callee[1].endswith(".__init__") and returns.holds_unrebuildable(callee, self.fid, index):
                    return True
                if not callee[1].endswith(".__init__") and returns.returns_holder(callee):
                    return True
                if (
                    callee[1].endswith(".__init__") or returns.returns_parameter(callee)
                ) and self._argument_holds(node, returns, seen):
                    return True  # a class built around it, a helper handing it back
            return returns.keeps_arguments(self.fid, node) and self._argument_holds(node, returns, seen)
        if isinstance(node, ast.Name) and node.id not in seen:
            return any(
                self.holds(value, returns, seen | {node.id}) for value in self.bindings.get(node.id, ())
            )
        return any(self.holds(part, returns, seen) for part in _parts(node))

    def passes(self, node: ast.expr | None, returns: _Returns, seen: frozenset[str] = frozenset()) -> bool:
        """Whether the value may hold one of the function's parameters as it came in: itself, or
        inside a class built around it, a container or what a helper handing it back returns."""
        if isinstance(node, ast.Name):
            if node.id in self.params and node.id not in self.bindings:
                return True
            return node.id not in seen and any(
                self.passes(value, returns, seen | {node.id}) for value in self.bindings.get(node.id, ())
            )
        if isinstance(node, ast.Call):
            keeps = returns.keeps_arguments(self.fid, node) or any(
                callee[1].endswith(".__init__") or returns.returns_parameter(callee)
                for callee, _ in returns.site_targets(self.fid, node)
            )
            return keeps and any(self.passes(arg, returns, seen) for arg in _arguments(node))
        return any(self.passes(part, returns, seen) for part in _parts(node))

    def _argument_holds(self, call: ast.Call, returns: _Returns, seen: frozenset[str]) -> bool:
        return any(self.holds(arg, returns, seen) for arg in _arguments(call))


def _parts(node: ast.expr | None) -> list[ast.expr]:
    """The values a display or a conditional expression may hand on whole."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [element.value if isinstance(element, ast.Starred) else element for element in node.elts]
    if isinstance(node, ast.Dict):
        return [value for value in node.values if value is not None]
    if isinstance(node, ast.IfExp):
        return [node.body, node.orelse]
    return []


def _arguments(call: ast.Call) -> list[ast.expr]:
    return [
        *(arg.value if isinstance(arg, ast.Starred) else arg for arg in call.args),
        *(keyword.value for keyword in call.keywords),
    ]


def _called(func: ast.expr) -> str:
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def _draft(program: Program, fid: FunctionId, node: ast.Return) -> Draft:
    lines = source_lines(program.source_of, program.modules[fid[0]].path)
    line = lines[node.lineno - 1] if 0 < node.lineno <= len(lines) else ""
    message = _MESSAGE(RULE) if _MESSAGE else RULE.summary
    end_row = node.end_lineno or node.lineno
    end_column = (node.end_col_offset or node.col_offset) + 1
    return Draft(
        RULE.code,
        message,
        node.lineno,
        node.col_offset + 1,
        end_row,
        end_column,
        RULE.gb_id,
        TENSOR,
        line.rstrip("\r\n"),
    )
