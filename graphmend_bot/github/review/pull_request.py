"""The pull-request path: read the PR, analyse its Python changes, plan, then post.

Order matters: every read first, then the SARIF file and outputs (so findings are never lost),
then the writes, then the job summary (so it says what was posted, not what was planned). A write
that fails (a fork's read-only token, an outage) turns into annotations, never into a failed job
or a traceback.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from github.File import File
from github.IssueComment import IssueComment
from github.PullRequest import PullRequest
from github.PullRequestComment import PullRequestComment
from github.Repository import Repository

from graphmend_bot.config import Config
from graphmend_bot.exit_codes import EXIT_CLEAN, EXIT_ERROR
from graphmend_bot.findings import CheckResult
from graphmend_bot.github.core.api import API_ERRORS, connect, describe, fetch_file, status_of
from graphmend_bot.github.core.census_input import with_census
from graphmend_bot.github.core.context import ActionContext
from graphmend_bot.github.core.identity import BotIdentity, resolve_identity
from graphmend_bot.github.core.markers import is_summary, parse_finding_marker
from graphmend_bot.github.core.outputs import Log, append_summary
from graphmend_bot.github.core.results import finish, scan_everything
from graphmend_bot.github.review.analyse import analyse, read_sources
from graphmend_bot.github.review.base_baseline import read_through_api, with_base_baseline
from graphmend_bot.github.review.base_texts import MAX_API_READS, BaseTexts, texts_from_patches
from graphmend_bot.github.review.breaks import BreakReport, census_breaks
from graphmend_bot.github.review.bundle import write_bundle
from graphmend_bot.github.review.diff import added_lines, replaced_calls
from graphmend_bot.github.review.plan import ExistingComment, PreparedReview, prepare_review, summary_comment
from graphmend_bot.github.review.threads import resolve_threads
from graphmend_bot.report.markdown import SummaryView, summary_markdown

CommentT = TypeVar("CommentT", IssueComment, PullRequestComment)
REVIEWED_ACTIONS = frozenset({"opened", "synchronize", "reopened", "ready_for_review"})
# GitHub's "list pull request files" answers at most this many (REST API documentation).
MAX_LISTED_FILES = 3000


@dataclass
class PullRequestState:
    """Everything read from the API before anything is written."""

    bot: BotIdentity  # only its comments are the bot's own; markers in anyone else's text mean nothing
    pr: PullRequest
    head_sha: str
    draft: bool
    python_files: list[File]
    review_comments: list[PullRequestComment]
    issue_comments: list[IssueComment]
    gone: tuple[str, ...] = ()  # Python files of the base the pull request deletes or renames (old paths)
    renamed: dict[str, str] = field(default_factory=dict)  # Python files renamed: new path -> old path
    # Changed files the API did not list: it lists at most MAX_LISTED_FILES of a pull request.
    unlisted: int = 0


@dataclass
class Posting:
    """What actually reached the pull request."""

    inline: set[str] = field(default_factory=set)  # finding keys with a comment on the PR
    problems: list[str] = field(default_factory=list)  # one line per step that failed
    fatal: bool = False  # the token was rejected: the job fails


def review_pull_request(ctx: ActionContext, config: Config, log: Log) -> int:
    event = ctx.event
    action = str(event.get("action", ""))
    raw_pr = event.get("pull_request")
    payload_pr: dict[str, Any] = raw_pr if isinstance(raw_pr, dict) else {}
    number = event.get("number", payload_pr.get("number"))
    if not isinstance(number, int):
        log.error("the pull_request event has no pull request number; nothing to review")
        return EXIT_ERROR
    if action not in REVIEWED_ACTIONS:
        log.info(f"pull_request {action!r}: nothing to review (runs on {', '.join(sorted(REVIEWED_ACTIONS))})")
        return EXIT_CLEAN
    if payload_pr.get("state") == "closed":
        log.info(f"pull request #{number} is closed: nothing to review")
        return EXIT_CLEAN
    if not ctx.inputs.token:
        log.error("no GitHub token: pass `github-token: ${{ github.token }}` to the action; "
                  "checking the whole tree instead (annotations, job summary and SARIF only)")
        scan_everything(ctx, config, log)
        return EXIT_ERROR

    repo_name = ctx.repository
    try:
        client = connect(ctx.api_url, ctx.inputs.token)
        repo = client.get_repo(repo_name)
        state = read_pull_request(repo, number, resolve_identity(client, ctx.inputs.bot_login, log.warning))
    except API_ERRORS as error:
        log.error(describe(error, f"reading pull request #{number} of {repo_name}"))
        log.info("checking the whole tree instead (annotations, job summary and SARIF only)")
        scan_everything(ctx, config, log)
        return EXIT_ERROR
    if state.pr.state == "closed":
        log.info(f"pull request #{number} is closed: nothing to review")
        return EXIT_CLEAN
    unlisted = _unlisted_note(state)
    if unlisted:
        log.error(unlisted)  # reviewed as far as listed, then the job fails: an unread file is never clean
    code = _review_listed(ctx, config, log, repo, state, number, payload_pr, [unlisted] if unlisted else [])
    return EXIT_ERROR if unlisted else code


def _unlisted_note(state: PullRequestState) -> str:
    if not state.unlisted:
        return ""
    return (f"GitHub lists at most {MAX_LISTED_FILES} files of a pull request, and this one changes "
            f"{state.pr.changed_files}: {state.unlisted} changed file(s) were not reviewed. "
            "Split the pull request, or check the whole tree with `graphmend check`")


def _review_listed(ctx: ActionContext, config: Config, log: Log, repo: Repository, state: PullRequestState,
                   number: int, payload_pr: dict[str, Any], notes: list[str]) -> int:
    """The review of the files the API listed; `notes` go into the summaries."""
    if not state.python_files:
        log.info(f"pull request #{number} changes no Python files: nothing to check")
        # Dynamo's census still has its word: data or configuration can add graph breaks too.
        census = with_census(ctx, config, CheckResult(), state.head_sha, [], log)
        breaks = census_breaks(ctx, repo, census.census, state.pr.base.sha, state.head_sha, log, blob_url(ctx, state))
        notes = [*notes, "No Python files changed.", *([census.note] if census.note else [])]
        if breaks is None and not _has_bot_comments(state):
            finish(ctx, log, CheckResult(), SummaryView([], head_sha=state.head_sha, notes=notes))
            return EXIT_CLEAN
        # Python changes were reverted (clear the old comments), or the census table is the summary.
        return review(ctx, repo, state, CheckResult(), {}, log, _why_not_post(ctx, state, payload_pr), notes, breaks)

    changed = [f.filename for f in state.python_files]
    patches = {f.filename: f.patch for f in state.python_files}
    try:
        config = with_base_baseline(config, ctx.workspace, read_through_api(repo, state.pr.base.sha), log.notice)
    except API_ERRORS as error:  # never fewer findings for a failed read: the review goes on without it
        log.warning(describe(error, "reading the baseline at the base commit") + "; reviewing without a baseline")
        config = replace(config, baseline=None)
    result = analyse(ctx, config, log, only=changed, added_lines=added_lines(patches), replaced=replaced_calls(patches),
                     patches=patches, before=_base_texts(ctx, repo, state, log),
                     renamed={old: new for new, old in state.renamed.items()})
    census = with_census(ctx, config, result, state.head_sha, changed, log)
    result = census.result
    sources = read_sources(changed, ctx.workspace)
    notes = [*notes, *([census.note] if census.note else [])]
    breaks = census_breaks(ctx, repo, census.census, state.pr.base.sha, state.head_sha, log, blob_url(ctx, state))
    if ctx.inputs.review_bundle:
        write_bundle(ctx, number, state.head_sha, result, log, breaks.shown if breaks is not None else None)
    return review(ctx, repo, state, result, sources, log, _why_not_post(ctx, state, payload_pr), notes, breaks)


def _base_texts(ctx: ActionContext, repo: Repository, state: PullRequestState, log: Log) -> BaseTexts | None:
    """The changed files at the base commit, for the base's solve; None (breaks are then new on added
    lines only) when the API cannot give one whose patch cannot be undone."""
    files = [(f.filename, f.status, f.patch, f.changes) for f in state.python_files]
    fallback = "; a break is new only on a line the pull request added or where an added call brings it in"
    renamed_away = set(state.renamed.values())
    removed = [path for path in state.gone if path not in renamed_away]
    try:
        texts = texts_from_patches(ctx.workspace, files, lambda path: fetch_file(repo, path, state.pr.base.sha),
                                   state.renamed, removed)
    except API_ERRORS as error:
        log.warning(describe(error, "reading the changed files at the base commit") + fallback)
        return None
    if texts is None:
        log.warning(f"over {MAX_API_READS} changed files have no patch to undo: the base is not solved{fallback}")
    return texts


def blob_url(ctx: ActionContext, state: PullRequestState) -> str:
    return f"{ctx.server_url}/{ctx.repository}/blob/{state.head_sha}"


def review(
    ctx: ActionContext,
    repo: Repository,
    state: PullRequestState,
    result: CheckResult,
    sources: dict[str, str],
    log: Log,
    why_not: str = "",
    notes: Sequence[str] = (),
    breaks: BreakReport | None = None,
) -> int:
    """Plan, leave the findings in the job (SARIF, summary, outputs), then post unless `why_not`.
    `notes` are lines for the summaries (what became of a census); `breaks`: the census's +N / -M
    table and the verdict of `fail-on: new-breaks`."""
    existing = [ExistingComment(c.id, c.body or "", c.in_reply_to_id, by_bot=state.bot.wrote(c.user))
                for c in state.review_comments]
    prepared = prepare_review(result, {f.filename: f.patch for f in state.python_files}, sources, existing,
                              state.head_sha, ctx.inputs.max_comments,
                              blob_url=blob_url(ctx, state),
                              unsafe=ctx.inputs.fixes == "verified")
    plan, view = prepared.plan, prepared.view
    view.notes = [*view.notes, *notes]
    view.breaks = breaks.lines if breaks is not None else []
    gate = breaks.gate_failure if breaks is not None else None
    if why_not:
        log.notice(why_not)
        view.inline, view.notes = 0, [why_not, *notes]
        return finish(ctx, log, result, view, annotate=result.findings, census_gate=gate)

    # SARIF and outputs before any write, so findings are never lost; the job summary only after the
    # attempt, so its count of inline comments is what reached the pull request, not what was planned.
    exit_code = finish(replace(ctx, summary_file=None), log, result, view, census_gate=gate)
    posting = Posting()
    try:
        posting = _post(repo, state, prepared, log)
    finally:
        view.inline = len(plan.already_commented) + len(posting.inline)
        append_summary(ctx.summary_file, summary_markdown(view))
    on_pr = {id(f) for f in plan.already_commented}
    on_pr |= {id(c.finding) for c in plan.new_comments if c.key in posting.inline}
    rest = [f for f in result.findings if id(f) not in on_pr]
    if posting.problems:
        # Say what did not make it to the pull request.
        append_summary(ctx.summary_file, "\n".join(
            [f"> **Not everything was posted.** {p}." for p in posting.problems]
            + [f"> {len(rest)} finding(s) are reported as annotations instead."]))
    count = log.annotations(rest)
    log.info(f"{len(result.findings)} finding(s): {len(posting.inline) + len(plan.already_commented)} "
             f"commented on the pull request, {count} as annotations")
    return EXIT_ERROR if posting.fatal else exit_code


def read_pull_request(repo: Repository, number: int, bot: BotIdentity) -> PullRequestState:
    pr = repo.get_pull(number)
    every = list(pr.get_files())
    # A pull request's own count says how many it changes; the list stops at GitHub's cap.
    unlisted = max(0, (pr.changed_files or 0) - len(every))
    files = [f for f in every if f.filename.endswith(".py") and f.status != "removed"]
    gone = sorted(
        (f.previous_filename if f.status == "renamed" else f.filename) or "" for f in every
        if f.status in ("removed", "renamed")
    )
    renamed = {f.filename: f.previous_filename for f in files
               if f.status == "renamed" and f.previous_filename and f.previous_filename.endswith(".py")}
    return PullRequestState(
        bot=bot, pr=pr, head_sha=pr.head.sha, draft=bool(pr.draft), python_files=files, renamed=renamed,
        review_comments=list(pr.get_review_comments()), issue_comments=list(pr.get_issue_comments()),
        gone=tuple(path for path in gone if path.endswith(".py")), unlisted=unlisted,
    )


def _has_bot_comments(state: PullRequestState) -> bool:
    return any(is_summary(c.body) for c in _own(state, state.issue_comments)) or any(
        parse_finding_marker(c.body) for c in _own(state, state.review_comments))


def _own(state: PullRequestState, comments: Sequence[CommentT]) -> list[CommentT]:
    """The comments the bot wrote itself: the only ones whose markers count."""
    return [c for c in comments if state.bot.wrote(c.user)]


def _why_not_post(ctx: ActionContext, state: PullRequestState, payload_pr: dict[str, Any]) -> str:
    """Why this run reports by annotations only, or "" when it posts a review."""
    if not ctx.inputs.comment:
        return "`comment: false`: findings are reported as annotations, job summary and SARIF only"
    if state.draft:
        return ("pull request is a draft: findings are annotations only; the review is posted when it is "
                "marked ready for review")
    payload_sha = (payload_pr.get("head") or {}).get("sha")
    if payload_sha and payload_sha != state.head_sha:
        return (f"the pull request has moved on ({payload_sha[:7]} -> {state.head_sha[:7]}): annotations only; "
                "the run for the newer commit posts the review")
    return ""


def _post(repo: Repository, state: PullRequestState, prepared: PreparedReview, log: Log) -> Posting:
    """The review, then the clean-up of stale comments, then the summary comment.

    A step that fails is reported and the next one still runs, except when the token cannot
    write at all (401, or 403 other than a rate limit): then the rest would fail the same way.
    """
    plan, view = prepared.plan, prepared.view
    posting = Posting()
    by_id = {c.id: c for c in state.review_comments}

    def post_review() -> None:
        if plan.new_comments:
            state.pr.create_review(
                commit=repo.get_commit(state.head_sha),
                body=prepared.body,
                event="COMMENT",
                comments=[c.as_api() for c in plan.new_comments],
            )
            posting.inline = {c.key for c in plan.new_comments}

    def clean_up() -> None:
        for comment_id in plan.delete:
            by_id[comment_id].delete()
        for comment_id, body in plan.resolve:
            by_id[comment_id].edit(body)

    def resolve() -> None:
        try:
            resolve_threads(repo, state.pr.number, [comment_id for comment_id, _ in plan.resolve])
        except API_ERRORS as error:  # the comments say "Resolved" already; folding them is a nicety
            log.info(describe(error, "resolving the conversations of fixed graph breaks"))

    def summarise() -> None:
        view.inline = len(plan.already_commented) + len(posting.inline)
        _upsert_summary(state, summary_comment(view), view.worth_posting)

    steps: list[tuple[str, Callable[[], None]]] = [
        ("posting the review", post_review),
        ("removing comments whose graph break is gone", clean_up),
        ("updating the summary comment", summarise),
        ("resolving the conversations of fixed graph breaks", resolve),
    ]
    for doing, step in steps:
        try:
            step()
        except API_ERRORS as error:
            status = status_of(error)
            message = describe(error, doing)
            posting.problems.append(message)
            if status == 403 and "rate limit" not in message.lower():
                log.notice(f"{message}. This is expected for pull requests from forks: the findings are in the "
                           "annotations, the job summary and the SARIF file instead. See the two-workflow "
                           "pattern in docs/github-action.md to comment on fork pull requests.")
                break
            if status == 401:
                log.error(message)
                posting.fatal = True
                break
            log.warning(f"{message}; the findings are in the annotations, the job summary and the SARIF file")
    return posting


def _upsert_summary(state: PullRequestState, body: str, has_findings: bool) -> None:
    """One summary comment (`body` ends with its marker), found by the marker and edited in place; extra copies are removed."""
    ours = [c for c in _own(state, state.issue_comments) if is_summary(c.body)]
    if not ours:
        if has_findings:
            state.pr.create_issue_comment(body)
        return
    first, *extra = ours
    if (first.body or "") != body:
        first.edit(body)
    for comment in extra:
        comment.delete()

