"""`graphmend verify` from the command line: --against a git ref, the safe fixes, exit codes."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
import torch

from graphmend_bot.cli import main
from graphmend_bot.config import load_config
from graphmend_bot.rewrite import fix_paths

from .conftest import PAIRS

MODEL = """import logging

import torch

logger = logging.getLogger(__name__)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)

    def forward(self, x):
        y = self.lin(x)
        logger.warning("computing")
        return torch.relu(y) + 1


def factory(seed):
    return Net().eval(), (torch.randn(2, 8),)
"""
CONFIG = """verify:
  backend: eager
  device: cpu
  seeds: [0]
  warmup: 0
  repeat: 2
  entry-points:
    - name: net
      factory: model:factory
"""
QUICK_FLAGS = [
    "--backend",
    "eager",
    "--device",
    "cpu",
    "--seeds",
    "0",
    "--warmup",
    "0",
    "--repeat",
    "2",
    "-q",
]


def git(repo: Path, *arguments: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *arguments],
        cwd=repo,
        check=True,
        capture_output=True,
    )


def explain_source(path: Path) -> int:
    """graph_count of the factory's module in `path`, from Dynamo in this process."""
    spec = importlib.util.spec_from_file_location(f"verify_cli_{abs(hash(path))}", path)
    assert spec is not None and spec.loader is not None
    module: ModuleType = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    torch.manual_seed(0)
    fn, args = module.factory(0)
    torch._dynamo.reset()
    with torch.no_grad():
        return torch._dynamo.explain(fn)(*args).graph_count


def test_against_a_ref_compares_the_working_tree_with_the_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "model.py").write_text(MODEL)
    (repo / "src" / ".graphmend.yml").write_text(CONFIG)
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "original")
    guarded = MODEL.replace(
        '        logger.warning("computing")',
        '        if not torch.compiler.is_compiling():\n            logger.warning("computing")',
    )
    (repo / "src" / "model.py").write_text(guarded)
    monkeypatch.chdir(repo / "src")  # entry points resolve from a subfolder of the repository

    assert main(["verify", "--against", "HEAD", "--json", "-q"]) == 0

    data = json.loads(capsys.readouterr().out)
    assert data["original"]["label"] == "HEAD"
    assert data["rewritten"]["root"] == str((repo / "src").resolve())
    (entry,) = data["entry_points"]
    assert entry["name"] == "net"
    assert entry["original"]["graph_count"] == explain_source(tmp_path / "repo" / "src" / "model.py") + 1
    assert entry["rewritten"]["graph_count"] == explain_source(repo / "src" / "model.py")
    assert entry["original"]["graph_break_count"] == 1
    assert entry["rewritten"]["graph_break_count"] == 0
    assert entry["outputs_equal"] is True
    assert entry["verdict"] == "improved"


def test_without_a_source_the_safe_fixes_are_applied_to_a_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "model.py").write_text(MODEL)
    monkeypatch.chdir(project)

    code = main(["verify", "--entrypoint", "model:factory", "--markdown", *QUICK_FLAGS])

    markdown = capsys.readouterr().out
    assert (project / "model.py").read_text() == MODEL  # the working tree is never written
    (change,) = fix_paths([str(project)], load_config(start=project))
    fixed = tmp_path / "fixed.py"
    fixed.write_text(change.after)
    expected = (explain_source(project / "model.py"), explain_source(fixed))
    assert expected[1] < expected[0]
    row = next(line for line in markdown.splitlines() if line.startswith("| model:factory |"))
    assert row.startswith(f"| model:factory | {expected[0]} -> {expected[1]} |")
    assert row.endswith(":white_check_mark: improved |")
    assert "working tree + safe fixes (1 file)" in markdown
    assert code == 0


def test_a_failing_entry_point_exits_1_with_the_reason(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(PAIRS / "rewritten")
    code = main(
        ["verify", "--original", str(PAIRS / "original"), "--entrypoint", "vcases:swapped_case", *QUICK_FLAGS]
    )
    captured = capsys.readouterr()
    assert code == 1
    assert "vcases:swapped_case" in captured.out and "outputs differ" in captured.out
    assert (
        "graphmend verify: vcases:swapped_case: outputs differ (bit-identical required): seed 0, eager"
        in captured.err
    )


@pytest.mark.parametrize(
    ("arguments", "config", "message"),
    [
        ([], None, "graphmend verify: no entry points; pass --entrypoint module:callable"),
        (["--entrypoint", "model.py"], None, "'model.py' is not of the form 'package.module:callable'"),
        ([], "verify:\n  device: tpu\n", "verify.device must be one of auto, cpu, cuda"),
        (["--entrypoint", "m:f", "--against", "no-such-ref"], None, "--against no-such-ref: "),
        (
            ["--entrypoint", "m:f", "--original", "/nonexistent/dir"],
            None,
            "--original /nonexistent/dir: not a directory",
        ),
    ],
)
def test_unusable_input_exits_2_with_a_message(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    arguments: list[str],
    config: str | None,
    message: str,
) -> None:
    if config is not None:
        (tmp_path / ".graphmend.yml").write_text(config)
    monkeypatch.chdir(tmp_path)
    assert main(["verify", *arguments]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


def test_the_cli_runs_as_a_program(tmp_path: Path) -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "graphmend_bot.cli", "verify", "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0
    assert "--against REF" in completed.stdout and "--entrypoint MODULE:CALLABLE" in completed.stdout


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("model:factory", "net (model:factory): module 'model' is missing from the rewritten arm ("),
        ("helpers:factory", "net (helpers:factory): helpers.py in the original arm defines no 'factory'"),
        ("nowhere_at_all:factory", "net (nowhere_at_all:factory): module 'nowhere_at_all' is in neither arm"),
    ],
)
def test_an_entry_point_is_resolved_in_both_arms_before_anything_compiles(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], entry: str, message: str
) -> None:
    """Issue 29.5: the missing file was found after the other arm compiled for a minute."""
    original, rewritten = tmp_path / "original", tmp_path / "rewritten"
    for arm in (original, rewritten):
        arm.mkdir()
        (arm / "helpers.py").write_text("def fatcory(seed):\n    return None\n")
    (original / "model.py").write_text(MODEL)
    (rewritten / ".graphmend.yml").write_text(CONFIG.replace("model:factory", entry))
    monkeypatch.chdir(rewritten)
    assert main(["verify", "--original", str(original), "-q"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # no arm ran: nothing measured, no report
    assert f"graphmend verify: {message}" in captured.err
