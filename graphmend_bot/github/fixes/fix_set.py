"""Which rewrites the bot commits: one function for the fix pull request and for the approval.

`fixes: safe` commits every safe fix. `fixes: verified` adds the unsafe ones, whose assumptions
the verify workflow checks; and when the configuration names verify entry points, every fix is
limited to the functions statically reachable from those entry points' factories, because an
approval needs every rewritten line executed by an entry point. The fixes outside that reach stay
review suggestions. The approval recomputes this set from the base with the same function; any
difference and it refuses the pull request.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from graphmend_bot.config import Config, ConfigError
from graphmend_bot.verify.settings import parse_verify_config

if TYPE_CHECKING:
    from graphmend_bot.rewrite import FileChange

FIX_SETS = ("safe", "verified")


@dataclass(frozen=True)
class FixSet:
    changes: list[FileChange]
    unsafe: bool  # the changes include unsafe fixes
    reachable: frozenset[str] | None  # `module.qualname` the fixes are limited to; None: everywhere
    note: str  # why the set is what it is, for the log ("" when it is the plain one)

    def includes(self, symbol: str) -> bool:
        return self.reachable is None or symbol in self.reachable


def verify_roots(config: Config) -> tuple[list[str], str]:
    """The factories of the configured verify entry points ([] when none), or ([], why not)."""
    try:
        verify = parse_verify_config(config.verify, config.source or "<config>")
    except ConfigError as error:
        return [], f"the verify configuration cannot be used ({error}): safe fixes only"
    return sorted({entry.factory for entry in verify.entry_points}), ""


def bot_fix_set(paths: Iterable[str], config: Config, fixes: str) -> FixSet:
    """The rewrites the bot commits for `fixes` (`safe` or `verified`) on `paths`."""
    if fixes not in FIX_SETS:
        raise ValueError(f"unknown fix set {fixes!r}")
    from graphmend_bot.rewrite import fix_outcome  # libcst loads only when something is fixed

    roots, problem = verify_roots(config) if fixes == "verified" else ([], "")
    if problem or fixes == "safe":
        outcome = fix_outcome(paths, config, unsafe=False, with_remaining=False)
        return FixSet(outcome.changes, False, None, problem)
    if not roots:
        outcome = fix_outcome(paths, config, unsafe=True, with_remaining=False)
        return FixSet(outcome.changes, True, None, "")
    outcome = fix_outcome(paths, config, unsafe=True, with_remaining=False, reach=roots)
    reachable = frozenset(outcome.reachable or ())
    note = (f"fixes limited to the {len(reachable)} function(s) reachable from the verify entry points "
            f"({', '.join(roots)}); the others stay review suggestions")
    if not reachable:
        note = (f"no function is reachable from the verify entry points ({', '.join(roots)}): the fix pull "
                "request carries no fix; check their `module:callable` names")
    return FixSet(outcome.changes, True, reachable, note)
