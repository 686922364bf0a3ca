"""`/graphmend accept-breaks`: commit the pull request's census as the graph-break budget, on its branch.

A maintainer (commands.py checks write permission through the API before anything runs here) says
the breaks the pull request's census shows are expected. The bot finds that census itself: the
`census-base-artifact` artifact of a completed run in this repository at the pull request's head
commit (written by the pull request's own tests, so untrusted: read by the strict census reader and
matched to the head commit), and commits `graphmend-breaks.json` built from it to the pull
request's branch, fast-forward only, as `/graphmend fix --push` commits (not for forks). The gate
reads the budget from the base commit, so the change takes effect only once the pull request is
merged, after its reviewers saw it in the diff: a pull request cannot raise its own budget.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from github.PullRequest import PullRequest
from github.Repository import Repository
from github.WorkflowRun import WorkflowRun

from graphmend_bot.census.budget import BUDGET_FILE, budget_from
from graphmend_bot.census.record import CensusError
from graphmend_bot.fences import code_span
from graphmend_bot.github.core.api import fetch_file
from graphmend_bot.github.core.context import ActionContext
from graphmend_bot.github.core.trusted_base import fetch_census
from graphmend_bot.github.fixes.fix_pr import FileEdit, is_fix_branch, push_to_branch, valid_branch
from graphmend_bot.github.fixes.fixing import is_fork
from graphmend_bot.report.untrusted_text import markdown_text


def accept_breaks(ctx: ActionContext, repo: Repository, pr: PullRequest) -> tuple[bool, str]:
    """(done, the reply)."""
    if is_fork(pr, ctx.repository):
        return False, ("The pull request comes from a fork: the bot cannot commit to its branch. Run "
                       f"`graphmend census --update-budget` there and commit {code_span(BUDGET_FILE)}.")
    if is_fix_branch(pr.head.ref) or not valid_branch(pr.head.ref):
        return False, f"The branch {code_span(pr.head.ref[:200])} is not one the bot commits a budget to."
    head = pr.head.sha

    def refusal(run: WorkflowRun) -> str:
        same_repository = run.head_repository is not None and run.head_repository.full_name == ctx.repository
        if not same_repository or run.head_sha != head:
            return f"run {run.id} is not of this repository at {head[:12]}"
        return ""

    try:
        with tempfile.TemporaryDirectory(prefix="graphmend-head-census-") as scratch:
            found = fetch_census(repo, ctx.inputs.token, [head], ctx.inputs.census_base_artifact, refusal,
                                 Path(scratch))
    except CensusError as error:
        return False, (f"No census of `{head[:7]}` to accept: {markdown_text(str(error))}. Let the census job "
                       "finish on this commit, then ask again.")
    if not found.census.complete:
        return False, f"The census of `{head[:7]}` is incomplete (its test run stopped early): nothing accepted."
    text = budget_from(found.census.breaks)
    if fetch_file(repo, BUDGET_FILE, head) == text.encode():
        return True, f"{code_span(BUDGET_FILE)} at `{head[:7]}` already expects these breaks."
    count = len(found.census.breaks)
    sha = push_to_branch(repo, pr.head.ref, head, [FileEdit(BUDGET_FILE, text.encode())],
                         f"GraphMend: accept {count} graph break(s) in {BUDGET_FILE}\n\nThe census of {head[:12]}, "
                         f"accepted with /graphmend accept-breaks on #{pr.number}, committed by graphmend bot.")
    return True, (f"Committed {code_span(BUDGET_FILE)} with {count} expected graph break(s) (the census of "
                  f"`{head[:7]}`, {markdown_text(found.label)}) to `{pr.head.ref}` as `{sha[:7]}`. The gate "
                  "reads the budget from the base, so it counts once this pull request is merged.")
