"""The bot honours a baseline (issue 29.3): a pull request that adds one break to a file with old
ones is reviewed for the one it adds."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from fake_github import FakeGitHub
from test_github_security import _first_workflow, _second_workflow
from world import NUMBER, REPO, PullRequestWorld

OLD = '''\
import torch
from torch import nn


class Net(nn.Module):
    def forward(self, x):
        print("old one")
        if x.sum() > 0:
            x = x * 2
        return x.sum().item()
'''
NEW = OLD.replace('        print("old one")\n', '        print("old one")\n        print("new one")\n')
BASE = {"pkg/__init__.py": "", "pkg/model.py": OLD}


def baseline_of(files: dict[str, str], tmp: Path) -> str:
    """The baseline `graphmend check --update-baseline` writes for `files`, as a user would commit it."""
    tree = tmp / "baseline-tree"
    for name, text in files.items():
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        (tree / name).write_text(text)
    subprocess.run([sys.executable, "-m", "graphmend_bot.cli", "check", "--baseline", "graphmend-baseline.json",
                    "--update-baseline", "."], cwd=tree, check=True, capture_output=True)
    return (tree / "graphmend-baseline.json").read_text()


def test_the_review_reports_only_what_the_baseline_does_not_hold(tmp_path: Path, fake_github: FakeGitHub) -> None:
    baseline = baseline_of(BASE, tmp_path)
    assert len(json.loads(baseline)["findings"]) == 3
    world = PullRequestWorld(tmp_path / "world", fake_github, {**BASE, "graphmend-baseline.json": baseline},
                             {"pkg/model.py": NEW})
    run = world.run(world.event("pull_request.opened.json"), fail_on="findings", baseline="graphmend-baseline.json")
    assert run.returncode == 1, run.stdout + run.stderr
    comments = [(c["path"], c["line"]) for c in fake_github.comments_on(REPO, NUMBER)]
    assert comments == [("pkg/model.py", 8)]  # the added print, and nothing the old lines hold
    assert run.annotations == []  # the old findings of the changed file are not annotations either
    assert run.outputs["findings"] == "1"
    [summary] = [c["body"] for c in fake_github.issue_comments_on(REPO, NUMBER) if "graphmend:summary" in c["body"]]
    assert "1 graph break(s)" in summary and "3 more in the baseline, not shown." in summary


def test_a_pull_request_cannot_hide_its_breaks_by_rewriting_the_baseline(tmp_path: Path,
                                                                          fake_github: FakeGitHub) -> None:
    """review10 #4: the pull request's own `--update-baseline` holds its new print; the base's does not."""
    base = {**BASE, "pyproject.toml": CONFIG, "graphmend-baseline.json": baseline_of(BASE, tmp_path)}
    rewritten = baseline_of({**BASE, "pkg/model.py": NEW}, tmp_path / "head")
    world = PullRequestWorld(tmp_path / "world", fake_github, base,
                             {"pkg/model.py": NEW, "graphmend-baseline.json": rewritten})
    run = world.run(world.event("pull_request.opened.json"), fail_on="findings")
    assert run.returncode == 1, run.stdout + run.stderr
    assert [(c["path"], c["line"]) for c in fake_github.comments_on(REPO, NUMBER)] == [("pkg/model.py", 8)]
    local = subprocess.run([sys.executable, "-m", "graphmend_bot.cli", "review", "--base", world.base_sha,
                            "--output-format", "json"], cwd=world.git.root, capture_output=True, text=True)
    assert [(c["path"], c["line"]) for c in json.loads(local.stdout)["review"]["comments"]] == [("pkg/model.py", 8)]


def test_a_baseline_the_pull_request_adds_applies_once_merged(tmp_path: Path, fake_github: FakeGitHub) -> None:
    world = PullRequestWorld(tmp_path / "world", fake_github, BASE,
                             {"pkg/model.py": NEW, "graphmend-baseline.json": baseline_of(BASE, tmp_path)})
    run = world.run(world.event("pull_request.opened.json"), fail_on="findings", baseline="graphmend-baseline.json")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "the baseline graphmend-baseline.json is not in the base commit" in run.stdout + run.stderr
    assert run.outputs["findings"] == "4"  # every finding of the changed file: the base accepts none of them


def test_a_missing_baseline_is_an_error_that_names_it(tmp_path: Path, fake_github: FakeGitHub) -> None:
    world = PullRequestWorld(tmp_path / "world", fake_github, BASE, {"pkg/model.py": NEW})
    run = world.run(world.event("pull_request.opened.json"), baseline="graphmend-baseline.json")
    assert run.returncode == 2
    assert "graphmend-baseline.json does not exist" in run.stdout + run.stderr


CONFIG = '[tool.graphmend]\nbaseline = "graphmend-baseline.json"\n'


