"""Scheduled and manual scans (`schedule`, `workflow_dispatch`): the whole default branch.

One tracking issue, found again by a hidden marker and edited in place: findings by rule and by
file, and what changed since the last scan (a snapshot of counts and fingerprints is kept in the
issue itself). Closed when nothing is left, reopened when breaks come back. Optionally a fix pull
request against the default branch. With `shard: i/N` a matrix job checks one shard and writes its
result file; with `shard-results` the merge job combines them into one report and one SARIF.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from urllib.parse import quote

from github.Issue import Issue
from github.Repository import Repository

from graphmend_bot.analysis.files import discover
from graphmend_bot.config import Config
from graphmend_bot.exit_codes import EXIT_CLEAN, EXIT_ERROR
from graphmend_bot.fences import code_span
from graphmend_bot.findings import CheckResult, Finding
from graphmend_bot.github.core.api import API_ERRORS, connect, describe
from graphmend_bot.github.core.body_budget import GITHUB_BODY_LIMIT, body_size, lines_fitting
from graphmend_bot.github.core.census_input import with_census, workspace_commit
from graphmend_bot.github.core.context import ActionContext, ActionError
from graphmend_bot.github.core.identity import BotIdentity, resolve_identity
from graphmend_bot.github.core.markers import TRACKING_MARKER, tracking_lines
from graphmend_bot.github.core.outputs import Log, write_outputs
from graphmend_bot.github.core.results import finish
from graphmend_bot.github.fixes.fixing import fix_default_branch
from graphmend_bot.github.review.analyse import analyse
from graphmend_bot.github.review.plan import finding_keys
from graphmend_bot.report.markdown import SummaryView
from graphmend_bot.report.untrusted_text import markdown_text
from graphmend_bot.rules import ALL_RULES_BY_CODE
from graphmend_bot.shards import (
    ShardError,
    dump_result,
    merge_shards,
    parse_shard,
    shard_files,
    shard_paths,
)

TITLE = "GraphMend: torch.compile graph breaks in {branch}"
MAX_ROWS = 100
MAX_KEY_CHARS = 30_000  # fingerprints kept for "new / fixed since the last scan": all of them or none
MAX_TRACKING_BODY = GITHUB_BODY_LIMIT - 5_536
_MORE_LINES = 100  # the "... more" rows of the two tables
_SNAPSHOT = re.compile(r"<!-- graphmend:snapshot (?P<json>\{.*?\}) -->", re.S)


@dataclass
class Snapshot:
    """What the last scan saw, kept in the issue body."""

    sha: str = ""
    total: int = 0
    by_rule: dict[str, int] = field(default_factory=dict)
    keys: list[str] = field(default_factory=list)

    def render(self) -> str:
        data = {"sha": self.sha, "total": self.total, "by_rule": self.by_rule, "keys": self.keys}
        return f"<!-- graphmend:snapshot {json.dumps(data, separators=(',', ':'), sort_keys=True)} -->"


def snapshot_of(findings: Sequence[Finding], sha: str) -> Snapshot:
    keys = sorted(finding_keys(findings))
    fits = len(json.dumps(keys, separators=(",", ":"))) <= MAX_KEY_CHARS  # a part of them would count wrong
    return Snapshot(sha, len(findings), dict(sorted(Counter(f.code for f in findings).items())),
                    keys if fits else [])


def parse_snapshot(body: str | None) -> Snapshot | None:
    """The snapshot on the body's last line, where tracking_body writes it."""
    match = _SNAPSHOT.fullmatch(tracking_lines(body)[1])
    if match is None:
        return None
    try:
        data = json.loads(match["json"])
        return Snapshot(str(data["sha"]), int(data["total"]), {str(k): int(v) for k, v in data["by_rule"].items()},
                        [str(k) for k in data["keys"]])
    except (json.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError):
        return None


def _delta(value: int) -> str:
    return f"+{value}" if value > 0 else str(value) if value < 0 else "0"


def change_lines(now: Snapshot, before: Snapshot | None) -> list[str]:
    if before is None:
        return ["First scan."]
    lines = [f"Since the last scan (`{before.sha[:7] or '?'}`): {before.total} -> {now.total} "
             f"({_delta(now.total - before.total)})."]
    if now.keys and before.keys:
        new, gone = len(set(now.keys) - set(before.keys)), len(set(before.keys) - set(now.keys))
        lines.append(f"{new} new, {gone} fixed or gone.")
    return lines


