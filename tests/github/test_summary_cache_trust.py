"""The summary cache in the Action (docs/security.md, "The summary cache"): only pushes to the default
branch save it, and a pull request's run never does (what such a run reads of a restored cache:
test_pull_request_cache.py).

`cache_problems` lists what a workflow file does against that rule; the shipped files have none,
and each way of breaking the rule is shown to be caught."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from graphmend_bot.config import Config
from graphmend_bot.github.core.context import read_context
from graphmend_bot.github.core.outputs import Log
from graphmend_bot.github.review.analyse import action_cache, analyse

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted([*ROOT.glob(".github/workflows/*.yml"), *ROOT.glob("examples/workflows/*.yml")])
ACTIONS = [ROOT / "action.yml", *sorted(ROOT.glob("verify/*/action.yml")), ROOT / "census" / "action.yml"]
DEFAULT_BRANCH_PUSH = re.compile(
    r"github\.event_name\s*==\s*'push'\s*&&\s*github\.ref\s*==\s*format\('refs/heads/\{0\}',\s*"
    r"github\.event\.repository\.default_branch\)")


def steps(document: dict[Any, Any]) -> list[list[dict[str, Any]]]:
    if "jobs" in document:
        return [job.get("steps", []) for job in document["jobs"].values()]
    return [document.get("runs", {}).get("steps", [])]


def cache_problems(document: dict[Any, Any]) -> list[str]:
    problems = []
    for job_steps in steps(document):
        uses = [str(step.get("uses", "")) for step in job_steps]
        graphmend = [i for i, step in enumerate(job_steps) if "cache-dir" in (step.get("with") or {})]
        for index, (step, action) in enumerate(zip(job_steps, uses, strict=True)):
            condition = " ".join(str(step.get("if", "")).split())
            if action.startswith("actions/cache@"):
                problems.append(f"step {index}: actions/cache saves at the end of every run, pull requests' too; "
                                "use actions/cache/restore and actions/cache/save")
            if action.startswith("actions/cache/save@") and not DEFAULT_BRANCH_PUSH.search(condition):
                problems.append(f"step {index}: saves a cache outside pushes to the default branch")
            if action.startswith("actions/cache/restore@") and graphmend:
                path = step["with"]["path"]
                emptied = any(f"rm -rf -- {path}" in str(earlier.get("run", "")) for earlier in job_steps[:index])
                if not emptied:
                    problems.append(f"step {index}: restores {path} without first removing what the checkout put there")
        for index in graphmend:
            folder = job_steps[index]["with"]["cache-dir"]
            restored = [s for s in job_steps[:index] if str(s.get("uses", "")).startswith("actions/cache/restore@")
                        and s["with"]["path"] == folder]
            if not restored:
                problems.append(f"step {index}: cache-dir {folder} is not restored before the action")
    return problems


def test_the_shipped_workflows_and_actions_keep_the_rule() -> None:
    uses_cache = []
    for path in [*WORKFLOWS, *ACTIONS]:
        document = yaml.safe_load(path.read_text("utf-8"))
        assert cache_problems(document) == [], path
        if "actions/cache" in path.read_text("utf-8"):
            uses_cache.append(path.name)
    assert "graphmend.yml" in uses_cache  # the rule is exercised, not vacuous
    assert "cache-dir" in yaml.safe_load((ROOT / "action.yml").read_text("utf-8"))["inputs"]


@pytest.mark.parametrize("old, new, problem", [
    ("actions/cache/restore@", "actions/cache@", "actions/cache saves"),
    ("github.event_name == 'push'", "github.event_name == 'pull_request'", "outside pushes to the default branch"),
    ("run: rm -rf -- .graphmend_cache", "run: 'true'", "without first removing"),
    ("uses: actions/cache/restore@", "uses: actions/checkout@", "is not restored before the action"),
])
def test_each_way_of_breaking_the_rule_is_caught(old: str, new: str, problem: str) -> None:
    text = (ROOT / "examples" / "workflows" / "graphmend.yml").read_text("utf-8")
    assert old in text
    problems = cache_problems(yaml.safe_load(text.replace(old, new, 1)))
    assert any(problem in p for p in problems), problems


def context(workspace: Path, cache_dir: str):
    return read_context({"GITHUB_EVENT_NAME": "push", "GITHUB_WORKSPACE": str(workspace),
                         "GITHUB_REPOSITORY": "o/r", "INPUT_CACHE-DIR": cache_dir})


def test_action_reads_and_writes_the_cache_dir_it_is_given(write_tree, monkeypatch) -> None:
    workspace = write_tree({"model.py": "import torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n"
                                        "        return x.item()\n"})
    monkeypatch.chdir(workspace)
    monkeypatch.delenv("GRAPHMEND_READ_ROOT", raising=False)
    first = analyse(context(workspace, ".graphmend_cache"), Config(), Log())
    assert list((workspace / ".graphmend_cache").rglob("*.json"))
    assert analyse(context(workspace, ".graphmend_cache"), Config(), Log()) == first
    assert action_cache(context(workspace, ""), Log()) is None  # no input: no cache


@pytest.mark.parametrize("name", ["../outside", "/tmp/elsewhere", "linked"])
def test_a_cache_dir_outside_the_workspace_or_through_a_symlink_is_refused(write_tree, name, tmp_path_factory) -> None:
    workspace = write_tree({"model.py": "x = 1\n"})
    os.symlink(tmp_path_factory.mktemp("target"), workspace / "linked")
    log = Log()
    assert action_cache(context(workspace, name), log) is None
    assert any("no summary cache" in line for line in log.lines)
