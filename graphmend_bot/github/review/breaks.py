"""The pull request's graph breaks by Dynamo's census: the summary's +N / -M table and `fail-on: new-breaks`.

Two comparisons of the head's census (the `census-file` input, already matched to the head commit):

- the gate's, with trusted inputs only: the base census the bot fetched itself from a default-branch
  run (trusted_base.py) and the budget `graphmend-breaks.json` read from the base commit through the
  API (a pull request cannot raise its own budget);
- the table's, which may also use the `census-base` file input when no trusted base was fetched:
  that file is untrusted (a pull request's job can write it), so it informs the table and never
  passes the gate.

The gate fails when breaks were added beyond the budget, a target newly failed to compile, a census
is incomplete, or nothing trusted to compare with exists: an unknown base is never clean.

On a fork's pull request the table is made in the read-only run and reaches the posted summary
through the review bundle (bundle.py); the posting run renders it again, labelled untrusted, and
gates nothing on it (the read-only run's own check carries the gate's verdict).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from github.Repository import Repository

from graphmend_bot.census.budget import BUDGET_FILE, Budget, parse_budget_bytes
from graphmend_bot.census.compare import Comparison, compare, gate_failure
from graphmend_bot.census.record import Census, CensusError, load_census
from graphmend_bot.github.core.api import API_ERRORS, describe, fetch_file
from graphmend_bot.github.core.census_input import census_path
from graphmend_bot.github.core.context import ActionContext
from graphmend_bot.github.core.outputs import Log
from graphmend_bot.github.core.trusted_base import fetch_trusted_base
from graphmend_bot.report.break_table import break_table
from graphmend_bot.report.untrusted_text import markdown_text


@dataclass
class BreakReport:
    lines: list[str] = field(default_factory=list)  # the summary's Markdown: table and notes
    # why `fail-on: new-breaks` fails the check; "" when it passes; None when nothing trusted was judged
    gate_failure: str | None = ""
    shown: Comparison | None = None  # the table's comparison, which a fork's review bundle carries


def carried_breaks(comparison: Comparison, blob_url: str) -> BreakReport:
    """The table of a comparison a fork's review bundle carried (bundle.py validated it): the pull
    request's own run made it, so it is labelled untrusted and judges nothing."""
    return BreakReport(break_table(comparison, blob_url, CARRIED_LABEL), gate_failure=None)


CARRIED_LABEL = "carried by the review bundle of the pull request's own run: untrusted, it informs this table and " \
                "never the gate"


def census_breaks(ctx: ActionContext, repo: Repository, head: Census | None, base_sha: str, head_sha: str,
                  log: Log, blob_url: str = "") -> BreakReport | None:
    """The table and the gate's verdict; None when no base census, no budget and no gate were asked for."""
    inputs = ctx.inputs
    if not (inputs.census_base_workflow or inputs.census_base or inputs.fail_on == "new-breaks"):
        return None
    if head is None:
        return BreakReport(gate_failure="no usable census of the head (the `census-file` input)")
    problems: list[str] = []
    budget = _base_budget(repo, base_sha, problems)
    trusted: Census | None = None
    label = ""
    if inputs.census_base_workflow:
        try:
            merge_base = repo.compare(base_sha, head_sha).merge_base_commit.sha
            with tempfile.TemporaryDirectory(prefix="graphmend-base-census-") as scratch:
                found = fetch_trusted_base(repo, inputs.token, inputs.census_base_workflow,
                                           inputs.census_base_artifact, [base_sha, merge_base], Path(scratch))
            trusted, label = found.census, markdown_text(found.label)
        except CensusError as error:
            problems.append(f"The base's census was not used: {error}")
        except API_ERRORS as error:
            problems.append(describe(error, "finding the base's census (it needs `actions: read`)"))
    shown_base, shown_label = trusted, label
    if trusted is None and inputs.census_base:
        try:
            shown_base = load_census(census_path(ctx.workspace, inputs.census_base))
            shown_label = "the `census-base` file: untrusted, it informs this table and never the gate"
        except CensusError as error:
            problems.append(f"The base's census was not used: {error}")
    for problem in problems:
        log.warning(problem)
    report = BreakReport([f"> {markdown_text(problem)}." for problem in problems])
    gated = compare(trusted, head, budget) if trusted is not None or budget is not None else None
    report.gate_failure = gate_failure(gated, "no default-branch census artifact and no budget file at the base")
    shown = compare(shown_base, head, budget) if shown_base is not None or budget is not None else None
    report.shown = shown
    if shown is not None:
        report.lines = [*break_table(shown, blob_url, shown_label), *([""] if problems else []), *report.lines]
    if report.gate_failure and inputs.fail_on == "new-breaks":
        report.lines += ["", f"**`fail-on: new-breaks` fails this check**: {markdown_text(report.gate_failure)}."]
    return report


def _base_budget(repo: Repository, base_sha: str, problems: list[str]) -> Budget | None:
    """`graphmend-breaks.json` at the base commit, never the head's; None when there is none."""
    try:
        data = fetch_file(repo, BUDGET_FILE, base_sha)
        return parse_budget_bytes(data) if data is not None else None
    except CensusError as error:
        problems.append(f"The budget was not used: {error}")
    except API_ERRORS as error:
        problems.append(describe(error, f"reading {BUDGET_FILE} at the base"))
    return None