def fork_world(tmp: Path, fake_github: FakeGitHub) -> PullRequestWorld:
    """A fork's pull request adding one break, in a repository whose configuration sets `baseline`."""
    baseline = baseline_of(BASE, tmp)
    base = {**BASE, "pyproject.toml": CONFIG, "graphmend-baseline.json": baseline}
    return PullRequestWorld(tmp / "world", fake_github, base, {"pkg/model.py": NEW})


def test_the_fork_workflow_pair_posts_when_the_base_config_sets_a_baseline(tmp_path: Path,
                                                                           fake_github: FakeGitHub) -> None:
    world = fork_world(tmp_path, fake_github)
    bundle = _first_workflow(world)
    assert [item["location"]["row"] for item in bundle["findings"]] == [8]  # filtered by the pull request's run
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    run = _second_workflow(world, downloads, bundle)
    assert run.returncode == 0, run.stdout + run.stderr
    [comment] = fake_github.comments_on(REPO, NUMBER)
    assert (comment["path"], comment["line"]) == ("pkg/model.py", 8)
    assert "```suggestion" in comment["body"]  # suggestions are still recomputed by the posting run
    [summary] = [c["body"] for c in fake_github.issue_comments_on(REPO, NUMBER) if "graphmend:summary" in c["body"]]
    assert "3 more in the baseline, not shown." in summary  # the count the pull request's run hid


def test_the_posting_run_reads_no_baseline_next_to_the_artifact(tmp_path: Path, fake_github: FakeGitHub) -> None:
    """The downloaded artifact's folder is the fork's: a baseline there that holds every finding
    (and a config naming it) hides nothing."""
    world = fork_world(tmp_path, fake_github)
    bundle = _first_workflow(world)
    downloads = tmp_path / "downloads"
    (downloads / "pkg").mkdir(parents=True)
    (downloads / "pkg" / "model.py").write_text(NEW)
    (downloads / "pyproject.toml").write_text(CONFIG)
    (downloads / "graphmend-baseline.json").write_text(baseline_of({**BASE, "pkg/model.py": NEW}, tmp_path / "all"))
    run = _second_workflow(world, downloads, bundle)
    assert run.returncode == 0, run.stdout + run.stderr
    assert [(c["path"], c["line"]) for c in fake_github.comments_on(REPO, NUMBER)] == [("pkg/model.py", 8)]


TWIN = '''\
import torch
from torch import nn


class Net(nn.Module):
    def forward(self, x):
        x = x - 1
        print("debug")
        return x
'''
# The pull request adds an identical print where the old one was (line 8), and moves the old one to 10
# (below the unchanged `x = x - 1`: the diff can place it only there).
TWIN_HEAD = TWIN.replace("        x = x - 1\n", '        x = x + 2\n        print("debug")\n        x = x - 1\n')


def twin_world(tmp: Path, fake_github: FakeGitHub) -> PullRequestWorld:
    base = {"pkg/__init__.py": "", "pkg/model.py": TWIN}
    baseline = baseline_of(base, tmp)
    return PullRequestWorld(tmp / "world", fake_github, {**base, "pyproject.toml": CONFIG,
                                                         "graphmend-baseline.json": baseline},
                            {"pkg/model.py": TWIN_HEAD})


def test_the_review_reports_the_added_twin_of_a_baselined_line(tmp_path: Path, fake_github: FakeGitHub) -> None:
    """review4 #7: the diff decides, not the order of identical lines nor the baseline's stored line."""
    world = twin_world(tmp_path, fake_github)
    run = world.run(world.event("pull_request.opened.json"), fail_on="findings")
    assert run.returncode == 1, run.stdout + run.stderr
    [comment] = fake_github.comments_on(REPO, NUMBER)
    assert (comment["path"], comment["line"]) == ("pkg/model.py", 8)
    assert "pre-existing" not in comment["body"].lower()
    local = subprocess.run([sys.executable, "-m", "graphmend_bot.cli", "review", "--base", world.base_sha,
                            "--output-format", "json"], cwd=world.git.root, capture_output=True, text=True)
    document = json.loads(local.stdout)
    assert [(c["path"], c["line"]) for c in document["review"]["comments"]] == [("pkg/model.py", 8)]
    assert document["new_on_added_lines"] == 1 and document["pre_existing_on_context_lines"] == 0


def test_a_pull_request_that_only_moves_a_baselined_line_reports_nothing(tmp_path: Path,
                                                                         fake_github: FakeGitHub) -> None:
    world = twin_world(tmp_path, fake_github)
    world.push({"pkg/model.py": TWIN.replace("        x = x - 1\n", "        x = x - 1\n        x = x * 3\n")})
    run = world.run(world.event("pull_request.synchronize.json"), fail_on="findings")
    assert run.returncode == 0, run.stdout + run.stderr
    assert fake_github.comments_on(REPO, NUMBER) == []
