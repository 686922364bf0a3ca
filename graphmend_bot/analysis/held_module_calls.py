"""Calls from traced methods of modules held in `self.NAME`, judged by the class that built them
(GM613: `self.lstm(x)` on `self.lstm = nn.LSTM(...)`).

The class is known only to the scope solver: `self.NAME` may be built in a base class or, for a
base's call, in each subclass (`Program.held_constructors`). A call is reported when every
constructor found is one the rule names. Dynamo gives up on the frame at the first such call and
runs the rest eagerly, so only the first call of each function is reported. It fails as it wraps
the module, at the frame's first read of `self.NAME`: a read before the first call (the module
passed on, one of its attributes, `is None`) is reported instead (held_module_reads.py).
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from graphmend_bot.analysis.disabled_calls import source_lines
from graphmend_bot.analysis.held_module_reads import first_parameter_read, passed_to, self_attribute_reads
from graphmend_bot.analysis.model import Draft
from graphmend_bot.rules import RULES
from graphmend_bot.vocabulary.kind import TENSOR

if TYPE_CHECKING:
    from graphmend_bot.analysis.model import FunctionSummary
    from graphmend_bot.analysis.scope import FunctionId, Program, TracedDraft

# Where a function first uses a held module: (row, name read, message, column; 0: from the text).
Use = tuple[int, str, str, int]

RULE = next(rule for rule in RULES if rule.detection.held_module_call is not None)
_MESSAGE = RULE.detection.held_module_call


def held_module_calls(program: Program) -> list[TracedDraft]:
    from graphmend_bot.analysis.scope import TracedDraft

    holders = _holders(program)
    if not holders:
        return []  # no class builds a module the rule names: no `self.NAME` can hold one
    named = frozenset().union(*holders.values())
    uses: dict[FunctionId, Use] = {}
    parsed: dict[str, ast.Module | None] = {}
    holding: dict[tuple[str, str], frozenset[str]] = {}
    for fid in program.traced_in_order():
        function = program.function(fid)
        if function.class_qualname is None or fid[0] in program.dependency_modules or function.disabled:
            continue  # a disabled function runs eagerly
        first = _first_call(program, fid[0], function, named)
        cls = (fid[0], function.class_qualname)
        held = holding[cls] if cls in holding else holding.setdefault(cls, _held_names(program, cls, holders))
        if held:  # the first read of a held module breaks, whether or not it is called there
            path = program.modules[fid[0]].path
            for row, column, name in self_attribute_reads(function, path, program.source_of, parsed):
                if first is not None and (row, column) >= (first[0], 0):
                    break
                if name in held and (message := _message(program, fid[0], function.class_qualname, name)):
                    first = (row, name, message, column)
                    _callee_uses(program, fid, first, parsed, uses)
                    break
        if first is not None and (fid not in uses or first[0] <= uses[fid][0]):
            uses[fid] = first
    found: list[TracedDraft] = []
    for fid, use in sorted(uses.items()):
        module = program.modules[fid[0]]
        draft = _draft(*use, source_lines(program.source_of, module.path))
        if draft is not None:
            found.append(TracedDraft(module, program.function(fid), draft))
    return found


def _callee_uses(
    program: Program,
    fid: FunctionId,
    use: Use,
    parsed: dict[str, ast.Module | None],
    uses: dict[FunctionId, Use],
) -> None:
    """The held module read at `use` passed to a function: its first read of that parameter breaks."""
    function = program.function(fid)
    call = passed_to(function, program.modules[fid[0]].path, program.source_of, parsed, (use[0], use[3]))
    site = next((s for s in function.calls if call is not None and (s.ref, s.row) == call[:2]), None)
    if call is None or site is None:
        return
    traced = program.traced_functions()
    for target in program.resolve_call(fid, site.ref):
        callee = program.function(target)
        if target not in traced or target[0] in program.dependency_modules or callee.disabled:
            continue
        place = call[2]
        bound = site.bound and "staticmethod" not in callee.decorators  # `self.m(...)` of a static m
        index = place + bound if isinstance(place, int) else None
        parameter = callee.params[index] if index is not None and index < len(callee.params) else place
        path = program.modules[target[0]].path
        if not isinstance(parameter, str) or parameter not in callee.params:
            continue
        read = first_parameter_read(callee, path, program.source_of, parsed, parameter)
        if read is not None and (target not in uses or read[0] < uses[target][0]):
            uses[target] = (read[0], parameter, use[2], read[1])


def _first_call(
    program: Program, module: str, function: FunctionSummary, named: frozenset[str]
) -> Use | None:
    """The first call of a held module the rule names: (row, NAME, message, column 0: from the text).
    `named`: the attributes some class builds such a module in (no other NAME can be one)."""
    assert function.class_qualname is not None
    for call in sorted(function.calls, key=lambda site: site.row):
        kind, _, name = call.ref.partition(":")
        if kind == "self" and name in named and name.isidentifier():
            message = _message(program, module, function.class_qualname, name)
            if message is not None:
                return call.row, name, message, 0
    return None


def _message(program: Program, module: str, class_qualname: str, name: str) -> str | None:
    built = program.held_constructors(module, class_qualname, name)
    messages = {_MESSAGE(RULE, constructor) if _MESSAGE else None for constructor in built}
    if not built or None in messages or len(messages) != 1:
        return None
    return messages.pop()


def _holders(program: Program) -> dict[tuple[str, str], frozenset[str]]:
    """Each class of the tree that builds a module the rule names: the attributes it builds them in.
    Found once: the classes asked about share most of their bases and subclasses, and a tree
    holds few such modules (held_constructors reads what built `self.NAME` from these same attributes)."""
    holders: dict[tuple[str, str], frozenset[str]] = {}
    for mod, summary in program.modules.items():
        for qualname, cls in summary.classes.items():
            names = frozenset(
                name
                for name, constructor in cls.attributes.items()
                if _MESSAGE and _MESSAGE(RULE, constructor) is not None
            )
            if names:
                holders[(mod, qualname)] = names
    return holders


def _held_names(
    program: Program, cls: tuple[str, str], holders: dict[tuple[str, str], frozenset[str]]
) -> frozenset[str]:
    """The attributes the class, a base or a subclass builds with a constructor the rule names."""
    return frozenset().union(*(holders.get(related, ()) for related in program.hierarchy.related(cls)))


def _draft(row: int, name: str, message: str, column: int, lines: list[str]) -> Draft | None:
    line = lines[row - 1] if 0 < row <= len(lines) else ""
    if not column:  # a call site keeps only its row
        match = re.search(rf"\bself\.{re.escape(name)}\s*\(", line)
        column = match.start() + 1 if match else len(line) - len(line.lstrip()) + 1
    return Draft(
        RULE.code, message, row, column, row, len(line.rstrip()) + 1, RULE.gb_id, TENSOR, line.rstrip("\r\n")
    )
