"""The refusals issue 11 names, end to end: the head is the bot's own verified fix of the base
(`bot_fix_set`, so it passes the recompute), `approve measure` runs the real `graphmend verify` on
CPU, and `approve submit` reviews it on the fake GitHub. None is approved, and the review says why.
(An extra unrelated change: test_github_approve_security.py, not exactly the rewrite.)"""

from __future__ import annotations

import contextlib
from pathlib import Path

from approveworld import fix_pr_world, measure, submit
from fake_github import FakeGitHub
from world import NUMBER, REPO

from graphmend_bot.config import load_config
from graphmend_bot.github.fixes.fix_set import bot_fix_set

CONFIG = """\
verify:
  device: cpu
  backend: eager
  seeds: [0]
  warmup: 1
  repeat: 2
  timeout: 300
  backward: {backward}
  entry-points:
    - tinynet:factory
"""
MODEL = '''\
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 4)

    def forward(self, x, scale=False):
{body}
        return x


def factory():
    return Net(), (torch.randn(3, 4),)
'''
# A mask no input reaches (all False): the bot's torch.where assumes its arms are not bool
# tensors, so the rewrite returns int64 where the original returned the bool mask.
BOOL_ARM = "        x = self.linear(x) > 100\n        if x.sum() > 0:\n            x = x * 2"
# The unselected arm's sqrt has a NaN derivative on negative entries: where passes 0 * NaN back.
SQRT_ARM = ("        x = self.linear(x)\n        if (x * x).sum() > 0:\n            x = x * 2\n"
            "        else:\n            x = torch.sqrt(x)")
# The first break goes away; the factory never passes scale=True, so the second fix never runs.
NEVER_RUN = ("        x = self.linear(x)\n        if x.sum() > 0:\n            x = x * 3\n"
             "        if scale:\n            if x.sum() > 0:\n                x = x * 2")


def _review(tmp_path: Path, fake_github: FakeGitHub, body: str, backward: bool = False) -> tuple[str, str]:
    base = {"tinynet.py": MODEL.format(body=body), ".graphmend.yml": CONFIG.format(backward=str(backward).lower())}
    scratch = tmp_path / "base"
    scratch.mkdir()
    for name, text in base.items():
        (scratch / name).write_text(text)
    with contextlib.chdir(scratch):
        fix_set = bot_fix_set(["."], load_config(scratch / ".graphmend.yml"), "verified")
    head = {str(Path(change.path)): change.after for change in fix_set.changes}
    assert list(head) == ["tinynet.py"] and "torch.where" in head["tinynet.py"]
    world = fix_pr_world(tmp_path / "world", fake_github, base, head)
    report_file = tmp_path / "verify.json"
    measured = measure(world, report_file)
    assert measured.returncode == 0, measured.log
    done = submit(world, report_file, fixes="verified")
    assert done.returncode == 1, done.log
    [review] = fake_github.reviews_on(REPO, NUMBER)
    assert "not exactly GraphMend's rewrite" not in review["body"]  # the bot's own fix: only the proof fails
    return review["state"], review["body"]


def test_a_fix_that_changes_eager_outputs_is_refused(tmp_path: Path, fake_github: FakeGitHub) -> None:
    state, body = _review(tmp_path, fake_github, BOOL_ARM)
    assert state == "CHANGES_REQUESTED"
    assert "**Not approved.** `tinynet:factory`: outputs are not equivalent" in body and "| DIFFER |" in body


def test_a_fix_whose_gradient_is_nan_is_refused_with_backward(tmp_path: Path, fake_github: FakeGitHub) -> None:
    state, body = _review(tmp_path, fake_github, SQRT_ARM, backward=True)
    assert state == "CHANGES_REQUESTED"
    assert "`tinynet:factory`: outputs are not equivalent (gradients differ (bit-identical required)" in body
    assert "Greatest absolute difference: nan" in body


def test_a_fix_no_entry_point_executes_is_not_approved(tmp_path: Path, fake_github: FakeGitHub) -> None:
    state, body = _review(tmp_path, fake_github, NEVER_RUN)
    assert state == "COMMENTED"
    assert "Not approved: not every fix is proven" in body
    assert "1 rewritten line(s) never executed by an entry point: tinynet.py:" in body
