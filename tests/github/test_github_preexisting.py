"""A break is new only on a line the pull request added (issue 24.6).

The diff shows unchanged context lines around each change, and GitHub accepts comments there. A
break on such a line was in the code before the pull request: the review, the bot's summary and
`graphmend review` label it pre-existing and count it apart, and new breaks get the comment slots
first.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from fake_github import FakeGitHub
from world import NUMBER, REPO, PullRequestWorld, graphmend_command

from graphmend_bot.engine import check
from graphmend_bot.github.review.plan import prepare_review

MODEL_BASE = '''\
import torch
from torch import nn


class Net(nn.Module):
    def forward(self, x):
        scale = x.abs().max().item()
        x = x * 2
        x = x + 1
        return x / scale
'''
# A print three lines below the `.item()`: the hunk shows the `.item()` line as context.
MODEL_HEAD = MODEL_BASE.replace("        x = x + 1\n", "        x = x + 1\n        print(\"step\")\n")
BASE = {"pkg/__init__.py": "", "pkg/model.py": MODEL_BASE}
HEAD = {"pkg/model.py": MODEL_HEAD}
ITEM_LINE, PRINT_LINE = 7, 10
PATCH = ("@@ -4,7 +4,8 @@ from torch import nn\n \n class Net(nn.Module):\n     def forward(self, x):\n"
         "         scale = x.abs().max().item()\n         x = x * 2\n         x = x + 1\n"
         "+        print(\"step\")\n         return x / scale\n")


def test_the_bot_labels_a_break_on_a_context_line_pre_existing(tmp_path: Path, fake_github: FakeGitHub) -> None:
    world = PullRequestWorld(tmp_path, fake_github, BASE, HEAD)
    run = world.run(world.event("pull_request.opened.json"))
    assert "Traceback" not in run.stderr
    comments = {c["line"]: c["body"] for c in fake_github.comments_on(REPO, NUMBER)}
    assert set(comments) == {ITEM_LINE, PRINT_LINE}  # both lines are in the diff
    assert comments[ITEM_LINE].startswith("**GM301**") and "**Pre-existing**" in comments[ITEM_LINE]
    assert comments[PRINT_LINE].startswith("**GM401**") and "Pre-existing" not in comments[PRINT_LINE]
    [review] = fake_github.reviews_on(REPO, NUMBER)
    # It said "2 new graph break(s) on lines changed in this pull request".
    assert review["body"].startswith("GraphMend found 1 new graph break(s) with this pull request.\n"
                                     "1 pre-existing graph break(s)")
    [summary] = [c["body"] for c in fake_github.issue_comments_on(REPO, NUMBER) if "graphmend:summary" in c["body"]]
    # The base commit was solved too: new is what its findings lack.
    assert "1 new with this pull request (its base commit does not have them); 1 pre-existing" in summary
    [item_row] = [row for row in summary.splitlines() if "GM301" in row and row.startswith("| [")]
    assert "*pre-existing*" in item_row
    [print_row] = [row for row in summary.splitlines() if "GM401" in row and row.startswith("| [")]
    assert "pre-existing" not in print_row

    done = subprocess.run([*graphmend_command(), "review", "--base", world.base_sha, "--output-format", "json"],
                          cwd=world.git.root, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null"})
    local: dict[str, Any] = json.loads(done.stdout)
    assert local["review"]["body"] == review["body"]  # `graphmend review` says the same
    assert (local["new_on_added_lines"], local["pre_existing_on_context_lines"], local["findings"]) == (1, 1, 2)
    assert {c["line"]: c["body"] for c in local["review"]["comments"]} == comments


def test_new_breaks_take_the_comment_slots_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    path = "pkg/model.py"
    (tmp_path / "pkg").mkdir()
    (tmp_path / path).write_text(MODEL_HEAD, encoding="utf-8")
    result = check([path])
    assert [f.location.row for f in result.findings] == [ITEM_LINE, PRINT_LINE]
    prepared = prepare_review(result, {path: PATCH}, {path: MODEL_HEAD}, [], "abc1234", limit=1)
    [comment] = prepared.plan.new_comments
    assert comment.line == PRINT_LINE and comment.new
    [overflow] = prepared.plan.overflow
    assert overflow.line == ITEM_LINE and not overflow.new
    assert f"- `{path}:{ITEM_LINE}` **GM301** (pre-existing) " in prepared.body
    assert [f.location.row for f in prepared.plan.new] == [PRINT_LINE]
    assert [f.location.row for f in prepared.plan.preexisting] == [ITEM_LINE]
