"""GPU-verified approval: the decision as a pure function over `graphmend verify --json`, and
`graphmend approve preflight | measure | submit` end to end (real `graphmend verify` on CPU, a tiny
model, the fake GitHub)."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from approveworld import fix_pr_world, measure, preflight, submit
from fake_github import FakeGitHub
from rendered_markdown import untrusted_markup
from world import NUMBER, REPO

from graphmend_bot.github.approval.base_config import EMPTY_CONFIG, pick_config
from graphmend_bot.github.approval.gate import PullFacts, refusal
from graphmend_bot.github.approval.verdict import (
    APPROVE,
    COMMENT,
    REQUEST_CHANGES,
    Decision,
    decide,
    results_table,
    review_body,
    with_rewrite_check,
)
from graphmend_bot.github.fixes.fix_pr import FileEdit, FixPlan, fix_body

GOOD_ENTRY: dict[str, Any] = {
    "name": "net", "outputs_equal": True, "verdict": "improved", "reasons": [],
    "cold_start_speedup": 2.0, "steady_state_speedup": 1.1,
    "original": {"ok": True, "device": "cuda", "graph_count": 2, "graph_break_count": 1, "cold_start_s": 2.0,
                 "steady_state_s": 0.0011},
    "rewritten": {"ok": True, "device": "cuda", "graph_count": 1, "graph_break_count": 0, "cold_start_s": 1.0,
                  "steady_state_s": 0.001},
}


# Every rewritten line ran (issue 11: a fix no entry point executed is not proven).
FULL_COVERAGE: dict[str, Any] = {
    "rewritten_lines": 1, "uncovered": [],
    "covered": [{"path": "pkg/model.py", "line": 7, "text": "h = torch.where(...)", "entry_points": ["net"]}],
}


def report(*entries: dict[str, Any], coverage: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"version": 1, "passed": True, "entry_points": list(entries),
            "original": {"label": "base"}, "rewritten": {"label": "working tree"},
            "coverage": FULL_COVERAGE if coverage is None else coverage}


def entry(**changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(GOOD_ENTRY)
    for key, value in changes.items():
        if key in ("original", "rewritten"):
            data[key].update(value)
        else:
            data[key] = value
    return data


def test_a_rewritten_line_no_entry_point_ran_is_unproven_and_not_approved() -> None:
    partial = {"rewritten_lines": 2, "covered": FULL_COVERAGE["covered"],
               "uncovered": [{"path": "pkg/model.py", "line": 12, "text": "logger.warning(...)"}]}
    decision = decide(report(entry(), coverage=partial))
    assert decision.event == COMMENT and decision.reasons == []
    assert decision.unproven == ["1 rewritten line(s) never executed by an entry point: pkg/model.py:12"]
    body = review_body(report(entry(), coverage=partial), decision, "a" * 40)
    assert "not every fix is proven" in body and "pkg/model.py:12" in body
    # The review says which lines were proven, and by which entry point.
    assert "`pkg/model.py:7`: `net`" in body
    assert decide(report(entry(), coverage={})).event == COMMENT  # no coverage: nothing is proven
    approved = decide(report(entry()))
    assert approved.event == APPROVE and approved.proven_by == {"pkg/model.py:7": ["net"]}


def test_decide_approves_only_a_proven_improvement() -> None:
    good = decide(report(entry(), entry(name="same", original={"graph_count": 1, "graph_break_count": 0})))
    assert (good.event, good.reasons, good.removed) == (APPROVE, [], 1)
    cases = {
        "outputs are not equivalent": entry(outputs_equal=False, reasons=["outputs differ (bit-identical required)"]),
        "the graph count rose from 2 to 3": entry(rewritten={"graph_count": 3}),
        "graph breaks rose from 1 to 2": entry(rewritten={"graph_break_count": 2, "graph_count": 2}),
        "no graph break went away": entry(rewritten={"graph_count": 2, "graph_break_count": 1}),
        "rewritten arm failed: CUDA out of memory": entry(rewritten={"ok": False, "error": "CUDA out of memory"}),
        "graph counts are missing": entry(original={"graph_count": None}),
        # explain's -1 for an arm with no graph: a disabled entry point hides breaks, it mends none
        "compiles no graph (2 before)": entry(rewritten={"graph_count": 0, "graph_break_count": -1}),
    }
    for reason, bad in cases.items():
        decision = decide(report(entry(), bad) if "went away" not in reason else report(bad))
        assert decision.event == REQUEST_CHANGES, reason
        assert any(reason in r for r in decision.reasons), (reason, decision.reasons)
    # One good entry point does not excuse another whose outputs changed.
    assert decide(report(entry(), entry(name="b", outputs_equal=None))).event == REQUEST_CHANGES
    assert decide(report()).event == REQUEST_CHANGES and decide({}).event == REQUEST_CHANGES
    assert decide({"entry_points": ["junk"]}).event == REQUEST_CHANGES


def test_results_table() -> None:
    table = results_table(report(entry()))
    assert "| `net` (cuda) | 2 -> 1 | 1 -> 0 | 2.00 s -> 1.00 s | 2.00x | 1.10 ms -> 1.00 ms | 1.10x | equal |" in table


MODEL = '''\
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 4)

    def forward(self, x):
        x = self.linear(x)
{body}
        return x


def factory():
    return Net(), (torch.randn(3, 4),)
'''
BRANCH = "        if x.sum() > 0:\n            x = x * 2\n        else:\n            x = x * 3"
GOOD = "        x = torch.where(x.sum() > 0, x * 2, x * 3)"
BAD = "        x = torch.where(x.sum() > 0, x * 2, x * 3) + 1"
CONFIG = """\
verify:
  device: cpu
  backend: eager
  seeds: [0, 1]
  warmup: 1
  repeat: 2
  timeout: 300
  entry-points:
    - tinynet:factory
