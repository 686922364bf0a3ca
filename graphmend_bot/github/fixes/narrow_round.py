"""The narrowing round: the bot's fix pull request narrowed to its proven fixes, without waiting.

When the approval finds rewritten lines no verify entry point ran, it records the unproven fixes in
the fix pull request's body (narrowing.py) and dispatches the bot's fix workflow with the fix pull
request's number and the measured head (`approve submit --narrow-workflow`). This round runs in
that workflow's privileged job, with the App token, from the default branch's workflow file; it
checks nothing out and runs no code of any pull request:

1. The dispatch only names a candidate. Through the API the pull request must pass the approval's
   own rule (`gate.refusal`: open, this repository's branch, opened by the bot's App, a
   `graphmend/fix/` branch), and its head must still be the measured commit: a head that moved is
   never overwritten (the run for the new head decides).
2. The rewrite of the base is recomputed with trusted code, without the recorded fixes
   (`recompute.recompute_rewrite`, exactly what the next approval compares with): the record can
   only remove GraphMend's own fixes, never add code.
3. The narrowed files are committed as a child of the measured head and the branch is moved with a
   fast-forward-only ref update, which GitHub applies atomically: if anything was pushed since the
   check, the update is refused and nothing is overwritten.
4. Nothing new to leave out (the tree is the measured head's): no commit, no new verification; the
   loop ends. Nothing left at all: the fix pull request is closed with a comment saying why.
   Otherwise the verify workflow is dispatched for the narrowed head.
"""

from __future__ import annotations

import tarfile
from typing import Any

from github import GithubException, InputGitAuthor
from github.Repository import Repository

from graphmend_bot.exit_codes import EXIT_CLEAN, EXIT_ERROR
from graphmend_bot.fences import code_span
from graphmend_bot.github.approval.gate import DEFAULT_BOT_LOGIN, PullFacts, refusal, valid_sha
from graphmend_bot.github.approval.recompute import recompute_rewrite
from graphmend_bot.github.core.api import API_ERRORS, EXECUTABLE, connect, describe, fetch_file, file_modes
from graphmend_bot.github.core.body_budget import first_few
from graphmend_bot.github.core.context import ActionContext
from graphmend_bot.github.core.markers import is_fix_pr
from graphmend_bot.github.core.outputs import Log
from graphmend_bot.github.fixes.fix_after_review import dispatch_verify
from graphmend_bot.github.fixes.fix_body_fit import fitted
from graphmend_bot.github.fixes.fix_pr import (
    BOT_EMAIL,
    BOT_NAME,
    FileEdit,
    build_tree,
    close_fix,
    with_verification,
)
from graphmend_bot.github.fixes.narrowing import exclusions_in

PULL_INPUT = "narrow-fix-pull-request"  # the workflow_dispatch inputs the approval sends
HEAD_INPUT = "head-sha"

MAX_NAMED = 20  # fix names a description or comment lists; the record holds them all

NARROWED_VERIFICATION = (
    "Narrowed to the fixes verification can prove (commit `{sha}`): no verify entry point executed {names}, "
    "so they are left out (they stay review suggestions). Verification of the narrowed pull request has been "
    "requested; it approves only when every remaining rewritten line runs."
)


def is_narrowing_dispatch(event: dict[str, Any]) -> bool:
    inputs = event.get("inputs")
    return isinstance(inputs, dict) and bool(inputs.get(PULL_INPUT))


def narrowing_round(ctx: ActionContext, log: Log) -> int:
    """`workflow_dispatch` with `narrow-fix-pull-request`: narrow that fix pull request, then verify it."""
    inputs = ctx.event.get("inputs")
    assert isinstance(inputs, dict)
    number_text, head_sha = str(inputs.get(PULL_INPUT, "")), str(inputs.get(HEAD_INPUT, ""))
    if not number_text.isdigit() or not valid_sha(head_sha):
        log.error(f"narrowing: `{PULL_INPUT}` must be a pull request number and `{HEAD_INPUT}` a full commit SHA")
        return EXIT_ERROR
    if not ctx.inputs.token:
        log.error("narrowing: no GitHub token: pass the App token as `github-token`")
        return EXIT_ERROR
    try:
        repo = connect(ctx.api_url, ctx.inputs.token).get_repo(ctx.repository)
        log.info(f"narrowing #{number_text}: {narrow_fix_pull(ctx, repo, int(number_text), head_sha, log)}")
    except API_ERRORS as error:
        log.warning(describe(error, f"narrowing fix pull request #{number_text}",
                             needs="Contents, Pull requests and Actions write access"))
    except (tarfile.TarError, OSError) as error:
        log.warning(f"narrowing: cannot read the base's files: {type(error).__name__}: {error}")
    return EXIT_CLEAN


