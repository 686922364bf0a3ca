"""What a change's added calls bring into traced code: the review's breaks in unchanged files.

A pull request that makes `forward` call an old helper leaves the helper's file alone, yet the
helper's breaks are now the pull request's doing. The program is solved again without the call
sites on the lines the change added, save those to a name a removed line right beside them calls
(`y = norm(y)` edited to `y = norm(y * 1)`: not a new call; diff.replaced_calls), and without the
calls an added import redirects (rebound_names.py); a function traced now and not then came in
through one of those calls, and its findings are reported at that call (the first one, in file
and line order), naming the break's own file, line and reason: those in unchanged files, and
those on lines the change did not add in the files it changed (where they would read as
pre-existing). Only call sites carry a line: a function added as a reference (passed along, a
decorator) is not told apart, and counts as reached before.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, replace

from graphmend_bot.analysis.model import ModuleSummary
from graphmend_bot.analysis.rebound_names import Redirects, call_root
from graphmend_bot.analysis.scope import FunctionId, Program
from graphmend_bot.findings import Finding, Location
from graphmend_bot.source_lines import physical_lines


@dataclass(frozen=True)
class AddedCall:
    path: str  # the changed file, as the findings name files
    row: int  # an added line: the call, or the import that redirects it (analysis/rebound_names.py)
    caller: FunctionId
    call_row: int = 0  # the redirected call's own line, when `row` is its import's


def _relative(path: str) -> str:
    return os.path.relpath(os.path.abspath(path)).replace(os.sep, "/")


def on_added_line(finding: Finding, added: Mapping[str, Collection[int]]) -> bool:
    return on_added_row(finding.path, finding.location.row, added)


def on_added_row(path: str, row: int, added: Mapping[str, Collection[int]]) -> bool:
    return any(row in rows for name, rows in added.items() if _relative(name) == _relative(path))


def added_call_reach(program: Program, summaries: Iterable[ModuleSummary],
                     solve: Callable[[list[ModuleSummary]], Program],
                     added: Mapping[str, Collection[int]],
                     replaced: Mapping[str, Mapping[int, Collection[str]]] | None = None,
                     rebound: Mapping[str, Redirects] | None = None) -> dict[FunctionId, AddedCall]:
    """Each function that only the calls on `added` lines (by path) bring into `program`'s traced
    code -> the added call that does. `solve` makes the program of other summaries; `replaced`: by
    path, an added line -> the names its hunk's removed lines call (diff.replaced_calls);
    `rebound`: by path, the calls an added import redirects -> the import's row
    (rebound_names.redirected_calls): such a call is new too, and blamed on its import."""
    added = {_relative(path): rows for path, rows in added.items() if rows}
    replaced = {_relative(path): rows for path, rows in (replaced or {}).items()}
    rebound = {_relative(path): rows for path, rows in (rebound or {}).items()}
    summaries = list(summaries)
    traced = program.traced_functions()
    calls = sorted(
        (summary.path, site.row, where, (summary.module, qualname), site.ref)
        for summary in summaries if _relative(summary.path) in added
        for qualname, function in summary.functions.items() if (summary.module, qualname) in traced
        for site in function.calls
        if (where := _new_call_row(site.row, site.ref, added[_relative(summary.path)],
                                   replaced.get(_relative(summary.path), {}), rebound.get(_relative(summary.path), {})))
    )
    if not calls:
        return {}
    new_calls: dict[str, set[tuple[int, str]]] = {}
    for path, row, _, _, ref in calls:
        new_calls.setdefault(_relative(path), set()).add((row, ref))
    before = solve([_without_calls(summary, new_calls.get(_relative(summary.path), set())) for summary in summaries])
    brought = traced - before.traced_functions()
    reach: dict[FunctionId, AddedCall] = {}
    for path, row, where, caller, ref in calls:
        for fid in program.reached_from_calls(program.resolve_call(caller, ref)) & brought:
            reach.setdefault(fid, AddedCall(path, where, caller, 0 if where == row else row))
    return reach


def _new_call_row(row: int, ref: str, added: Collection[int], replaced: Mapping[int, Collection[str]],
                  rebound: Redirects) -> int:
    """The added line a call site is new on: its own, unless the change only edited it there, or
    the import that redirects it; 0 for a call the change left as it was."""
    if row in added and not _only_edited(ref, replaced.get(row, ())):
        return row
    name = call_root(ref)
    return rebound.get((row, name), 0) if name is not None else 0


def _only_edited(ref: str, removed: Collection[str]) -> bool:
    """Whether a call site's `ref` calls what a removed line beside it called, as written there
    (diff.called_names): `norm` for "name:norm", `F.norm` for "dotted:F.norm" (`loud.run` replacing
    `safe.run` is a new call), `self.m` or `cls.m` for "self:m", `.m` for "super:m"; other calls
    (through objects) by the method's name alone."""
    kind, _, name = ref.partition(":")
    name = name.partition("@")[0]
    if kind in ("name", "dotted"):
        return name in removed
    if kind == "self":
        return f"self.{name}" in removed or f"cls.{name}" in removed
    if kind == "super":
        return f".{name}" in removed
    method = name.rpartition(">")[2].rpartition(".")[2]
    return any(text.rpartition(".")[2] == method for text in removed)


def _without_calls(summary: ModuleSummary, calls: Collection[tuple[int, str]]) -> ModuleSummary:
    """`summary` without the call sites (row, ref) in `calls`."""
    if not calls:
        return summary
    functions = {qualname: replace(function, calls=[site for site in function.calls
                                                    if (site.row, site.ref) not in calls])
                 for qualname, function in summary.functions.items()}
    return replace(summary, functions=functions)


def at_added_calls(findings: Iterable[Finding], reach: Mapping[FunctionId, AddedCall],
                   source_of: Callable[[str], str]) -> list[Finding]:
    """The findings of functions the added calls brought in, each moved to its call's line."""
    by_symbol = {f"{module}.{qualname}": (qualname, call) for (module, qualname), call in reach.items()}
    moved = []
    for finding in findings:
        if finding.symbol not in by_symbol:
            continue
        name, call = by_symbol[finding.symbol]
        brings = (f"this import makes the call on line {call.call_row} bring `{name}`" if call.call_row
                  else f"this call brings `{name}`")
        moved.append(pointer(finding, call, f"{brings} into traced code, and it breaks at "
                                            f"{finding.path}:{finding.location.row}: {finding.message}", source_of))
    return moved


def pointer(finding: Finding, call: AddedCall, message: str, source_of: Callable[[str], str]) -> Finding:
    """`finding` told at `call`'s line with `message`, pointing at its own line (findings.pointers)."""
    text = _line(source_of, call.path, call.row)
    return replace(
        finding,
        message=message,
        path=call.path,
        location=Location(call.row, len(text) - len(text.lstrip()) + 1),
        end_location=Location(call.row, len(text) + 1),
        symbol=f"{call.caller[0]}.{call.caller[1]}",
        source_line=text,
        occurrence=0,
        fix=None,
        evidence=None,
        reached_through="",
        breaks_at=f"{finding.path}:{finding.location.row}",
    )


def _line(source_of: Callable[[str], str], path: str, row: int) -> str:
    """The call's line; "" when its file cannot be read now (it was when it was summarised)."""
    try:
        lines = physical_lines(source_of(path))
    except ValueError:
        return ""
    return lines[row - 1].rstrip("\r\n") if row <= len(lines) else ""
