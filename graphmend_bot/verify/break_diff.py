"""The two arms' graph breaks as a diff: removed, added, kept.

A break is matched by its file and reason, not its line: the rewrite moves lines, so the same break
sits at another line in the rewritten arm. Equal (file, reason) pairs match in order, so two
identical breaks with one removed read as one removed and one kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from graphmend_bot.verify.protocol import BreakReason


@dataclass(frozen=True)
class BreakDiff:
    removed: list[BreakReason]  # as the original arm has them
    added: list[BreakReason]  # as the rewritten arm has them
    kept: list[BreakReason]  # as the rewritten arm has them


def _key(reason: BreakReason) -> tuple[str, str]:
    return reason["location"].rpartition(":")[0] or reason["location"], reason["reason"]


def diff_breaks(original: Sequence[BreakReason], rewritten: Sequence[BreakReason]) -> BreakDiff:
    unmatched = list(rewritten)
    removed: list[BreakReason] = []
    kept: list[BreakReason] = []
    for reason in original:
        twin = next((other for other in unmatched if _key(other) == _key(reason)), None)
        if twin is None:
            removed.append(reason)
        else:
            unmatched.remove(twin)
            kept.append(twin)
    return BreakDiff(removed, unmatched, kept)