def tracking_body(result: CheckResult, now: Snapshot, before: Snapshot | None, branch: str, blob_url: str,
                  run_url: str = "", notes: Sequence[str] = ()) -> str:
    """The tracking issue's body: totals, change since last scan, by rule, by file; `notes` (what
    became of a census) under the totals. Within MAX_TRACKING_BODY (GitHub refuses a longer one):
    the by-file rows go first, then the by-rule rows; the marker and snapshot lines are always last."""
    findings = result.findings
    fixable = sum(1 for f in findings if f.fix and f.fix.applicability == "safe")
    head = [f"GraphMend scanned `{branch}` at `{now.sha[:7]}`: **{len(findings)} graph break(s)** in "
            f"{len({f.path for f in findings})} file(s) ({result.files_checked} checked), {fixable} with a safe "
            "rewrite.", "", *change_lines(now, before), ""]
    if run_url:
        head += [f"Scan run: {run_url}", ""]
    head += [line for note in notes for line in (f"> {note}", "")]
    tail = ["", "<sub>Updated in place by every scheduled GraphMend scan. `graphmend check` shows the details "
            "locally.</sub>", TRACKING_MARKER, now.render()]
    if not findings:
        return "\n".join([*head, "No graph breaks left. This issue is closed and reopens if breaks come back.",
                          *tail]) + "\n"
    rule_rows = _rule_rows(findings, before.by_rule if before else {})
    by_file: dict[str, list[Finding]] = {}
    for finding in findings:
        by_file.setdefault(finding.path, []).append(finding)
    ordered = sorted(by_file.items(), key=lambda item: (-len(item[1]), item[0]))
    file_rows = [f"| [{code_span(path)}]({blob_url}/{quote(path)}) | {len(found)} | "
                 f"{', '.join(sorted({f.code for f in found}))} |" for path, found in ordered[:MAX_ROWS]]
    titles = ["### By rule", "", "| Rule | Count | Change |", "|---|---:|---:|",
              "", "### By file", "", "| File | Count | Rules |", "|---|---:|---|"]
    room = MAX_TRACKING_BODY - body_size([*head, *titles, *tail]) - _MORE_LINES
    shown_rules = lines_fitting(rule_rows, room)
    shown_files = lines_fitting(file_rows, room - body_size(rule_rows[:shown_rules]))
    lines = [*head, *titles[:4], *rule_rows[:shown_rules]]
    if shown_rules < len(rule_rows):
        lines.append(f"| ... {len(rule_rows) - shown_rules} more rule(s) | | |")
    lines += [*titles[4:], *file_rows[:shown_files]]
    if shown_files < len(ordered):
        lines.append(f"| ... {len(ordered) - shown_files} more file(s) | | |")
    return "\n".join([*lines, *tail]) + "\n"


def _rule_rows(findings: Sequence[Finding], previous: dict[str, int]) -> list[str]:
    """One row per rule with findings now or at the last scan: its count and the change."""
    rows = []
    for code, count in sorted(Counter(f.code for f in findings).items()):
        rule = ALL_RULES_BY_CODE.get(code)
        name = f" {rule.name}" if rule else ""
        rows.append(f"| **{code}**{markdown_text(name)} | {count} | {_delta(count - previous.get(code, 0))} |")
    for code in sorted(set(previous) - {f.code for f in findings}):
        rows.append(f"| **{code}** | 0 | {_delta(-previous[code])} |")
    return rows


def find_tracking_issue(repo: Repository, bot: BotIdentity) -> Issue | None:
    """The bot's own issue with the tracking marker: issues by anyone else are never adopted (and
    with the bot's login unknown, none is)."""
    if not bot.login:
        return None
    for issue in repo.get_issues(state="all", sort="created", direction="asc"):
        if issue.pull_request is None and bot.wrote(issue.user) and tracking_lines(issue.body)[0]:
            return issue
    return None


def update_tracking_issue(repo: Repository, bot: BotIdentity, result: CheckResult, sha: str, branch: str,
                          blob_url: str, run_url: str, log: Log, notes: Sequence[str] = ()) -> str:
    issue = find_tracking_issue(repo, bot)
    before = parse_snapshot(issue.body) if issue is not None else None
    now = snapshot_of(result.findings, sha)
    body = tracking_body(result, now, before, branch, blob_url, run_url, notes)
    title = TITLE.format(branch=branch)
    if issue is None:
        if not result.findings:
            return "no graph breaks and no tracking issue: nothing to open"
        issue = repo.create_issue(title=title, body=body)
        return f"opened tracking issue #{issue.number}"
    if result.findings:
        issue.edit(title=title, body=body, state="open")
        return f"updated tracking issue #{issue.number}"
    issue.edit(title=title, body=body, state="closed", state_reason="completed")
    return f"no graph breaks left: closed tracking issue #{issue.number}"


