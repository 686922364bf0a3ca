"""`with ctx:` on a parameter, or `with self.NAME:`, in a function Dynamo compiles as a frame of
its own, where the manager is an input it cannot enter (GM612, GB0142).

Measured on torch 2.13 (tests/test_own_frame_managers.py): Dynamo enters a context-manager class of
the tree only when it built the object in the graph (a GenericContextWrappingVariable); one that
is an input of the frame it compiles, a parameter or an attribute of one, it refuses ("Dynamo does
not know how to enter a `Messenger` context manager"). Inlined into a caller that built the manager,
`helper(CM(), x)` enters it; but when the function breaks anywhere (in the `with` body, before or
after it, in a callee), the caller's call breaks instead and Dynamo runs the function as a frame of
its own, from its first line: its `with ctx:` then gets an input and breaks, beside the break
inside. So for `with self.NAME:` in a breaking method of an object built in traced code
(`Holder().run(x)`, `Holder()(x)`), whose manager `__init__` built. Not when something before the
`with` breaks where Dynamo cannot resume (a loop: it skips the frame; judged here as any break
before the `with`, erring towards silence), nor in a frame Dynamo skips (nothing tensor-related:
eager_entries.skipped_when_entered), nor for `contextlib.nullcontext()` and the managers Dynamo
enters whatever built them. An entry point's parameter is an input whether or not it breaks.

The same holds within one frame: a manager of the tree built in it (`cm = Section()`), then a
top-level break, then `with cm:`: Dynamo resumes after the break in a new frame whose input `cm` is
(GB0142, and what follows runs eagerly). Not for a `@contextlib.contextmanager` generator or
`torch.no_grad()` built so (Dynamo rebuilds those), nor when `cm` is built again after the break.

The manager a parameter holds is known by its annotation (`context: "Messenger"`, pyro's
`_context_wrap`): a class of the tree with `__enter__` (no nn.Module). A held `self.NAME` is judged
as held_contexts.py judges it, and reported here only where that pass let it go because the object
holding it is built in traced code.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Collection, Container
from dataclasses import replace
from typing import TYPE_CHECKING

from graphmend_bot.analysis.eager_entries import skipped_when_entered
from graphmend_bot.analysis.held_contexts import (
    RULE,
    builders,
    holder_built_in_traced_code,
    rebuilt_by_callee,
    refused_when_held,
)
from graphmend_bot.analysis.held_module_reads import function_definition, parsed_once
from graphmend_bot.analysis.skipped_frames import breaks_at
from graphmend_bot.analysis.untraced_callers import called_name
from graphmend_bot.vocabulary.dotted_names import dotted_name
from graphmend_bot.vocabulary.kind import Kind

if TYPE_CHECKING:
    from graphmend_bot.analysis.function_reporting import FindingReporter
    from graphmend_bot.analysis.model import Draft
    from graphmend_bot.analysis.scope import FunctionId, Program, TracedDraft
    from graphmend_bot.rules import Rule

Targets = dict[tuple["FunctionId", int], list["FunctionId"]]
_TYPED = "typed:"
_ARG = "arg:"
_LOCAL = "local:"
LOCAL_MESSAGE = (
    "Dynamo cannot enter this `{name}` here: it was built before a graph break in this function, so in the frame "
    "Dynamo resumes in after the break it is an input built outside the graph"
)
MESSAGE = (
    "Dynamo cannot enter `{name}`: the context manager this function is handed is an input of the frame "
    "Dynamo compiles (this function breaks and runs as a frame of its own, or the manager was built outside "
    "the graph), and Dynamo enters no manager of the tree it did not build in the graph"
)


def received(analyzer: FindingReporter, node: ast.expr) -> str | None:
    """For `with param:` on a parameter not bound again: "typed:Class" when it is annotated with a
    class, else "arg:NAME" (judged by what the calls pass). For `with cm:` on a local built by a
    call (`cm = Section()`) before a top-level break since: "local:" and what built it."""
    if not isinstance(node, ast.Name):
        return None
    if node.id in analyzer.summary.params and node.id not in analyzer._rebound:
        typed = analyzer.instances.get(node.id)
        return typed if typed is not None and typed.startswith(_TYPED) else f"{_ARG}{node.id}"
    built = analyzer.instances.get(node.id)
    if built is not None and built.startswith(("name:", "dotted:")) and analyzer.resumed_input(node):
        return f"{_LOCAL}{built.partition(':')[2]}"
    return None


def record(analyzer: FindingReporter, rule: Rule, held: str | None, draft: Draft, node: ast.expr) -> None:
    """Keep the `with` for the scope solver, with what broke before it in the function: the drafts
    off error branches so far (the draft's `suppressed_if`) and the call sites so far."""
    if held is None or rule.code != RULE.code or not held.startswith(("self.", _TYPED, _ARG, _LOCAL)):
        return
    if held.startswith(_LOCAL):  # it stands when a break since its binding holds: Dynamo resumes after it
        kept = replace(draft, deps=analyzer.resumed_input(node), message=LOCAL_MESSAGE.format(name=held[len(_LOCAL):]))
        analyzer.summary.own_frame_context_drafts.append((held, len(analyzer.summary.calls), kept))
        return
    before = Kind.union(analyzer._usual_draft_kinds)
    name = draft.source_line[draft.column - 1 : draft.end_column - 1] if draft.row == draft.end_row else held
    message = MESSAGE.format(name=name)
    analyzer.summary.own_frame_context_drafts.append(
        (held, len(analyzer.summary.calls), replace(draft, suppressed_if=before, message=message))
    )


def own_frame_entries(
    program: Program, pending: Collection[FunctionId], targets: Targets,
    usually_breaking: Container[FunctionId], holds: Callable[[FunctionId, Kind], bool],
) -> list[TracedDraft]:
    """The drafts of `with` statements entering, in a frame Dynamo compiles on its own, a manager
    it refuses as an input: a function that breaks on the usual path (nothing breaking before the
    `with`, and the frame not one Dynamo skips), or an entry point for a parameter."""
    from graphmend_bot.analysis.scope import TracedDraft

    found: list[TracedDraft] = []
    traced = program.traced_functions()
    entries = program.entry_points()
    passed = _Passed(program, traced, targets)
    for fid in pending:
        function = program.function(fid)
        if function.disabled:
            continue
        for held, sites_before, draft in function.own_frame_context_drafts:
            input_anyway = held.startswith(_TYPED) and fid in entries
            if held.startswith(_LOCAL):
                if _tree_manager(program, fid[0], held[len(_LOCAL):]) and holds(fid, draft.deps):
                    found.append(TracedDraft(program.modules[fid[0]], function, draft))
                continue
            if held.startswith(_ARG):
                what = passed.manager(fid, held[len(_ARG):])
                if what is None:
                    continue
                input_anyway = what == _HELD  # a held manager passed on: an input wherever it is entered
            elif not _refused(program, traced, fid, held, draft):
                continue
            if not input_anyway and (
                fid not in usually_breaking
                or skipped_when_entered(program, fid)
                or holds(fid, draft.suppressed_if)
                or breaks_at(fid, range(sites_before), targets, usually_breaking)
            ):
                continue
            found.append(TracedDraft(program.modules[fid[0]], function, draft))
    return found


def _tree_manager(program: Program, module: str, name: str) -> bool:
    """A context-manager class of the tree (with `__enter__`), no nn.Module. Not a generator
    manager nor `torch.no_grad()`: built before a break, Dynamo rebuilds those and enters them."""
    cls = program.resolve_class(module, name)
    return cls is not None and program.class_method(*cls, "__enter__") is not None and not program.is_module_class(*cls)


def _refused(program: Program, traced: Collection[FunctionId], fid: FunctionId, held: str, draft: Draft) -> bool:
    """The manager is one Dynamo refuses as an input, and held_contexts.py did not report it."""
    if held.startswith(_TYPED):
        classes = program._classes_built_by(fid[0], held)
        return bool(classes) and all(
            program.class_method(*cls, "__enter__") is not None and not program.is_module_class(*cls) for cls in classes
        )
    function = program.function(fid)
    name = held[len("self."):]
    if (
        any(written == name for written, _ in function.attribute_writes)
        or not holder_built_in_traced_code(program, fid)
        or rebuilt_by_callee(program, traced, fid, name, draft.row)
    ):
        return False  # built again in the frame (entered), or held_contexts.py's finding
    built = builders(program, fid[0], function.class_qualname, held)
    return bool(built) and all(refused_when_held(program, fid[0], constructor, draft.code) for constructor in built)


_NEW, _HELD = "new", "held"


class _Passed:
    """What the traced calls of a function pass for one of its parameters, read from their source
    (only for the few functions entering an unannotated parameter): _NEW when every one builds
    there a manager Dynamo refuses as an input (`helper(CM(), x)`, `helper(torch.no_grad(), x)`),
    _HELD when one passes such a manager held from outside the compiled region (`helper(self.cm,
    x)`, judged as held_contexts.py judges `with self.cm:`), else None."""

    def __init__(self, program: Program, traced: Collection[FunctionId], targets: Targets) -> None:
        self._program = program
        self._traced = traced
        self._targets = targets
        self._callers: dict[FunctionId, list[tuple[FunctionId, int]]] | None = None
        self._parsed: dict[str, ast.Module | None] = {}

    def manager(self, fid: FunctionId, param: str) -> str | None:
        params = self._program.function(fid).params
        found: set[str | None] = set()
        for caller, index in self._calls_of(fid):
            site = self._program.function(caller).calls[index]
            call = self._call_at(caller, site.row, called_name(site.ref))
            if call is None:
                return None
            offset = 1 if site.bound else 0
            value = next((k.value for k in call.keywords if k.arg == param), None)
            if value is None and param in params[offset:]:
                place = params.index(param) - offset
                if any(isinstance(arg, ast.Starred) for arg in call.args[: place + 1]):
                    return None
                value = call.args[place] if place < len(call.args) else None
            found.add(self._built(caller, value) if value is not None else None)
        if not found or None in found:
            return None
        return _HELD if _HELD in found else _NEW

    def _calls_of(self, fid: FunctionId) -> list[tuple[FunctionId, int]]:
        if self._callers is None:
            self._callers = {}
            for (caller, index), callees in self._targets.items():
                if caller in self._traced:
                    for callee in callees:
                        self._callers.setdefault(callee, []).append((caller, index))
        return self._callers.get(fid, [])

    def _call_at(self, fid: FunctionId, row: int, name: str) -> ast.Call | None:
        module = self._program.modules[fid[0]]
        definition = function_definition(parsed_once(module.path, self._program.source_of, self._parsed), fid[1])
        calls = [
            node for node in ast.walk(definition) if isinstance(node, ast.Call) and node.lineno == row
            and (node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")) == name
        ] if definition is not None else []
        return calls[0] if len(calls) == 1 else None

    def _built(self, caller: FunctionId, value: ast.expr) -> str | None:
        program = self._program
        if isinstance(value, ast.Call) and (name := dotted_name(value.func)) is not None:
            head, _, rest = name.partition(".")
            origin = program.modules[caller[0]].imports.get(head)
            qualified = f"{origin}.{rest}" if origin and rest else origin or name
            refused = RULE.detection.held_context is not None and RULE.detection.held_context(qualified)
            return _NEW if refused or refused_when_held(program, caller[0], name, RULE.code) else None
        function = program.function(caller)
        if (
            isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name)
            and function.params[:1] == (value.value.id,) and function.class_qualname is not None
            and not any(written == value.attr for written, _ in function.attribute_writes)
            and not holder_built_in_traced_code(program, caller)
        ):
            built = builders(program, caller[0], function.class_qualname, f"self.{value.attr}")
            if built and all(refused_when_held(program, caller[0], constructor, RULE.code) for constructor in built):
                return _HELD
        return None
