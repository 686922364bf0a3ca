"""`/graphmend ...` commands in pull-request comments (`issue_comment` events).

The comment is untrusted text: it is parsed into a fixed set of commands and flags, and nothing
from it reaches a shell, a git command or a file name. Only users with write access are obeyed,
asked of the collaborator-permission API (`author_association` is not authorization: a MEMBER may
have read access only, and a private organisation member with write access shows as CONTRIBUTOR).
Every command is acknowledged with a reaction and answered with a reply; the bot never reacts to
its own comments (known by their author, the account its token acts as, never by the text).
`/graphmend accept-breaks` commits the census as the budget (accept_breaks.py).
`/graphmend verify` applies the GPU workflow's own rule (gate.py) before it dispatches anything, so
the reply says what that workflow will do: verify GraphMend's fix pull request, or refuse and why.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

from github import GithubException
from github.IssueComment import IssueComment
from github.PullRequest import PullRequest
from github.Repository import Repository

from graphmend_bot.config import Config, ConfigError
from graphmend_bot.exit_codes import EXIT_CLEAN, EXIT_ERROR
from graphmend_bot.fences import code_span
from graphmend_bot.github.accept_breaks import accept_breaks
from graphmend_bot.github.approval.gate import DEFAULT_BOT_LOGIN, PullFacts, refusal
from graphmend_bot.github.core.api import API_ERRORS, connect, describe
from graphmend_bot.github.core.archive import ArchiveError, download_head
from graphmend_bot.github.core.context import ActionContext
from graphmend_bot.github.core.identity import ACTIONS_BOT, BotIdentity, resolve_identity
from graphmend_bot.github.core.markers import REPLY_MARKER
from graphmend_bot.github.core.outputs import Log
from graphmend_bot.github.fixes.fixing import Refused, fix_pull_request, is_fork
from graphmend_bot.github.review.analyse import analyse, load_action_config, read_sources
from graphmend_bot.github.review.pull_request import read_pull_request, review
from graphmend_bot.report.untrusted_text import markdown_text

PREFIX = "/graphmend"
# `permission` of the collaborator-permission API is admin, write, read or none: the maintain role
# reports write and triage reports read (the finer `role_name` is not needed to decide).
WRITE_PERMISSIONS = frozenset({"admin", "write"})
COMMANDS: dict[str, frozenset[str]] = {  # command -> the flags it takes
    "fix": frozenset({"--push"}),
    "scan": frozenset(),
    "verify": frozenset(),
    "accept-breaks": frozenset(),
    "help": frozenset(),
}

HELP = """GraphMend commands (comment on a pull request; users with write access to the repository only):

| Command | What it does |
|---|---|
| `/graphmend fix` | open or update the fix pull request with the safe rewrites for this pull request |
| `/graphmend fix --push` | commit the safe rewrites to this pull request's branch instead (not for forks) |
| `/graphmend scan` | check this pull request again and update the review and the summary comment |
| `/graphmend verify` | run the GPU verification workflow on this pull request (not for forks) |
| `/graphmend accept-breaks` | commit this pull request's census as the graph-break budget `graphmend-breaks.json` to its branch (not for forks); it counts once merged |
| `/graphmend help` | show this help |"""


@dataclass(frozen=True)
class Command:
    name: str  # one of COMMANDS, or "" when the text after /graphmend is not a command
    flags: frozenset[str]
    text: str  # the command line as written (for the reply; shown as code, never executed)
    problem: str = ""  # why the command is not understood


def parse_command(body: str | None) -> Command | None:
    """The first line starting with `/graphmend`, or None when the comment has none."""
    for raw in (body or "").splitlines():
        line = raw.strip()
        words = line.split()
        if not words or words[0] != PREFIX:
            continue
        text = line[:200]
        if len(words) == 1:
            return Command("help", frozenset(), text)
        name, args = words[1].lower(), words[2:]
        if name not in COMMANDS:
            return Command("", frozenset(), text, f"{code_span(words[1][:40])} is not a GraphMend command")
        unknown = [a for a in args if a not in COMMANDS[name]]
        if unknown:
            return Command("", frozenset(), text, f"`/graphmend {name}` does not take {code_span(unknown[0][:40])}")
        return Command(name, frozenset(args), text)
    return None


def permission_of(repo: Repository, login: str) -> str:
    """The user's permission on the repository: admin, write, read or none (not a collaborator)."""
    try:
        return repo.get_collaborator_permission(login)
    except GithubException as error:
        if error.status == 404:  # GitHub's answer for someone who is not a collaborator
            return "none"
        raise


