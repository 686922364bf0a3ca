"""Calls from traced methods of modules held in `self.NAME`, judged by the class that built them
(GM613: `self.lstm(x)` on `self.lstm = nn.LSTM(...)`).

The class is known only to the scope solver: `self.NAME` may be built in a base class or, for a
base's call, in each subclass (`Program.held_constructors`). A call is reported when every
constructor found is one the rule names. Dynamo gives up on the frame at the first such call and
runs the rest eagerly, so only the first call of each function is reported.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from graphmend_bot.analysis.disabled_calls import source_lines
from graphmend_bot.analysis.model import Draft
from graphmend_bot.rules import RULES
from graphmend_bot.vocabulary.kind import TENSOR

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import Program, TracedDraft

RULE = next(rule for rule in RULES if rule.detection.held_module_call is not None)
_MESSAGE = RULE.detection.held_module_call


def held_module_calls(program: Program) -> list[TracedDraft]:
    from graphmend_bot.analysis.scope import TracedDraft

    found: list[TracedDraft] = []
    for fid in program.traced_in_order():
        function = program.function(fid)
        if function.class_qualname is None or fid[0] in program.dependency_modules or function.disabled:
            continue  # a disabled function runs eagerly
        for call in sorted(function.calls, key=lambda site: site.row):
            kind, _, name = call.ref.partition(":")
            if kind != "self" or not name.isidentifier():
                continue
            built = program.held_constructors(fid[0], function.class_qualname, name)
            messages = {_MESSAGE(RULE, constructor) if _MESSAGE else None for constructor in built}
            if not built or None in messages or len(messages) != 1:
                continue
            module = program.modules[fid[0]]
            draft = _draft(call.row, name, messages.pop() or "", source_lines(program.source_of, module.path))
            found.append(TracedDraft(module, function, draft))
            break  # the frame runs eagerly after it
    return found


def _draft(row: int, name: str, message: str, lines: list[str]) -> Draft:
    line = lines[row - 1] if 0 < row <= len(lines) else ""
    match = re.search(rf"\bself\.{re.escape(name)}\s*\(", line)
    column = match.start() if match else len(line) - len(line.lstrip())
    return Draft(RULE.code, message, row, column + 1, row, len(line.rstrip()) + 1, RULE.gb_id, TENSOR,
                 line.rstrip("\r\n"))
