"""`fixes: verified` (issue 11 part 3): the fix pull request and the review suggestions carry the
unsafe fixes too, each with what it assumes, and `approve submit --fixes` recomputes that same set."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
from approveworld import fix_pr_world, submit
from botworld import RemoteWorld
from fake_github import FakeGitHub
from test_github_approve import entry, report
from test_github_e2e import BASE, HEAD
from world import NUMBER, REPO

from graphmend_bot.config import Config
from graphmend_bot.findings import Edit, Finding, Fix, Location
from graphmend_bot.github.core.context import read_inputs
from graphmend_bot.report.markdown import finding_comment, unsafe_label
from graphmend_bot.rewrite import fix_paths

# GM101 on `if x.sum() > 0:` in pkg/model.py has only an unsafe fix: a torch.where resting on a dtype,
# and on `forward`'s caller not updating the result in place (`x = scale(x)` may be the caller's `x`).
ASSUMPTION = (
    "assumes `x * 2` and `x` are not bool tensors; `x` may be a caller's tensor and the selection leaves "
    "`forward` (`return x`): the branch handed out `x` itself, torch.where a new tensor, so an in-place "
    "update of the result after the call would no longer reach `x`"
)
WHERE = "torch.where(x.sum() > 0, x * 2, x)"


def test_fixes_defaults_to_verified_only_when_a_verify_workflow_is_configured() -> None:
    assert read_inputs({}).fixes == "verified"  # verify-workflow defaults to graphmend-verify.yml
    assert read_inputs({"INPUT_VERIFY-WORKFLOW": "", "INPUT_FIXES": ""}).fixes == "safe"
    assert read_inputs({"INPUT_VERIFY-WORKFLOW": "", "INPUT_FIXES": "verified"}).fixes == "verified"
    assert read_inputs({"INPUT_FIXES": "Safe"}).fixes == "safe"
    with pytest.raises(ValueError, match="input `fixes` must be one of safe, verified"):
        read_inputs({"INPUT_FIXES": "all"})


@pytest.mark.parametrize("fixes", ["verified", "safe"])
def test_the_fix_pull_request_carries_unsafe_fixes_only_when_verified(
        tmp_path: Path, fake_github: FakeGitHub, fixes: str) -> None:
    world = RemoteWorld(tmp_path, fake_github, BASE, HEAD)
    world.run(world.pull_request_event("pull_request.opened.json"), fix_pr="true", fixes=fixes)
    [fix] = world.fix_pulls()
    tip = world.remote.branch("graphmend/fix/pr-2")
    assert tip is not None
    fixed = world.remote.show(tip, "pkg/model.py")
    body = fix["body"]
    comments = [c["body"] for c in fake_github.comments_on(REPO, NUMBER)]
    [if_comment] = [c for c in comments if c.startswith("**GM101**")]
    if fixes == "verified":
        assert WHERE in fixed and "if x.sum() > 0:" not in fixed
        assert "| `pkg/model.py` | 25 | GM101 |" in body
        assert "### Assumptions (1 unsafe rewrite(s), unproven until the verification approves)" in body
        assert f"- **GM101** `pkg/model.py` line 25: {ASSUMPTION}" in body
        assert "unproven until the verification approves this pull request" in body
        assert "Not verified on a GPU yet" not in body  # that text says the rewrites are all safe
        # The review suggests the unsafe fix as well, labelled with what it assumes.
        assert "```suggestion\n" in if_comment and WHERE in if_comment
        assert f"**Unsafe**: {ASSUMPTION}; GPU verification checks it" in if_comment
    else:
        assert WHERE not in fixed and "if x.sum() > 0:" in fixed
        assert "GM101" not in body and "Assumptions" not in body and "Not verified on a GPU yet" in body
        assert "```suggestion" not in if_comment and "Fix (unsafe):" in if_comment
    # Safe suggestions are shown as before in both modes.
    [print_comment] = [c for c in comments if c.startswith("**GM401**")]
    assert "```suggestion\n" in print_comment and "Unsafe" not in print_comment


def _unsafe_rewrite(files: dict[str, str], scratch: Path) -> dict[str, str]:
    """What `graphmend check --fix --unsafe-fixes` makes of `files`: the head a verified fix PR has."""
    for name, text in files.items():
        (scratch / name).parent.mkdir(parents=True, exist_ok=True)
        (scratch / name).write_text(text)
    with contextlib.chdir(scratch):
        changes = fix_paths(["."], Config(), unsafe=True)
    return {**files, **{str(Path(c.path)): c.after for c in changes}}


@pytest.mark.parametrize("fixes, event", [("verified", "APPROVED"), ("safe", "COMMENTED")])
def test_approve_submit_recomputes_the_fix_set_its_workflow_names(
        tmp_path: Path, fake_github: FakeGitHub, fixes: str, event: str) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    head = _unsafe_rewrite(dict(HEAD), scratch)
    assert WHERE in head["pkg/model.py"]
    world = fix_pr_world(tmp_path / "world", fake_github, dict(HEAD), head)
    report_file = tmp_path / "verify.json"
    report_file.write_text(json.dumps(report(entry())))
    done = submit(world, report_file, fixes=fixes)
    [review] = fake_github.reviews_on(REPO, NUMBER)
    assert review["state"] == event, done.log
    if fixes == "verified":
        assert done.returncode == 0 and "differs from GraphMend's rewrite" not in review["body"]
    else:
        assert done.returncode == 1
        assert "`pkg/model.py` differs from GraphMend's rewrite of the base" in review["body"]


def test_an_unsafe_suggestion_read_back_from_a_bundle_is_still_labelled() -> None:
    """Bundles and shards keep only the rendered message: the label says the assumption is in it."""
    edit = Edit("torch.where(c, a, b)", Location(1, 1), Location(1, 5))
    message = "Select with `torch.where` (unsafe: assumes `a` and `b` are not bool tensors)"
    finding = Finding("GM101", "`if` on a tensor", "m.py", Location(1, 1), Location(1, 5), "GB0170",
                      fix=Fix("unsafe", message, (edit,)))
    body = finding_comment(finding, "<!-- marker -->", "torch.where(c, a, b)")
    assert "```suggestion\ntorch.where(c, a, b)\n```" in body
    assert "assumes `a` and `b` are not bool tensors" in body
    assert "**Unsafe**: it rests on the assumption its description states; GPU verification checks it" in body
    labelled = Fix.of("Select with `torch.where`", (edit,), ("assumes `a` is floating point", "no NaN"))
    assert unsafe_label(labelled.assumptions) == (
        "**Unsafe**: assumes `a` is floating point; no NaN; GPU verification checks it")


# Issue 24.3: a helper whose nonzero no rewrite removes gets `@torch.compiler.disable` under
# `fixes: verified`; that moves its break to forward's call, so nothing may count it as fixed.
LAYERS_NONZERO = ("import torch\n\n\ndef scale(x):\n    rows = torch.nonzero(x > 0)\n"
                  "    return x * 2 / (rows.shape[0] + 1)\n")


def test_the_fix_pull_request_and_the_review_report_a_moved_break_as_moved(
        tmp_path: Path, fake_github: FakeGitHub) -> None:
    world = RemoteWorld(tmp_path, fake_github, BASE, {**HEAD, "pkg/layers.py": LAYERS_NONZERO})
    world.run(world.pull_request_event("pull_request.opened.json"), fix_pr="true", fixes="verified")
    [fix] = world.fix_pulls()
    tip = world.remote.branch("graphmend/fix/pr-2")
    assert tip is not None
    assert "@torch.compiler.disable\ndef scale" in world.remote.show(tip, "pkg/layers.py")
    body = fix["body"]
    # The logger's and the print's guards and the if's torch.where remove their breaks; the decorator
    # moves its own (it said "rewrites 4").
    assert body.startswith("GraphMend removes 3 torch.compile graph break(s) in 2 file(s)")
    assert "1 more rewrite(s) only move their break" in body
    assert "| `pkg/layers.py` | 4 | GM501 | **Moves the break, not removed.** " in body
    assert fix["title"] == "GraphMend: fix 3 graph break(s), move 1 graph break(s) to the callers in #2"
    comments = [c["body"] for c in fake_github.comments_on(REPO, NUMBER)]
    [moved] = [c for c in comments if c.startswith("**GM501**")]
    assert "the break moves to the callers, it is not removed" in moved
    [printed] = [c for c in comments if c.startswith("**GM401**")]
    assert "moves to the callers" not in printed