"""


@pytest.mark.parametrize("rewrite, event, exit_code", [(GOOD, "APPROVED", 0), (BAD, "COMMENTED", 1)])
def test_gpu_job_approves_a_good_rewrite_and_rejects_one_that_changes_outputs(
        tmp_path: Path, fake_github: FakeGitHub, rewrite: str, event: str, exit_code: int) -> None:
    # GOOD is exactly what `graphmend check --fix` writes; BAD is not, so since the three-step split
    # it gets a COMMENT (not a request for changes): the bot never approves code it did not write.
    base = {"tinynet.py": MODEL.format(body=BRANCH), ".graphmend.yml": CONFIG}
    world = fix_pr_world(tmp_path, fake_github, base, {"tinynet.py": MODEL.format(body=rewrite)})
    world.pull["body"] = fix_body(FixPlan([FileEdit("tinynet.py", b"")]), "#1", world.base_sha)  # a fix PR
    allowed = preflight(world)
    assert allowed.returncode == 0, allowed.log
    assert allowed.outputs == {"pull-request": str(NUMBER), "head-sha": world.head_sha, "base-sha": world.base_sha}
    report_file = tmp_path / "verify.json"
    measured = measure(world, report_file, allowed.outputs["head-sha"], allowed.outputs["base-sha"])
    assert measured.returncode == 0, measured.log
    done = submit(world, report_file, allowed.outputs["head-sha"])
    assert done.returncode == exit_code, done.log
    assert done.outputs["decision"] == {"APPROVED": "APPROVE", "COMMENTED": "COMMENT"}[event]
    [review] = fake_github.reviews_on(REPO, NUMBER)
    assert review["state"] == event and review["commit_id"] == world.head_sha
    body = review["body"]
    assert "| `tinynet:factory` (cpu) | 2 -> 1 | 1 -> 0 |" in body  # Dynamo's counts, measured on both sides
    status = world.pull["body"]  # the fix pull request's verification section follows the verdict
    assert "Not verified on a GPU yet" not in status
    if event == "APPROVED":
        assert "Verified on a GPU" in body and "| equal |" in body
        assert done.outputs["breaks-removed"] == "1"
        assert f"Verified on a GPU at `{world.head_sha[:7]}`: 1 graph break(s) removed" in status
    else:
        assert "outputs are not equivalent" in body and "| DIFFER |" in body
        assert "`tinynet.py` differs from GraphMend's rewrite of the base" in body
        assert "GPU verification at" in status and "did not approve" in status
    assert "GraphMend GPU verification" in (tmp_path / "submit-summary.md").read_text()


def test_gpu_job_requests_changes_when_the_exact_rewrite_fails_the_measurement(
        tmp_path: Path, fake_github: FakeGitHub) -> None:
    world = fix_pr_world(tmp_path, fake_github, {"tinynet.py": MODEL.format(body=BRANCH)},
                         {"tinynet.py": MODEL.format(body=GOOD)})
    report_file = tmp_path / "verify.json"
    report_file.write_text(json.dumps(report(entry(outputs_equal=False, reasons=["outputs differ"]))))
    done = submit(world, report_file)
    assert done.returncode == 1 and done.outputs["decision"] == "REQUEST_CHANGES", done.log
    [review] = fake_github.reviews_on(REPO, NUMBER)
    assert review["state"] == "CHANGES_REQUESTED" and "outputs are not equivalent" in review["body"]


def test_gpu_job_refuses_forks_and_stale_checkouts(tmp_path: Path, fake_github: FakeGitHub) -> None:
    world = fix_pr_world(tmp_path, fake_github, {"tinynet.py": MODEL.format(body=BRANCH)},
                         {"tinynet.py": MODEL.format(body=GOOD)})
    world.git.checkout("master")
    stale = measure(world, tmp_path / "verify.json")
    assert stale.returncode == 2 and "is not the head of the pull request" in stale.stdout
    world.pull["head"]["repo"] = {**world.pull["head"]["repo"], "full_name": "fork/Hello-World"}
    fork = preflight(world)
    assert fork.returncode == 2 and "never runs code from forks" in fork.stdout
    assert not fake_github.reviews


def test_gpu_job_cannot_approve_its_own_pull_request(tmp_path: Path, fake_github: FakeGitHub) -> None:
    world = fix_pr_world(tmp_path, fake_github, {"tinynet.py": MODEL.format(body=BRANCH)},
                         {"tinynet.py": MODEL.format(body=GOOD)})
    world.pull["user"] = {"login": "github-actions[bot]", "type": "Bot"}  # opened with the same token
    report_file = tmp_path / "verify.json"
    report_file.write_text(json.dumps(report(entry())))
    done = submit(world, report_file, bot_login="github-actions[bot]")
    assert done.returncode == 2 and "Can not approve your own pull request" in done.stdout
    assert "different identity" in done.stdout


def test_the_gate_rule_is_a_pure_function_of_what_the_api_said() -> None:
    good = PullFacts(2, "open", REPO, "graphmend[bot]", "graphmend/fix/pr-1", "a" * 40, "b" * 40)
    assert refusal(good, REPO, "graphmend[bot]") is None
    cases = {
        "comes from a fork (deleted)": replace(good, head_repository=None),
        "comes from a fork (x/Hello-World)": replace(good, head_repository="x/Hello-World"),
        "is merged": replace(good, state="merged"),
        "was opened by graphmend-impostor": replace(good, author="graphmend-impostor"),
        "is not a GraphMend fix branch": replace(good, head_ref="graphmend/fixes"),
        "no commit SHA": replace(good, head_sha="HEAD"),
    }
    for reason, facts in cases.items():
        assert reason in (refusal(facts, REPO, "graphmend[bot]") or ""), reason
    assert "not by the bot's App my-app[bot]" in (refusal(good, REPO, "my-app[bot]") or "")


def test_only_an_exact_rewrite_keeps_the_measured_decision() -> None:
    measured = decide(report(entry()))
    assert with_rewrite_check(measured, []) == measured
    final = with_rewrite_check(measured, ["`setup.py` is changed"])
    assert (final.event, final.removed, final.differences) == (COMMENT, 1, ["`setup.py` is changed"])
    body = review_body(report(entry(name="@maintainers")), final, "c" * 40)
    assert "not exactly GraphMend's rewrite" in body and "`setup.py` is changed" in body
    assert "`@maintainers`" in body and untrusted_markup(body) == []  # report text is code: it pings no one


def test_a_long_verdict_is_cut_between_texts_never_inside_a_code_span() -> None:
    """Reasons quote the report's entry-point names in code spans. The verdict used to be cut at a
    fixed length after rendering: a cut inside a span left its backtick unmatched, and the span's
    untrusted text (a name the measured job chose) rendered as a mention, an image, a link."""
    hostile = "@octo-org/admins ![x](https://evil.example/p.png) https://evil.example #31337"
    for pad in range(0, 400, 37):
        name = "e" * pad + " " + hostile + " " + "z" * 300
        reasons = [f"`{name}`: outputs differ" for _ in range(80)]
        for decision in (Decision(REQUEST_CHANGES, reasons), Decision(COMMENT, reasons, differences=reasons),
                         Decision(COMMENT, unproven=reasons, unproven_fixes=[name * 40] * 30)):
            body = review_body(report(entry(name=name)), decision, "c" * 40)
            assert untrusted_markup(body, own_commits=["c" * 40]) == [], pad
            assert len(body) <= 65_536 and "more in the job's log" in body


def test_the_base_configuration_is_picked_like_the_cli_picks_it() -> None:
    files = {"pyproject.toml": b"[project]\nname = 'x'\n", ".graphmend.yaml": b"select: [GM1]\n"}
    assert pick_config(files.get) == (".graphmend.yaml", b"select: [GM1]\n")
    assert pick_config({"pyproject.toml": b"[tool.graphmend]\nselect = []\n"}.get)[0] == "pyproject.toml"
    assert pick_config({"pyproject.toml": b"[project]\n"}.get) == EMPTY_CONFIG
    # A pyproject.toml that is no valid configuration is picked, so loading it fails the job with
    # its message rather than review with the defaults (review15's finding 8).
    for broken in (b'tool = "graphmend"\n', b"tool = 1\n", b"x = " + b"[" * 20000 + b"]" * 20000 + b"\n"):
        assert pick_config({"pyproject.toml": broken}.get) == ("pyproject.toml", broken)
