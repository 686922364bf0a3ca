"""Issue 28's done-test: a head that adds one graph break and removes another reads +1 / -1, with the
right lines, through `graphmend review --census --census-base` and through the bot on the fake GitHub.

Both censuses are recorded for real by the pytest plugin on a tiny model (explain's own capture
backend, no inductor): the base's as the default-branch workflow's artifact, the head's as the pull
request's `census-file`.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest
from botworld import RemoteWorld
from fake_github import FakeGitHub, add_workflow_run
from rendered_markdown import untrusted_markup
from world import NUMBER, REPO

from graphmend_bot.report.untrusted_text import markdown_text

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


def test_a_forks_pull_request_gets_the_table_in_its_posted_summary(world: RemoteWorld, tmp_path: Path) -> None:
    """The fork-safe pattern: the read-only `pull_request` run writes the review bundle, the
    `workflow_run` posts from it. The bundle carries the comparison (never Markdown), validated and
    rendered again by the posting run, labelled untrusted; a hostile one is refused or made text."""
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.write(tmp_path / "base-census.json", "graphmend-census.json")
    add_workflow_run(world.fake, REPO, world.base_sha, artifacts={"graphmend-census": archive.getvalue()})
    world.fake.read_only = True
    first = world.run(world.event("pull_request.opened.json"), fail_on="never", census_file="graphmend-census.json",
                      census_base_workflow="graphmend-census.yml", review_bundle="artifact/graphmend-review.json")
    assert first.returncode == 0 and world.fake.issue_comments_on(REPO, NUMBER) == [], first.stdout + first.stderr
    carried = json.loads((world.git.root / "artifact" / "graphmend-review.json").read_text("utf-8"))
    assert [(b["path"], b["line"]) for b in carried["breaks"]["added"]] == [("pkg/model.py", ADDED_LINE)]

    world.fake.read_only = False
    downloads = tmp_path / "base-checkout"
    downloads.mkdir()

    def post(data: dict[str, Any]) -> Any:
        (downloads / "graphmend-review.json").write_text(json.dumps(data), "utf-8")
        return world.run(world.event("workflow_run.completed.with-pull-requests.json"), event_name="workflow_run",
                         workspace=downloads, review_bundle="graphmend-review.json", fail_on="new-breaks")

    # Over the size limit, or a path out of the repository: refused whole, nothing posted.
    too_many = {**carried["breaks"], "added": carried["breaks"]["added"] * 1001}
    refused = post({**carried, "breaks": too_many})
    assert refused.returncode == 0 and "breaks: added must be a list of at most 1000" in refused.stdout
    escaping = {**carried["breaks"], "removed": [{**carried["breaks"]["removed"][0], "path": "../../etc/passwd"}]}
    refused = post({**carried, "breaks": escaping})
    assert "breaks: removed[0].path must be a relative path inside the repository" in refused.stdout
    assert world.fake.issue_comments_on(REPO, NUMBER) == []

    posted = post(carried)
    assert posted.returncode == 0, posted.stdout + posted.stderr  # an untrusted table gates nothing
    body = summary_body(world)
    assert "### Graph breaks in this PR (Dynamo census): +1 / -1" in body
    assert "carried by the review bundle of the pull request's own run: untrusted" in body
    blob = f"https://github.com/{REPO}/blob/{world.head_sha}/pkg/model.py#L{ADDED_LINE}"
    assert f"| + | [`pkg/model.py:{ADDED_LINE}`]({blob}) | Failed to trace builtin operator | [GB0059](" in body
    assert f"| - | `pkg/model.py:{REMOVED_LINE}` | Data-dependent branching | [GB0170](" in body

    hostile = "x\n<!-- graphmend:summary --> @octocat [win](https://evil.example) <img src=x> | cell"
    marked = {**carried["breaks"], "added": [{**carried["breaks"]["added"][0], "reason": hostile,
                                              "tests": [f"t.py::`{hostile}"], "gb_id": "GB0059)[x](https://evil"}]}
    refused = post({**carried, "breaks": marked})
    assert "breaks: added[0].gb_id must look like GB0170" in refused.stdout
    marked["added"][0]["gb_id"] = "GB0059"
    posted = post({**carried, "breaks": marked})
    assert posted.returncode == 0, posted.stdout + posted.stderr
    body = summary_body(world)
    assert markdown_text(hostile.replace("\n", "")) in body
    assert untrusted_markup(body, repository_links=f"https://github.com/{REPO}/blob/",
                            own_commits=world.fake.commit_shas()) == []


def summary_body(world: RemoteWorld) -> str:
    [body] = [c["body"] for c in world.fake.issue_comments_on(REPO, NUMBER) if "graphmend:summary" in c["body"]]
    return body
