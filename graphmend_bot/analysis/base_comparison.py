"""What a change breaks through data flow: the head's findings its base commit lacks.

Added lines alone do not say what a change breaks: `scale(x, 3)` edited into `scale(x, x.sum())`
makes `k` a tensor in an unchanged function, whose unchanged `if k > 0:` then breaks (a
data-dependent branch). So a review solves the base too (engine.Workspace.revert: the changed
files at their base text, every other file's summary as it is) and matches findings by fingerprint,
as the census matches Dynamo's breaks (census/compare.py): a head finding the base lacks is new, a
base finding the head lacks is removed, one both have was there before, wherever its line moved
in its file. A break moved to another file is new there and removed where it was, as the census
counts it, except through a rename: a renamed file's breaks are fingerprinted under its new path
and module (`Renamed`), and a file the change deletes is in the base with its breaks.

A new finding in a file the change left alone, or on a line of a changed file the change did not
touch, is blamed on a changed call: the first call site on an added line (in file and line order),
edited or new, from which traced code reaches the finding's function. With none (the change edits
a constant, a default, what a function returns), it stays at its own line, its message naming the
files the change edited.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import NamedTuple

from graphmend_bot.analysis.added_calls import AddedCall, pointer
from graphmend_bot.analysis.model import ModuleSummary
from graphmend_bot.analysis.scope import FunctionId, Program
from graphmend_bot.findings import BaseFindings, Finding

# Call sites on added lines followed to find who to blame: each walks the call graph, and a hostile
# pull request may add many thousands; past this many, a new finding stays at its own line.
MAX_CHANGED_CALLS = 2000


class Renamed(NamedTuple):
    """A file the change renamed, as the base and the head name it and its module."""

    path: str
    old_module: str
    module: str


def base_findings(base: Sequence[Finding], head: Sequence[Finding], renamed: Mapping[str, Renamed]) -> BaseFindings:
    """The base's fingerprints, and its findings the head (every finding, before any baseline) lacks.
    `renamed` (by old path): a finding of a renamed file is fingerprinted under its new path and
    module, and one the head lacks is listed under its old ones (lines as the base has them)."""
    after = {f.fingerprint for f in head}
    under_head_names = [_renamed(f, renamed[f.path]) if f.path in renamed else f for f in base]
    return BaseFindings(frozenset(f.fingerprint for f in under_head_names),
                        [f for f, named in zip(base, under_head_names) if named.fingerprint not in after])


def _renamed(finding: Finding, to: Renamed) -> Finding:
    symbol = finding.symbol
    if symbol == to.old_module or symbol.startswith(f"{to.old_module}."):
        symbol = to.module + symbol[len(to.old_module):]
    return replace(finding, path=to.path, symbol=symbol)


def changed_call_reach(program: Program, summaries: Iterable[ModuleSummary], added: Mapping[str, Collection[int]],
                       wanted: Collection[str]) -> dict[FunctionId, AddedCall]:
    """Each function of `wanted` (`module.qualname`, as findings name it) -> the first call site on
    an added line (of a traced function) from which traced code reaches it."""
    rows = {_relative(path): set(lines) for path, lines in added.items() if lines}
    traced = program.traced_functions()
    calls = sorted(
        (summary.path, site.row, (summary.module, qualname), site.ref)
        for summary in summaries if _relative(summary.path) in rows
        for qualname, function in summary.functions.items() if (summary.module, qualname) in traced
        for site in function.calls if site.row in rows[_relative(summary.path)]
    )[:MAX_CHANGED_CALLS]
    reach: dict[FunctionId, AddedCall] = {}
    missing = set(wanted)
    for path, row, caller, ref in calls:
        if not missing:
            break
        for fid in program.reached_from_calls(program.resolve_call(caller, ref)):
            if f"{fid[0]}.{fid[1]}" in missing:
                reach[fid] = AddedCall(path, row, caller)
                missing.discard(f"{fid[0]}.{fid[1]}")
    return reach


def blamed(findings: Iterable[Finding], reach: Mapping[FunctionId, AddedCall], changed: Sequence[str],
           source_of: Callable[[str], str]) -> list[Finding]:
    """The new findings, each with a finding at the changed call that reaches it (findings.pointers:
    one break, counted at its own line); one no changed call reaches says which files changed."""
    by_symbol = {f"{module}.{qualname}": (qualname, call) for (module, qualname), call in reach.items()}
    out = []
    for finding in findings:
        if finding.symbol not in by_symbol:
            files = ", ".join(changed[:3]) + (f" and {len(changed) - 3} more" if len(changed) > 3 else "")
            out.append(replace(finding, message=f"{finding.message} (new with this change, though no changed call "
                                                f"reaches it: see the changes to {files})"))
            continue
        name, call = by_symbol[finding.symbol]
        out += [finding, pointer(finding, call, f"since this change, `{name}`, which this call reaches, breaks at "
                                                f"{finding.path}:{finding.location.row}: {finding.message}", source_of)]
    return out


def _relative(path: str) -> str:
    return os.path.relpath(os.path.abspath(path)).replace(os.sep, "/")

