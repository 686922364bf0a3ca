"""The mode a call on a local object breaks in, when everything breaking it reaches is in one (GM605).

Measured on torch 2.13 (tests/test_callee_modes.py; torchio's `Transform.__call__`, whose
`data_parser.get_subject()` reaches `if self.check_nans and torch.isnan(tensor).any():` in
`Image._parse_tensor`, a flag its class keeps off by default): a method called on an object built in
traced code breaks at the call ("cannot resume", GM605) only when something it runs breaks. When
every usual break it reaches is in a mode (the flag on, training, a half dtype), Dynamo inlines the
call whole in any other mode and breaks nowhere; with the mode on it breaks inside and at the call.
So the finding at the call names the mode, as the finding inside does (modes.py); the same for a
breaking call made while a held object is alive (held_objects.py, GM605's other spelling). A break
it reaches in every mode, or modes that differ between its breaks, name none; so do breaks only on
error branches (Draft.rare): the finding stays as it was.
"""

from __future__ import annotations

from collections import deque
from dataclasses import replace
from typing import TYPE_CHECKING

from graphmend_bot.analysis.modes import modes_named, named

if TYPE_CHECKING:
    from collections.abc import Iterable

    from graphmend_bot.analysis.model import Draft
    from graphmend_bot.analysis.scope import Callers, FunctionId, TracedDraft

_EVERY_MODE = ("",)  # a usual break that names no mode


class CalleeModes:
    """For one solve: the modes the breaks below a call are confined to."""

    __slots__ = ("_breaking", "_callees", "_memo", "_own")

    def __init__(self, callers: Callers, breaking: set[FunctionId], standing: Iterable[TracedDraft]) -> None:
        self._breaking = breaking
        self._callees: dict[FunctionId, set[FunctionId]] = {}
        for callee, its_callers in callers.items():
            for caller in its_callers:
                self._callees.setdefault(caller, set()).add(callee)
        # per function, the modes each of its usual (not rare) findings names, as one string each
        self._own: dict[FunctionId, set[tuple[str, ...]]] = {}
        for traced_draft in standing:
            if not traced_draft.draft.rare:
                fid = (traced_draft.module.module, traced_draft.function.qualname)
                self._own.setdefault(fid, set()).add(tuple(modes_named(traced_draft.draft.message)) or _EVERY_MODE)
        self._memo: dict[tuple[FunctionId, ...], list[str]] = {}

    def named(self, draft: Draft, callees: Iterable[FunctionId]) -> Draft:
        """The draft at a call of `callees`, its message naming the one mode their breaks need."""
        modes = self.modes(tuple(sorted(set(callees))))
        return replace(draft, message=named(draft.message, modes)) if modes else draft

    def modes(self, callees: tuple[FunctionId, ...]) -> list[str]:
        """The modes every usual break reached from `callees` names, [] unless all name the same."""
        if callees not in self._memo:
            self._memo[callees] = self._reached_modes(callees)
        return self._memo[callees]

    def _reached_modes(self, callees: tuple[FunctionId, ...]) -> list[str]:
        found: set[tuple[str, ...]] = set()
        seen = {fid for fid in callees if fid in self._breaking}
        queue = deque(seen)
        while queue:
            fid = queue.popleft()
            found |= self._own.get(fid, set())
            if _EVERY_MODE in found or len(found) > 1:
                return []
            for callee in self._callees.get(fid, ()):
                if callee not in seen and callee in self._breaking:
                    seen.add(callee)
                    queue.append(callee)
        return list(next(iter(found))) if found else []