def handle_comment(ctx: ActionContext, log: Log) -> int:
    event = ctx.event
    action = str(event.get("action", ""))
    comment = event.get("comment") if isinstance(event.get("comment"), dict) else None
    issue = event.get("issue") if isinstance(event.get("issue"), dict) else None
    if comment is None or issue is None:
        log.error("the issue_comment event has no comment or issue")
        return EXIT_ERROR
    if action != "created":
        log.info(f"issue_comment {action!r}: only new comments are read for commands")
        return EXIT_CLEAN
    if str((comment.get("user") or {}).get("login", "")).lower() == ACTIONS_BOT:
        log.info("the comment is GitHub Actions' own: ignored")
        return EXIT_CLEAN
    command = parse_command(comment.get("body"))
    if command is None:
        log.info("no /graphmend command in the comment")
        return EXIT_CLEAN
    if not isinstance(issue.get("pull_request"), dict):
        log.info("the comment is on an issue, not a pull request: commands work on pull requests")
        return EXIT_CLEAN
    number, comment_id = issue.get("number"), comment.get("id")
    if not isinstance(number, int) or not isinstance(comment_id, int):
        log.error("the issue_comment event has no issue number or comment id")
        return EXIT_ERROR
    if not ctx.inputs.token:
        log.error("no GitHub token: pass `github-token` to the action to answer commands")
        return EXIT_ERROR
    try:
        client = connect(ctx.api_url, ctx.inputs.token)
        repo = client.get_repo(ctx.repository)
        pr = repo.get_pull(number)
        posted = repo.get_issue(number).get_comment(comment_id)
        bot = resolve_identity(client, ctx.inputs.bot_login, log.warning)
        if bot.wrote(posted.user):
            log.info("the comment is the bot's own: ignored")
            return EXIT_CLEAN
        user = posted.user.login if posted.user else ""  # the author as the API says, not the payload
        permission = permission_of(repo, user) if user else "none"
    except API_ERRORS as error:
        log.error(describe(error, f"reading the comment on #{number} and its author's permission"))
        return EXIT_ERROR
    if permission not in WRITE_PERMISSIONS:
        log.notice(f"/graphmend from @{user} ({permission} access) ignored: only users with write access may run it")
        return _answer(posted, pr, command, "-1", f"Sorry @{user}, only users with write access to the repository "
                       "(write, maintain or admin) can run GraphMend commands.", log, ok=True)
    _react(posted, "eyes", log)
    try:
        ok, text = _run(ctx, repo, pr, command, log, bot)
    except ConfigError as error:
        ok, text = False, f"The GraphMend configuration in this pull request is invalid: {markdown_text(str(error))}"
    except ArchiveError as error:
        ok, text = False, f"The bot could not read this pull request's files: {markdown_text(str(error))}."
    except API_ERRORS as error:
        ok, text = False, markdown_text(describe(error, f"`{command.name}`"))
    return _answer(posted, pr, command, "+1" if ok else "confused", text, log, ok)


