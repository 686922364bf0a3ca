"""Reuse the last solved result after an edit the solve cannot have seen.

A one-file check or review after an edit otherwise loads every module's summary and solves the
whole project again (scope.py): seconds on transformers. Each solve made with the cache leaves
beside its result what it settled (SolvedState): the text of each file, the modules the prefilter
summarised, the functions it traced, the names untraced callers are matched by, and the files
whose text it read past their summaries (GM620's rows; the guard helpers a summary judged in
another file, ModuleSummary.read_files). A later run over the same files, configuration and
graphmend takes that result when every edited function is one no part of the solve consulted,
and recomputes only what comes from the edited files' text alone (their warnings about
suppression comments). An edit of traced code that changes only what its findings are keeps the
rest of the solve too, with that file's findings made again from the facts the state keeps about
each traced function (redraft.py); an edit of both kinds in one file is split in two
(redraft.without_untraced_edits), each part judged by its own rule. Any other edit is solved from
scratch, as before.

An edited, added or removed function is one the solve did not consult when all of these hold:
- it is no method (a class's methods drive dispatch and overrides), not compiled, matches no
  configured entry point, and neither it nor anything else in its top-level function was traced;
- the name of its top-level function is written nowhere in the tree outside that function:
  calls, references, decorators, imports, star imports, registries, `__all__`, compile calls and
  guard helpers all find a function by a name written somewhere, so no lookup found it;
- none of its calls bears a name untraced callers are matched by (untraced_callers.py: code
  nothing traces may pass a tensor into a traced function's hinted parameter), or the name of a
  traced function with parameters (whether every call passes a parameter a tensor decides whether
  the fixes of the drafts on it are safe: caller_arguments.py);
- the rest of its module is unchanged (imports, classes, compile calls, registries, star
  imports, `__all__`, suppression comments, every other function, rows included), and neither
  the solve nor another module's summary read the file's text;
- a file the prefilter does not summarise imports what it imported (its imports can leave a
  parameter unproven);
- the prefilter summarises the same modules, and the tree's own roots settled the model scope
  (in the library scope and `auto`'s public-api and tensor-api scopes a new public function may be a root).
The state is data as every entry (summary_codec.py), and a state that does not fit the tree
(other files, a wrong shape, a result other than the one keyed by the texts it names) is not used.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from graphmend_bot.analysis.model import FunctionSummary, ModuleSummary
from graphmend_bot.analysis.redraft import FunctionFacts, same_module_parts
from graphmend_bot.analysis.scope import entry_matches
from graphmend_bot.analysis.untraced_callers import called_name
from graphmend_bot.findings import CheckResult, FileError, Finding, number_identical_lines

FunctionId = tuple[str, str]


@dataclass(frozen=True)
class SolvedState:
    """What a solve settled, for the tree of `digests` (module docstring)."""

    result_key: str  # the cache entry of its result
    digests: dict[str, str]  # path -> sha256 of the file's text
    relevant: tuple[str, ...]  # the modules the prefilter summarised
    traced: dict[str, tuple[str, ...]]  # module -> the qualnames traced there
    callee_names: tuple[str, ...]  # untraced_callers.callee_names of the traced functions
    text_read: tuple[str, ...]  # paths whose text the solve or a summary read (relative to the cwd)
    # module -> qualname -> what the solve settled for each traced function (redraft.py)
    facts: dict[str, dict[str, FunctionFacts]]


def solved_state(result_key: str, digests: Mapping[str, str], relevant: Iterable[str],
                 traced: Iterable[FunctionId], callee_names: Iterable[str], text_read: Iterable[str],
                 facts: dict[str, dict[str, FunctionFacts]]) -> SolvedState:
    by_module: dict[str, list[str]] = {}
    for module, qualname in sorted(traced):
        by_module.setdefault(module, []).append(qualname)
    return SolvedState(result_key, dict(digests), tuple(sorted(relevant)),
                       {module: tuple(names) for module, names in by_module.items()},
                       tuple(sorted(callee_names)), tuple(sorted(text_read)), facts)


def edited_paths(state: SolvedState, digests: Mapping[str, str]) -> list[str] | None:
    """The files whose text differs from the solved tree's; None when the files are not the same."""
    if state.digests.keys() != digests.keys():
        return None
    return [path for path, digest in digests.items() if state.digests[path] != digest]


