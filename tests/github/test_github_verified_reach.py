"""`fixes: verified` with verify entry points: the fix pull request carries only the fixes in
functions those entry points reach (an approval needs every rewritten line executed); the others
stay review suggestions, and `approve submit --fixes verified` recomputes exactly that set."""

from __future__ import annotations

import json
from pathlib import Path

from approveworld import fix_pr_world, submit
from botworld import RemoteWorld
from fake_github import FakeGitHub
from test_github_approve import entry, report
from world import NUMBER, REPO

CONFIG = "verify:\n  entry-points:\n    - pkg.entry:build\n"
ENTRY = '''\
import torch

from pkg.model import Net


def build(seed=0):
    torch.manual_seed(seed)
    return Net(), (torch.randn(2, 4),), {}
'''
MODEL = '''\
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 4)

    def forward(self, x):
        x = self.linear(x)
        return x
'''
# The same break in a module no verify entry point builds: its fix could never be proven.
OTHER = MODEL.replace("class Net", "class Other")
BREAK = "        return x\n", "        if x.sum() > 0:\n            x = x * 2\n        return x\n"
WHERE = "torch.where(x.sum() > 0, x * 2, x)"

BASE = {"pkg/__init__.py": "", "pkg/entry.py": ENTRY, "pkg/model.py": MODEL, "pkg/other.py": OTHER,
        ".graphmend.yml": CONFIG}
HEAD = {"pkg/model.py": MODEL.replace(*BREAK), "pkg/other.py": OTHER.replace(*BREAK)}


def test_a_fix_outside_the_verify_entry_points_reach_is_a_suggestion_not_in_the_fix_pr(
        tmp_path: Path, fake_github: FakeGitHub) -> None:
    world = RemoteWorld(tmp_path, fake_github, BASE, HEAD)
    done = world.run(world.pull_request_event("pull_request.opened.json"), fix_pr="true", fixes="verified")
    [fix] = world.fix_pulls()
    tip = world.remote.branch("graphmend/fix/pr-2")
    assert tip is not None
    assert WHERE in world.remote.show(tip, "pkg/model.py")  # reached from pkg.entry:build: fixed
    assert world.remote.show(tip, "pkg/other.py") == HEAD["pkg/other.py"].rstrip("\n")  # out of reach: as it was
    assert "| `pkg/model.py` |" in fix["body"] and "pkg/other.py" not in fix["body"]
    assert "reachable from the verify entry points (pkg.entry:build)" in done.stdout
    comments = [c for c in fake_github.comments_on(REPO, NUMBER) if c["body"].startswith("**GM101**")]
    [other] = [c["body"] for c in comments if c["path"] == "pkg/other.py"]
    # A suggestion still; safe since x comes from nn.Linear, a floating tensor (rewrite/dtype_facts.py).
    assert "```suggestion\n" in other and WHERE in other and "**Unsafe**" not in other


def test_approval_recomputes_the_reach_limited_set(tmp_path: Path, fake_github: FakeGitHub) -> None:
    """The bot's fix branch is approved; a head that also fixes the unreachable module is not."""
    base = {**BASE, **HEAD}
    reached = {"pkg/model.py": HEAD["pkg/model.py"].replace(
        "        if x.sum() > 0:\n            x = x * 2\n", f"        x = {WHERE}\n")}
    everything = {**reached, "pkg/other.py": HEAD["pkg/other.py"].replace(
        "        if x.sum() > 0:\n            x = x * 2\n", f"        x = {WHERE}\n")}
    report_file = tmp_path / "verify.json"
    report_file.write_text(json.dumps(report(entry())))
    events = []
    for name, head in (("reached", reached), ("everything", everything)):
        world = fix_pr_world(tmp_path / name, fake_github, base, head)
        done = submit(world, report_file, fixes="verified")
        review = fake_github.reviews_on(REPO, NUMBER)[-1]
        events.append((review["state"], done.returncode))
        if name == "everything":
            assert ("`pkg/other.py` is changed, but GraphMend's rewrite of the base leaves it as it is"
                    in review["body"]), done.log
    assert events == [("APPROVED", 0), ("COMMENTED", 1)]
