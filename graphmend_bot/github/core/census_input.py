"""The `census-file` input: Dynamo's breaks from the project's tests, merged into a review or a scan.

The file is an artifact that a pull request's own tests wrote (census/action.yml runs them), so it
is untrusted input, like the review bundle: it is read only when it is a regular file inside the
workspace (no symlink), validated by `load_census` (size and list caps, schema, printable bounded
text, paths inside the repository), and used only when it was recorded on the commit under review.
Anything wrong with it is one message in the log and the job summary; the static findings are
reported and posted either way. The merged text reaches comments through the Markdown renderers,
which keep it inert (code spans for test ids, `markdown_text` for Dynamo's reasons).
"""

from __future__ import annotations

import os
import subprocess
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from graphmend_bot.census.merge import RUNTIME_CODE, merge_census
from graphmend_bot.census.record import Census, CensusError, load_census
from graphmend_bot.config import Config
from graphmend_bot.findings import CheckResult
from graphmend_bot.git_command import run_git
from graphmend_bot.github.core.context import ActionContext
from graphmend_bot.github.core.outputs import Log
from graphmend_bot.report.untrusted_text import markdown_text
from graphmend_bot.rules import RUNTIME_RULES, select_codes


@dataclass(frozen=True)
class CensusOutcome:
    result: CheckResult  # the findings, with Dynamo's evidence when the census was used
    note: str  # one line for the job summary and the summary comment; "" when no census was given
    census: Census | None = None  # the head's census, when it was used (breaks.py compares it with the base's)


def with_census(ctx: ActionContext, config: Config, result: CheckResult, commit: str,
                checked_files: Iterable[str], log: Log) -> CensusOutcome:
    """`result` merged with the `census-file` input when it is usable for `commit`.

    `checked_files`: the files the check reported on, relative to the workspace (a break Dynamo saw
    in one of them that no static finding covers becomes a GM801 finding)."""
    name = ctx.inputs.census_file
    if not name:
        return CensusOutcome(result, "")
    try:
        if not commit:
            raise CensusError("the commit under review is unknown, so no census can be matched to it")
        census = load_census(census_path(ctx.workspace, name), expected_commit=commit)
    except CensusError as error:
        # The reason may quote the file (a path it refused): one line, inert as Markdown.
        log.warning(f"Dynamo's census was not used: {error}. The findings are the static analysis alone.")
        return CensusOutcome(result, unused_census_note(error))
    codes = select_codes(config.select, config.ignore, RUNTIME_RULES)
    merged = merge_census(result, census, ctx.workspace, checked_files, codes)
    note = describe_merge(merged, census, commit)
    log.info(note)
    return CensusOutcome(merged, note, census)


def census_path(workspace: Path, name: str) -> Path:
    """The census file, refused unless it is a regular file whose real path is the path named
    (a symlink could point the read at a secret or a device) inside the workspace."""
    path = Path(os.path.abspath(workspace / name))
    if not path.is_relative_to(workspace):
        raise CensusError(f"the census-file input {name[:100]!r} is outside the workspace")
    if not os.path.lexists(path):
        raise CensusError(f"no census file at {name[:100]} (did the census job upload its artifact?)")
    if Path(os.path.realpath(path)) != path:
        raise CensusError(f"the census file {name[:100]} is or lies behind a symlink: not read")
    if not path.is_file():
        raise CensusError(f"the census file {name[:100]} is not a regular file")
    return path


def unused_census_note(error: Exception) -> str:
    """The summary's note for a census that was refused: its reason may quote the file (a path it
    refused), so it is untrusted text."""
    return (f"Dynamo's census was not used: {markdown_text(str(error))}. The findings are the static "
            "analysis alone.")


def describe_merge(result: CheckResult, census: Census, commit: str) -> str:
    statuses = Counter(f.evidence.status for f in result.findings
                       if f.evidence is not None and f.code != RUNTIME_CODE)
    runtime = sum(1 for f in result.findings if f.code == RUNTIME_CODE)
    stopped = "" if census.complete else (" The test run stopped before its end (a crash?): the census holds "
                                          "the tests that ran before it.")
    return (f"Dynamo's census of the tests at `{commit[:12]}` ({len(census.calls)} call(s) explained): "
            f"{statuses['confirmed']} finding(s) confirmed, {statuses['ran-without-break']} ran without a graph "
            f"break, {runtime} break(s) only Dynamo saw ({RUNTIME_CODE}).{stopped}")


def workspace_commit(workspace: Path) -> str:
    """The commit checked out in the workspace, or "" outside git."""
    try:
        done = run_git(["rev-parse", "HEAD"], workspace, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""