def unseen_edits(old: ModuleSummary, new: ModuleSummary, state: SolvedState,
                 entry_points: Sequence[str]) -> list[str] | None:
    """The qualnames the edit changed, added or removed, when each is one the solve cannot have
    consulted as far as this module tells (module docstring); None otherwise. `entry_points`:
    the configured patterns. The names still have to be unwritten elsewhere
    (`names_written_only_inside`)."""
    if not same_module_parts(old, new):
        return None
    changed = sorted(q for q in {*old.functions, *new.functions} if old.functions.get(q) != new.functions.get(q))
    # Not only the changed functions: nothing under their top-level function may be traced (a
    # traced nested function resolves a call by name in the enclosing functions first).
    traced_tops = {top_level_name(qualname) for qualname in state.traced.get(new.module, ())}
    callee_names = set(state.callee_names)
    for qualname in changed:
        if top_level_name(qualname) in traced_tops or any(
                entry_matches(pattern, new.module, qualname) for pattern in entry_points):
            return None
        versions = [f for f in (old.functions.get(qualname), new.functions.get(qualname)) if f is not None]
        if any(not _inert(function, callee_names) for function in versions):
            return None
    return changed


def _inert(function: FunctionSummary, callee_names: set[str]) -> bool:
    return (function.class_qualname is None and not function.compiled
            and not any(called_name(site.ref) in callee_names for site in function.calls))


def names_written_only_inside(names: Mapping[str, set[str]], texts: Mapping[str, str]) -> bool:
    """Whether each top-level function name of `names` (path -> names edited there) appears in
    `texts` (path -> text, every file of the tree) only inside that function's own `def` in that
    file: then nothing in the tree refers to it."""
    wanted = {name for edited in names.values() for name in edited}
    if not wanted:
        return True
    spans = {path: _def_spans(texts[path], edited) for path, edited in names.items()}
    for name in wanted:
        pattern = re.compile(rf"(?<!\w){re.escape(name)}(?!\w)")
        for path, text in texts.items():
            if name not in text:
                continue
            offsets = [match.start() for match in pattern.finditer(text)]
            if not offsets:
                continue
            allowed = spans.get(path, {}).get(name)
            if allowed is None:
                return False
            # The def's rows as offsets, found once: counting the newlines before every match was
            # quadratic (minutes for a large file whose function names itself on each line).
            rows = _row_starts(text)
            start, end = rows[allowed[0] - 1], rows[allowed[1]] if allowed[1] < len(rows) else len(text)
            if any(not start <= offset < end for offset in offsets):
                return False
    return True


def _row_starts(text: str) -> list[int]:
    """The offset where each row of `text` starts (row 1 at index 0)."""
    return [0, *(match.end() for match in re.finditer("\n", text))]


def _def_spans(text: str, names: set[str]) -> dict[str, tuple[int, int]]:
    """The rows of each module-level `def NAME` of `names` (decorators on it included)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return {}
    return {
        statement.name: (min([statement.lineno, *(d.lineno for d in statement.decorator_list)]),
                         statement.end_lineno or statement.lineno)
        for statement in tree.body
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement.name in names
    }


def top_level_name(qualname: str) -> str:
    return qualname.partition(".")[0]


def with_warnings_of(result: CheckResult, replaced: Mapping[str, tuple[list[FileError], list[FileError]]]
                     ) -> CheckResult | None:
    """`result` with each edited file's own warnings (path -> (before, after)) swapped; None when
    the result holds other errors of that file than the warnings it had."""
    kept: list[FileError] = []
    for error in result.errors:
        if error.path not in replaced:
            kept.append(error)
    for path, (before, _) in replaced.items():
        if [e for e in result.errors if e.path == path] != before:
            return None
    added = [error for _, after in replaced.values() for error in after]
    errors = sorted([*kept, *added], key=lambda e: e.path)  # stable: as engine._result orders them
    return CheckResult(findings=list(result.findings), errors=errors, files_checked=result.files_checked)


def with_findings_of(result: CheckResult, replaced: Mapping[str, list[Finding]]) -> CheckResult:
    """`result` with the findings of each file of `replaced` (path -> its findings now) swapped, in
    the order and with the numbering `engine._result` gives them."""
    if not replaced:
        return result
    kept = [finding for finding in result.findings if finding.path not in replaced]
    findings = sorted([*kept, *(finding for found in replaced.values() for finding in found)], key=lambda f: f.sort_key)
    return CheckResult(findings=number_identical_lines(findings), errors=list(result.errors),
                       files_checked=result.files_checked)
