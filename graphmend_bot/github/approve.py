"""GPU-verified approval: `graphmend approve`, run by `verify/action.yml` on a self-hosted runner.

It runs `graphmend verify` on the pull request's head (the checkout) against its base, posts the
results table, and submits APPROVE only when, for every entry point, the graph count did not rise
and the outputs are equal, and at least one graph break went away; otherwise REQUEST_CHANGES with
the reasons. Pull requests from forks are refused before anything runs: verification executes the
pull request's code.

`decide` is the whole policy: a pure function over the JSON of `graphmend verify --json`.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from github import GithubException
from github.PullRequest import PullRequest

from graphmend_bot.github.api import API_ERRORS, connect, describe
from graphmend_bot.github.context import ActionContext, ActionError, read_context
from graphmend_bot.github.fix_pr import with_verification
from graphmend_bot.github.fixing import is_fork
from graphmend_bot.github.markers import FIX_PR_MARKER, VERIFY_MARKER
from graphmend_bot.github.outputs import Log, append_summary, write_outputs
from graphmend_bot.report.markdown import cell

APPROVE, REQUEST_CHANGES = "APPROVE", "REQUEST_CHANGES"
EXIT_APPROVED, EXIT_CHANGES, EXIT_ERROR = 0, 1, 2
OWN_PR_HELP = (
    "GitHub does not let an account approve or request changes on its own pull request. Run the GPU job "
    "with a different identity than the one that opened the fix pull request: fix pull requests opened "
    "with a GitHub App token, verification with the workflow's GITHUB_TOKEN (and \"Allow GitHub Actions to "
    "create and approve pull requests\" enabled in the repository settings)."
)


@dataclass(frozen=True)
class Decision:
    event: str  # APPROVE or REQUEST_CHANGES
    reasons: list[str] = field(default_factory=list)  # why changes are requested
    removed: int = 0  # graph breaks that went away, over all entry points

    @property
    def approved(self) -> bool:
        return self.event == APPROVE


def _count(arm: Mapping[str, Any], key: str) -> int | None:
    value = arm.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def decide(report: Mapping[str, Any]) -> Decision:
    """APPROVE iff every entry point ran, no graph count rose, every output is equal, and at
    least one graph break went away; else REQUEST_CHANGES with one reason per problem."""
    entries = report.get("entry_points")
    if not isinstance(entries, list) or not entries:
        return Decision(REQUEST_CHANGES, ["no entry point was verified: list them under `verify: entry-points:` "
                                          "in the configuration"])
    reasons: list[str] = []
    removed = 0
    for entry in entries:
        name = str(entry.get("name", "?")) if isinstance(entry, dict) else "?"
        if not isinstance(entry, dict):
            reasons.append("a malformed entry in the verify report")
            continue
        arms: dict[str, Mapping[str, Any]] = {}
        for arm in ("original", "rewritten"):
            data = entry.get(arm)
            arms[arm] = data if isinstance(data, dict) else {}
        failed = [f"{arm} arm failed: {data.get('error') or 'no result'}" for arm, data in arms.items()
                  if data.get("ok") is not True]
        if failed:
            reasons += [f"`{name}`: {text}" for text in failed]
            continue
        original, rewritten = arms["original"], arms["rewritten"]
        graphs = (_count(original, "graph_count"), _count(rewritten, "graph_count"))
        breaks = (_count(original, "graph_break_count"), _count(rewritten, "graph_break_count"))
        if graphs[0] is None or graphs[1] is None or breaks[0] is None or breaks[1] is None:
            reasons.append(f"`{name}`: graph counts are missing from the report")
            continue
        if graphs[1] > graphs[0]:
            reasons.append(f"`{name}`: the graph count rose from {graphs[0]} to {graphs[1]}")
        if breaks[1] > breaks[0]:
            reasons.append(f"`{name}`: graph breaks rose from {breaks[0]} to {breaks[1]}")
        removed += max(0, breaks[0] - breaks[1])
        if entry.get("outputs_equal") is not True:
            detail = "; ".join(str(r) for r in entry.get("reasons") or [] if "outputs" in str(r))
            reasons.append(f"`{name}`: outputs are not equivalent" + (f" ({detail})" if detail else ""))
    if removed == 0 and not reasons:
        reasons.append("no graph break went away on any entry point")
    return Decision(REQUEST_CHANGES if reasons else APPROVE, reasons, removed)


def _seconds(value: Any) -> str:
    if not isinstance(value, int | float):
        return "-"
    return f"{value:.2f} s" if value >= 1 else f"{value * 1e3:.2f} ms" if value >= 1e-3 else f"{value * 1e6:.1f} us"


def _speedup(value: Any) -> str:
    return f"{value:.2f}x" if isinstance(value, int | float) else "-"


def _pair(entry: Mapping[str, Any], key: str) -> str:
    values = [(entry.get(arm) or {}).get(key) for arm in ("original", "rewritten")]
    return " -> ".join("-" if v is None else str(v) for v in values)


def results_table(report: Mapping[str, Any]) -> str:
    """The verify results as a Markdown table (from the JSON the GPU job produced)."""
    lines = ["| Entry point | Graphs | Breaks | Cold start | Speedup | Steady state | Speedup | Outputs | Verdict |",
             "|---|---|---|---|---|---|---|---|---|"]
    for entry in report.get("entry_points") or []:
        if not isinstance(entry, dict):
            continue
        o, r = entry.get("original") or {}, entry.get("rewritten") or {}
        equal = entry.get("outputs_equal")
        outputs = "equal" if equal is True else "DIFFER" if equal is False else "-"
        device = o.get("device") or r.get("device") or "-"
        lines.append(
            f"| `{cell(str(entry.get('name', '?')))}` ({cell(str(device))}) | {_pair(entry, 'graph_count')} | "
            f"{_pair(entry, 'graph_break_count')} | {_seconds(o.get('cold_start_s'))} -> "
            f"{_seconds(r.get('cold_start_s'))} | {_speedup(entry.get('cold_start_speedup'))} | "
            f"{_seconds(o.get('steady_state_s'))} -> {_seconds(r.get('steady_state_s'))} | "
            f"{_speedup(entry.get('steady_state_speedup'))} | {outputs} | {cell(str(entry.get('verdict', '-')))} |")
    return "\n".join(lines)


def review_body(report: Mapping[str, Any] | None, decision: Decision, head_sha: str) -> str:
    verdict = (f":white_check_mark: **Verified on a GPU**: {decision.removed} graph break(s) removed, no graph "
               "count rose, every output equal." if decision.approved
               else ":x: **Not approved.** " + " ".join(f"{reason}." for reason in decision.reasons))
    parts = [f"### GraphMend GPU verification of `{head_sha[:7]}`", "", verdict, ""]
    if report is not None:
        original, rewritten = report.get("original") or {}, report.get("rewritten") or {}
        parts += [f"Original: `{cell(str(original.get('label', 'base')))}`; rewritten: "
                  f"`{cell(str(rewritten.get('label', 'head')))}`. Speedup = original / rewritten.", "",
                  results_table(report), ""]
    parts.append(VERIFY_MARKER)
    return "\n".join(parts) + "\n"


# -- running it -----------------------------------------------------------------------------------
def pull_number(ctx: ActionContext, given: int | None) -> int:
    if given is not None:
        return given
    event = ctx.event
    pull = event.get("pull_request")
    if isinstance(pull, dict) and isinstance(pull.get("number"), int):
        return int(pull["number"])
    inputs = event.get("inputs")
    raw = str(inputs.get("pull-request", "")) if isinstance(inputs, dict) else ""
    if raw.isdigit():
        return int(raw)
    raise ActionError("which pull request? pass --pull-request N, or run on pull_request or on workflow_dispatch "
                      "with a `pull-request` input")


def _git_head(directory: Path) -> str:
    done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=directory, capture_output=True, text=True, check=False)
    return done.stdout.strip() if done.returncode == 0 else ""


def run_verify(base_sha: str, passthrough: Sequence[str], directory: Path, output: Path) -> str:
    """`graphmend verify --against BASE --json` as its own process; "" or why it produced nothing."""
    command = [sys.executable, "-m", "graphmend_bot.cli", "verify", "--against", base_sha, "--json",
               "--output-file", str(output), "--quiet", *passthrough]
    done = subprocess.run(command, cwd=directory, capture_output=True, text=True, check=False)
    sys.stderr.write(done.stderr)
    if output.is_file():
        return ""
    tail = " ".join(done.stderr.strip().splitlines()[-3:]) or f"exit status {done.returncode}"
    return f"`graphmend verify` produced no report: {tail}"


def _load(path: Path) -> tuple[dict[str, Any] | None, str]:
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        return None, f"cannot read the verify report {path}: {error}"
    return (data, "") if isinstance(data, dict) else (None, f"{path} is not a verify report")


def approve(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    log = Log()
    try:
        ctx = read_context(env)
        number = pull_number(ctx, args.pull_request)
    except ActionError as error:
        log.error(f"graphmend approve: {error}")
        return EXIT_ERROR
    if not ctx.inputs.token:
        log.error("graphmend approve: no token (set GITHUB_TOKEN or INPUT_GITHUB-TOKEN)")
        return EXIT_ERROR
    try:
        repo = connect(ctx.api_url, ctx.inputs.token).get_repo(ctx.repository)
        pr = repo.get_pull(number)
        fork = is_fork(pr, ctx.repository)
    except API_ERRORS as error:
        log.error(describe(error, f"reading pull request #{number}"))
        return EXIT_ERROR
    if fork:
        log.error(f"#{number} comes from a fork: GPU verification never runs code from forks")
        return EXIT_ERROR
    if pr.state != "open":
        log.info(f"#{number} is {pr.state}: nothing to verify")
        return EXIT_APPROVED  # nothing to do is not a failure
    workspace = ctx.workspace
    if _git_head(workspace) != pr.head.sha:
        log.error(f"the checkout in {workspace} is not the head of #{number} ({pr.head.sha[:7]}): check out "
                  "that commit with its history (actions/checkout with `fetch-depth: 0`)")
        return EXIT_ERROR
    with tempfile.TemporaryDirectory(prefix="graphmend-approve-") as scratch:
        report_path = Path(args.report) if args.report else Path(scratch) / "verify.json"
        problem = "" if args.report else run_verify(pr.base.sha, _passthrough(args), workspace, report_path)
        report, problem = (None, problem) if problem else _load(report_path)
    decision = decide(report) if report is not None else Decision(REQUEST_CHANGES, [problem])
    body = review_body(report, decision, pr.head.sha)
    append_summary(ctx.summary_file, body)
    write_outputs(ctx.output_file, {"decision": decision.event, "breaks-removed": str(decision.removed)})
    log.info(f"decision for #{number}: {decision.event}" + "".join(f"\n  - {r}" for r in decision.reasons))
    try:
        pr.create_review(commit=repo.get_commit(pr.head.sha), body=body, event=decision.event)
    except GithubException as error:
        message = describe(error, "submitting the review")
        log.error(f"{message}. {OWN_PR_HELP}" if error.status == 422 and "own pull request" in message else message)
        return EXIT_ERROR
    except API_ERRORS as error:
        log.error(describe(error, "submitting the review"))
        return EXIT_ERROR
    _mark_fix_pr(pr, decision, log)
    return EXIT_APPROVED if decision.approved else EXIT_CHANGES


def _mark_fix_pr(pr: PullRequest, decision: Decision, log: Log) -> None:
    """A fix pull request's description says how verification went."""
    if FIX_PR_MARKER not in (pr.body or ""):
        return
    status = (f"Verified on a GPU at `{pr.head.sha[:7]}`: {decision.removed} graph break(s) removed, outputs equal. "
              "Approved." if decision.approved else
              f"GPU verification at `{pr.head.sha[:7]}` requested changes: " + "; ".join(decision.reasons) + ".")
    try:
        pr.edit(body=with_verification(pr.body, status))
    except API_ERRORS as error:
        log.warning(describe(error, "updating the fix pull request's verification status"))


def _passthrough(args: argparse.Namespace) -> list[str]:
    out: list[str] = []
    for spec in args.entrypoint or []:
        out += ["--entrypoint", spec]
    for flag in ("device", "config", "timeout"):
        value = getattr(args, flag, None)
        if value is not None:
            out += [f"--{flag}", str(value)]
    return out


def main(args: argparse.Namespace) -> int:
    return approve(args, os.environ)