def narrow_fix_pull(ctx: ActionContext, repo: Repository, number: int, head_sha: str, log: Log) -> str:
    """One narrowing round for fix pull request `number` measured at `head_sha`; one sentence saying what happened."""
    pr = repo.get_pull(number)
    facts = PullFacts.read(pr)
    reason = refusal(facts, ctx.repository, ctx.inputs.bot_login or DEFAULT_BOT_LOGIN)
    if reason is not None:
        return f"refused: {reason}"
    if not is_fix_pr(pr.body):
        return "refused: the pull request's description is not GraphMend's"
    if facts.head_sha != head_sha:
        return (f"the head moved from the measured {head_sha[:7]} to {facts.head_sha[:7]}: not overwritten, "
                "the run for the new head decides")
    excluded, problem = exclusions_in(pr.body)
    if problem or not excluded:
        return problem or "no unproven fix is recorded: nothing to narrow"
    changed = list(repo.compare(facts.base_sha, facts.head_sha).files)
    python = [f.filename for f in changed if f.filename.endswith(".py") and f.status == "modified"]
    full, problem, _ = recompute_rewrite(repo, facts.base_sha, python, ctx.inputs.fixes)
    strangers = [f.filename for f in changed if f.filename not in full]
    if problem or strangers:
        # Only a head that changes nothing but files GraphMend's rewrite changes is narrowed: the
        # round then writes only the narrowed rewrite and base bytes, never over anyone's work.
        why = problem or f"{code_span(strangers[0])} is changed, but it is not GraphMend's rewrite"
        return f"not narrowed: {why}"
    expected, problem, _ = recompute_rewrite(repo, facts.base_sha, python, ctx.inputs.fixes, excluded)
    if problem:
        return f"not narrowed: {problem}"
    if not expected:
        close_fix(repo, facts.head_ref, f"Verification found that no verify entry point executes any of these "
                  f"fixes ({first_few([code_span(n) for n in excluded], MAX_NAMED)}), so none can be proven and nothing is "
                  "left to merge. They stay review suggestions; add an entry point that runs them to bring them "
                  "back. Closing.", log, only_at=head_sha)
        return "nothing proven is left: closed the fix pull request"
    # The narrowed commit keeps each file's mode: an executable script stays executable.
    executable = {name for name, mode in file_modes(repo, head_sha, python).items() if mode == EXECUTABLE}
    files = [FileEdit(name, expected[name], name in executable) if name in expected
             else _base_file(repo, name, facts.base_sha, name in executable) for name in python]
    sha = _fast_forward(repo, facts.head_ref, head_sha, files, len(excluded))
    if sha is None:
        return "nothing new to leave out (the head already is the narrowed rewrite): the round ends"
    if sha == "":
        return "the branch moved during the round: not overwritten"
    body = fitted(with_verification(pr.body or "", NARROWED_VERIFICATION.format(
        sha=sha[:7], names=first_few([code_span(name) for name in excluded], MAX_NAMED))))
    if body != pr.body:
        pr.edit(body=body)
    dispatch_verify(ctx, repo, number, log)
    return f"pushed {sha[:7]} without {len(excluded)} unproven fix(es) and asked for verification"


def _base_file(repo: Repository, name: str, base_sha: str, executable: bool) -> FileEdit:
    """A file the narrowed rewrite leaves unchanged: back to the base's bytes."""
    content = fetch_file(repo, name, base_sha)
    if content is None:
        raise OSError(f"{name} cannot be read at the base {base_sha[:7]}")
    return FileEdit(name, content, executable)


def _fast_forward(repo: Repository, branch: str, head_sha: str, files: list[FileEdit], dropped: int) -> str | None:
    """Commit `files` on top of `head_sha` and move `branch` there only as a fast-forward (GitHub's
    compare-and-swap for refs): the new sha; None when the tree would not change; "" when refused."""
    parent = repo.get_git_commit(head_sha)
    tree = build_tree(repo, parent, files)
    if tree.sha == parent.tree.sha:
        return None
    author = InputGitAuthor(BOT_NAME, BOT_EMAIL)
    message = (f"GraphMend: leave out {dropped} unproven fix(es)\n\nNo verify entry point executed them; they "
               "stay review suggestions.")
    commit = repo.create_git_commit(message, tree, [parent], author=author, committer=author)
    try:
        repo.get_git_ref(f"heads/{branch}").edit(commit.sha, force=False)
    except GithubException as error:
        if error.status == 422:  # not a fast forward: someone pushed since the check
            return ""
        raise
    return commit.sha
