"""Issue 28's done-test: a head that adds one graph break and removes another reads +1 / -1, with the
right lines, through `graphmend review --census --census-base` and through the bot on the fake GitHub.

Both censuses are recorded for real by the pytest plugin on a tiny model (explain's own capture
backend, no inductor): the base's as the default-branch workflow's artifact, the head's as the pull
request's `census-file`.
"""

from __future__ import annotations

import io
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from botworld import RemoteWorld
from fake_github import FakeGitHub, add_workflow_run
from world import NUMBER, REPO

BASE_MODEL = '''\
import torch
from torch import nn


class Net(nn.Module):
    def forward(self, x):
        h = x * 2
        print("kept")
        if h.sum() > 0:  # removed on the head
            h = h + 1
        return h
'''

HEAD_MODEL = '''\
import torch
from torch import nn


class Net(nn.Module):
    def forward(self, x):
        h = x * 2
        h = h * 1  # a line above the kept break: it moves, and is neither added nor removed
        print("kept")
        h = torch.where(h.sum() > 0, h + 1, h)
        print("added")  # added on the head
        return h
'''

TESTS = '''\
import torch
from pkg.model import Net


def test_net():
    assert Net()(torch.ones(2)).shape == (2,)
'''

BASE = {"pkg/__init__.py": "", "pkg/model.py": BASE_MODEL, "tests/test_model.py": TESTS}
HEAD = {"pkg/model.py": HEAD_MODEL}
ADDED_LINE = next(i for i, text in enumerate(HEAD_MODEL.splitlines(), 1) if "# added" in text)
REMOVED_LINE = next(i for i, text in enumerate(BASE_MODEL.splitlines(), 1) if "# removed" in text)


def record_census(root: Path, files: dict[str, str], commit: str, output: Path) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--graphmend-census",
                           f"--graphmend-census-file={output}", f"--graphmend-census-commit={commit}"],
                          cwd=root, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture
def world(tmp_path: Path, fake_github: FakeGitHub) -> RemoteWorld:
    world = RemoteWorld(tmp_path, fake_github, BASE, HEAD)
    record_census(tmp_path / "base-tree", BASE, world.base_sha, tmp_path / "base-census.json")
    record_census(tmp_path / "head-tree", {**BASE, **HEAD}, world.head_sha, world.git.root / "graphmend-census.json")
    return world


def test_one_break_added_and_one_removed_is_plus_one_minus_one_locally_and_on_the_pull_request(
        world: RemoteWorld, tmp_path: Path) -> None:
    # Locally: the review of the head against the base, with both censuses.
    local = subprocess.run([sys.executable, "-m", "graphmend_bot.cli", "review", "--base", "master", "--census",
                            "graphmend-census.json", "--census-base", str(tmp_path / "base-census.json"),
                            "--fail-on", "new-breaks", "--output-format", "markdown", "--no-cache"],
                           cwd=world.git.root, capture_output=True, text=True, timeout=300, check=False)
    assert local.returncode == 1, local.stdout + local.stderr  # a break was added: the gate fails
    assert "### Graph breaks in this PR (Dynamo census): +1 / -1" in local.stdout
    assert f"| + | `pkg/model.py:{ADDED_LINE}` | Failed to trace builtin operator | [GB0059](" in local.stdout
    assert "`tests/test_model.py::test_net` | `Net.forward` |" in local.stdout
    assert f"| - | `pkg/model.py:{REMOVED_LINE}` | Data-dependent branching | [GB0170](" in local.stdout

    # On the pull request: the base census is the default branch's push run's artifact.
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.write(tmp_path / "base-census.json", "graphmend-census.json")
    add_workflow_run(world.fake, REPO, world.base_sha, artifacts={"graphmend-census": archive.getvalue()})
    run = world.run(world.event("pull_request.opened.json"), fail_on="new-breaks",
                    census_file="graphmend-census.json", census_base_workflow="graphmend-census.yml")
    assert run.returncode == 1, run.stdout + run.stderr
    [body] = [c["body"] for c in world.fake.issue_comments_on(REPO, NUMBER) if "graphmend:summary" in c["body"]]
    assert "### Graph breaks in this PR (Dynamo census): +1 / -1" in body
    blob = f"https://github.com/{REPO}/blob/{world.head_sha}/pkg/model.py#L{ADDED_LINE}"
    assert f"| + | [`pkg/model.py:{ADDED_LINE}`]({blob}) | Failed to trace builtin operator | [GB0059](" in body
    assert f"| - | `pkg/model.py:{REMOVED_LINE}` | Data-dependent branching | [GB0170](" in body
    assert "**`fail-on: new-breaks` fails this check**: 1 graph break(s) added" in body