def _check(ctx: ActionContext, config: Config, log: Log) -> CheckResult:
    if ctx.inputs.shard_results:
        os.chdir(ctx.workspace)
        paths = shard_paths(ctx.inputs.shard_results.split())
        log.info(f"merging {len(paths)} shard result(s)")
        return merge_shards(paths)
    return analyse(ctx, config, log)


def _checked_files(ctx: ActionContext, config: Config) -> list[str]:
    """The files a whole-tree check reports on (as it shows them), for breaks only Dynamo saw."""
    if not ctx.inputs.census_file:
        return []
    os.chdir(ctx.workspace)
    return [file.path for file in discover(ctx.inputs.paths, config.exclude, config.folder)[0]]


def run_shard(ctx: ActionContext, config: Config, log: Log) -> int:
    """One matrix job: check one shard, write its result file (the merge job reports)."""
    index, count = parse_shard(ctx.inputs.shard)
    os.chdir(ctx.workspace)
    files = shard_files(ctx.inputs.paths, config, index, count)
    result = analyse(ctx, config, log, only=files)
    name = f"graphmend-shard-{index}-of-{count}.json"
    (ctx.workspace / name).write_text(json.dumps(dump_result(result, f"{index}/{count}", files)), encoding="utf-8")
    write_outputs(ctx.output_file, {"shard-file": name, "findings": str(len(result.findings))})
    log.info(f"shard {index}/{count}: {len(files)} file(s), {len(result.findings)} finding(s) -> {name}")
    return EXIT_CLEAN


def scheduled_scan(ctx: ActionContext, config: Config, log: Log) -> int:
    try:
        if ctx.inputs.shard:
            return run_shard(ctx, config, log)
        result = _check(ctx, config, log)
    except ShardError as error:
        raise ActionError(str(error)) from None
    sha = ctx.sha
    scanned = sha or (workspace_commit(ctx.workspace) if ctx.inputs.census_file else "")
    census = with_census(ctx, config, result, scanned, _checked_files(ctx, config), log)
    result = census.result
    notes = [census.note] if census.note else []
    view = SummaryView(result.findings, result.errors, result.files_checked, changed_files=result.files_checked, baselined=result.baselined,
                       head_sha=sha, notes=list(notes))
    log.info(f"checked {result.files_checked} file(s): {len(result.findings)} finding(s)")
    code = finish(ctx, log, result, view, annotate=result.findings)
    if not ctx.inputs.token or not (ctx.inputs.tracking_issue or ctx.inputs.fix_pr):
        return code
    try:
        client = connect(ctx.api_url, ctx.inputs.token)
        repo = client.get_repo(ctx.repository)
        branch = repo.default_branch
        sha = sha or repo.get_branch(branch).commit.sha
    except API_ERRORS as error:
        log.error(describe(error, f"reading {ctx.repository}"))
        return EXIT_ERROR
    run_id = os.environ.get("GITHUB_RUN_ID", "")
    run_url = f"{ctx.server_url}/{ctx.repository}/actions/runs/{run_id}" if run_id.isdigit() else ""
    # Whose tracking issue and fix pull request these are: the token's account (no API call when unused).
    writes = ctx.inputs.tracking_issue or ctx.inputs.fix_pr
    bot = resolve_identity(client, ctx.inputs.bot_login, log.warning) if writes else BotIdentity()
    if ctx.inputs.tracking_issue:
        try:
            log.info(update_tracking_issue(repo, bot, result, sha, branch, f"{ctx.server_url}/{ctx.repository}/blob/{sha}",
                                           run_url, log, notes))
        except API_ERRORS as error:
            log.error(describe(error, "updating the tracking issue", needs="`issues: write`"))
            code = EXIT_ERROR
    if ctx.inputs.fix_pr:
        try:
            log.info(fix_default_branch(ctx, config, log, repo, bot))
        except API_ERRORS as error:
            log.error(describe(error, "opening the fix pull request", needs="`contents: write` and `pull-requests: write`"))
            code = EXIT_ERROR
    return code