def _run(ctx: ActionContext, repo: Repository, pr: PullRequest, command: Command, log: Log,
         bot: BotIdentity) -> tuple[bool, str]:
    log.info(f"/graphmend {command.name} {' '.join(sorted(command.flags))} on #{pr.number}".rstrip())
    if command.name == "help":
        return True, HELP
    if not command.name:
        return False, f"{command.problem}.\n\n{HELP}"
    if command.name == "verify":
        return _verify(ctx, repo, pr, bot)
    if pr.state != "open":
        return False, f"#{pr.number} is {pr.state}."
    if command.name == "accept-breaks":
        return accept_breaks(ctx, repo, pr)
    with tempfile.TemporaryDirectory(prefix="graphmend-pr-") as scratch:
        workspace = download_head(repo, pr.head.sha, Path(scratch))
        head_ctx = replace(ctx, workspace=workspace, inputs=replace(ctx.inputs, sarif_file=str(
            Path(scratch) / "graphmend.sarif")))
        config = load_action_config(head_ctx)
        if command.name == "fix":
            try:
                return True, fix_pull_request(head_ctx, config, log, repo, pr, bot, push="--push" in command.flags,
                                              announce=False)
            except Refused as refused:
                return False, str(refused)
        return True, _scan(head_ctx, config, repo, pr, log, bot)


def _scan(ctx: ActionContext, config: Config, repo: Repository, pr: PullRequest, log: Log, bot: BotIdentity) -> str:
    state = read_pull_request(repo, pr.number, bot)
    changed = [f.filename for f in state.python_files]
    result = analyse(ctx, config, log, only=changed) if changed else None
    if result is None:
        return "This pull request changes no Python files: nothing to check."
    review(ctx, repo, state, result, read_sources(changed, ctx.workspace), log)
    fixable = sum(1 for f in result.findings if f.fix and f.fix.applicability == "safe")
    return (f"Checked {len(changed)} changed Python file(s) at `{state.head_sha[:7]}`: "
            f"{len(result.findings)} graph break(s), {fixable} with a safe rewrite. The review and the summary "
            "comment are up to date.")


def _verify(ctx: ActionContext, repo: Repository, pr: PullRequest, bot: BotIdentity) -> tuple[bool, str]:
    """Dispatch the GPU workflow only for a pull request its preflight job will pass: the reply
    never says verification started when the workflow would refuse at once."""
    if is_fork(pr, ctx.repository):
        return False, ("GPU verification runs only for pull requests from branches of this repository, never for "
                       "forks: it executes the pull request's code on a self-hosted runner.")
    reason = refusal(PullFacts.read(pr), ctx.repository, bot.login or DEFAULT_BOT_LOGIN)
    if reason is not None:
        return False, (f"GPU verification was not started: {markdown_text(reason)}. It runs only on GraphMend's own fix "
                       "pull requests, which the bot dispatches itself when it opens or updates one; "
                       "`/graphmend fix` opens the one for this pull request.")
    workflow = repo.get_workflow(ctx.inputs.verify_workflow)
    workflow.create_dispatch(repo.default_branch, {"pull-request": str(pr.number)}, throw=True)
    return True, (f"Started the GPU verification workflow `{ctx.inputs.verify_workflow}` for `{pr.head.sha[:7]}`; "
                  "it posts its results table and approves or requests changes when it finishes.")


def _react(comment: IssueComment, content: str, log: Log) -> None:
    try:
        comment.create_reaction(content)
    except API_ERRORS as error:
        log.warning(describe(error, "reacting to the command"))


def _answer(comment: IssueComment, pr: PullRequest, command: Command, reaction: str, text: str, log: Log,
            ok: bool) -> int:
    _react(comment, reaction, log)
    quoted = f"> {code_span(command.text)}"
    try:
        pr.create_issue_comment(f"{quoted}\n\n{text}\n\n{REPLY_MARKER}")
    except API_ERRORS as error:
        log.error(describe(error, "replying to the command"))
        return EXIT_ERROR
    (log.info if ok else log.warning)(text.splitlines()[0])
    return EXIT_CLEAN

