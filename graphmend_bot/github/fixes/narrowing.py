"""Narrowing a fix pull request to the fixes verification proved (issue 11).

A fix is proven only where a verify entry point executed it. Static reach over-approximates what
runs (a registry such as `ATTENTION_CLASSES[config._attn_implementation]` reaches attention
variants a CPU run never takes; a `float16` or training branch does not run on fp32 eval inputs),
so the measurement can report rewritten lines that no entry point ran. Each such line belongs to a
hunk of GraphMend's rewrite of the base; those hunks are the unproven fixes. The approval records
them in the fix pull request's body (`excluded_marker`), the bot drops them on its next run (they
stay review suggestions) and the next approval recomputes the rewrite of the base without them.

A fix is the rewrite of one statement: the hunks inside one top-level statement of the innermost
function that holds them (an `if` whose test and body a rewrite both changed is one fix, so it is
never half reverted; a hunk across several statements takes the whole function body, and fixes
that overlap are merged); a hunk outside any function body is a fix of its own. It is named by the base
lines of that statement, `path:first-last` (1-based, inclusive; a hunk on its own: the base lines it
replaces, `path:n+1-n` for an insertion after line n). Applying an exclusion only turns whole fixes
of GraphMend's own rewrite back into the base's text: it can remove fixes, never add code. So a
list that passed through untrusted hands (a pull request body anyone with write access can edit, a
report from the job that ran the pull request's code) still cannot make an approval accept anything
but a subset of the recomputed rewrite. It is validated strictly anyway: known fix names only, a bounded count.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from graphmend_bot.fences import outside_code_blocks
from graphmend_bot.source_lines import physical_lines
from graphmend_bot.verify.coverage import Hunk, changed_hunks

Change = tuple[str, str, str]  # (repository-relative path, before, after)

FIX_NAME = re.compile(r"[A-Za-z0-9_./-]{1,400}\.py:[0-9]{1,7}-[0-9]{1,7}")
MAX_EXCLUDED = 1000
EXCLUDED_PREFIX = "<!-- graphmend:unproven-fixes "
EXCLUDED_SUFFIX = " -->"


@dataclass(frozen=True)
class Fix:
    path: str
    name: str
    hunks: tuple[Hunk, ...]

    @property
    def proof_lines(self) -> set[int]:
        return {n for hunk in self.hunks for n in hunk.proof_lines}


@dataclass(frozen=True)
class Narrowed:
    changes: list[Change]  # the rewrite without the excluded fixes (files left unchanged are dropped)
    dropped: list[str]  # the excluded fixes, as named
    unknown: list[str]  # excluded names that are no fix of this rewrite (stale, or not GraphMend's)


def fixes_of(changes: Iterable[Change]) -> list[Fix]:
    """Every fix of the rewrite, in file order."""
    return [fix for path, before, after in changes for fix in _file_fixes(path, before, after)]


def _file_fixes(path: str, before: str, after: str) -> list[Fix]:
    """The file's hunks grouped into fixes: each hunk belongs to the smallest top-level statement
    of a function body that holds it (a whole function body when it spans several statements; the
    hunk alone outside functions), and hunks whose owners overlap are one fix."""
    statements, bodies = _spans(before)
    owned: list[tuple[int, int, Hunk]] = []
    for hunk in changed_hunks(before, after, path):
        first, last = hunk.base_start + 1, max(hunk.base_end, hunk.base_start + 1)
        # Outside functions the hunk is its own fix; a pure insertion (an `import torch`) spans
        # the line it is inserted at, never an empty `123-122`.
        owner = next((span for span in [*statements, *bodies] if span[0] <= first and last <= span[1]), (first, last))
        owned.append((*owner, hunk))
    fixes: list[Fix] = []
    start = end = -1
    group: list[Hunk] = []
    for first, last, hunk in sorted(owned, key=lambda item: (item[0], item[1])):
        if group and first <= end:  # overlaps the fix being built: the same fix
            end = max(end, last)
            group.append(hunk)
            continue
        if group:
            fixes.append(Fix(path, f"{path}:{start}-{end}", tuple(group)))
        start, end, group = first, last, [hunk]
    if group:
        fixes.append(Fix(path, f"{path}:{start}-{end}", tuple(group)))
    return fixes


def _spans(source: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(first, last) lines of each top-level statement of every function body, and of each function
    body, smallest first (the smallest that holds a hunk is its owner)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return [], []
    functions = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)]
    statements = [(s.lineno, s.end_lineno or s.lineno) for node in functions for s in node.body]
    bodies = [(node.body[0].lineno, node.body[-1].end_lineno or node.body[-1].lineno) for node in functions]

    def size(span: tuple[int, int]) -> int:
        return span[1] - span[0]

    return sorted(statements, key=size), sorted(bodies, key=size)


def unproven_fixes(changes: Iterable[Change], uncovered: Iterable[tuple[str, int]]) -> list[str]:
    """The fixes with a rewritten line that no entry point executed (`uncovered`: (path, line) of
    the rewritten files, as the verify report's coverage lists them)."""
    missed = set(uncovered)
    return [fix.name for fix in fixes_of(changes) if any((fix.path, n) in missed for n in fix.proof_lines)]


def uncovered_lines(report: Mapping[str, Any]) -> list[tuple[str, int]]:
    """(path, line) of each rewritten line the verify report says no entry point ran; the report is
    read defensively (it comes from the job that ran the pull request's code)."""
    coverage = report.get("coverage")
    lines = coverage.get("uncovered") if isinstance(coverage, Mapping) else None
    if not isinstance(lines, list):
        return []
    return [(line["path"], line["line"]) for line in lines
            if isinstance(line, Mapping) and isinstance(line.get("path"), str)
            and isinstance(line.get("line"), int) and not isinstance(line.get("line"), bool)]


def narrow(changes: Sequence[Change], exclude: Collection[str]) -> Narrowed:
    """`changes` without the fixes named in `exclude`. A file that no longer compiles without them
    goes back to its base text whole, so the result is always a subset of the rewrite."""
    wanted = set(exclude)
    known: set[str] = set()
    out: list[Change] = []
    dropped: list[str] = []
    for path, before, after in changes:
        fixes = _file_fixes(path, before, after)
        known.update(fix.name for fix in fixes)
        excluded = [fix for fix in fixes if fix.name in wanted]
        if not excluded:
            out.append((path, before, after))
            continue
        dropped += [fix.name for fix in excluded]
        narrowed = _revert(before, after, [hunk for fix in excluded for hunk in fix.hunks])
        if narrowed != before and _compiles(narrowed, path):
            out.append((path, before, narrowed))
        elif narrowed != before:
            dropped += [fix.name for fix in fixes if fix.name not in wanted]  # the whole file goes back
    return Narrowed(out, dropped, sorted(wanted - known))


def _revert(before: str, after: str, hunks: Sequence[Hunk]) -> str:
    old, new = physical_lines(before, keepends=True), physical_lines(after, keepends=True)
    parts: list[str] = []
    position = 0  # in `new`
    for hunk in sorted(hunks, key=lambda h: h.head_start):
        parts += new[position:hunk.head_start]
        parts += old[hunk.base_start:hunk.base_end]
        position = hunk.head_end
    parts += new[position:]
    return "".join(parts)


def _compiles(source: str, path: str) -> bool:
    try:
        compile(source, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def parse_exclusions(text: str) -> tuple[list[str], str]:
    """The fix names of a JSON list, or ([], why it cannot be used)."""
    try:
        data = json.loads(text)
    except ValueError:
        return [], "the list of unproven fixes is not valid JSON"
    if not isinstance(data, list) or len(data) > MAX_EXCLUDED:
        return [], f"the unproven fixes must be a JSON list of at most {MAX_EXCLUDED} fix names"
    bad = [item for item in data if not isinstance(item, str) or not FIX_NAME.fullmatch(item)]
    if bad:
        return [], f"{len(bad)} entry(ies) of the unproven fixes are not fix names (`path.py:first-last`)"
    return sorted(set(data)), ""


def excluded_marker(names: Iterable[str]) -> str:
    return EXCLUDED_PREFIX + json.dumps(sorted(set(names))) + EXCLUDED_SUFFIX


def exclusions_in(body: str | None) -> tuple[list[str], str]:
    """The unproven fixes a fix pull request's body records (its one marker line, outside the code it
    quotes: a quoted line is the branch's code, never a record), or ([], why not)."""
    lines = [line.strip() for line in _record_lines(body or "") if line.strip().startswith(EXCLUDED_PREFIX)]
    if not lines:
        return [], ""
    if len(lines) > 1 or not lines[0].endswith(EXCLUDED_SUFFIX):
        return [], "the fix pull request's record of unproven fixes is malformed"
    return parse_exclusions(lines[0][len(EXCLUDED_PREFIX):-len(EXCLUDED_SUFFIX)])


def _record_lines(body: str) -> list[str]:
    lines = body.split("\n")
    return [line for line, outside in zip(lines, outside_code_blocks(lines), strict=True) if outside]


def with_exclusions(body: str, names: Iterable[str]) -> str:
    """`body` recording `names` as its unproven fixes (one marker line, before the body's last line);
    the code it quotes is left as it is."""
    lines = body.rstrip("\n").split("\n")
    kept = [line for line, outside in zip(lines, outside_code_blocks(lines), strict=True)
            if not (outside and line.strip().startswith(EXCLUDED_PREFIX))]
    names = sorted(set(names))[:MAX_EXCLUDED]  # what exclusions_in reads back; the next round finds the rest
    if not names:
        return "\n".join(kept) + "\n"
    return "\n".join([*kept[:-1], excluded_marker(names), *kept[-1:]]) + "\n"
