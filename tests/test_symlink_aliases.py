"""A file reached by two paths inside the project (`alias.py -> m.py`) is one file: its breaks are
reported, fixed and counted once (review7 finding 9: `--fix` said "Fixed 2 graph break(s) in 2
file(s)" for one break in one file, and wrote it twice)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from graphmend_bot.analysis.files import discover

MODEL = """import torch
from torch import nn


class M(nn.Module):
    def forward(self, x):
        y = x * 2
        print("v", y.shape)
        return y


model = torch.compile(M())
"""
GUARDED = '        if not torch.compiler.is_compiling():\n            print("v", y.shape)\n'


@pytest.fixture
def aliased(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.graphmend]\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "m.py").write_text(MODEL)
    (tmp_path / "pkg" / "alias.py").symlink_to("m.py")
    return tmp_path


def run(cmd: list[str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*cmd, "check", "--no-cache", *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def test_check_diff_and_fix_count_an_aliased_file_once(aliased, graphmend_cmd):
    check = run(graphmend_cmd, aliased, "pkg")
    assert check.stdout.count("GM401") == 1 and "pkg/m.py:8:9: GM401" in check.stdout
    assert "Found 1 graph break(s) in 1 file(s)." in check.stdout
    diff = run(graphmend_cmd, aliased, "--diff", "pkg")
    assert diff.stdout.count("+++ ") == 1 and "+++ b/pkg/m.py" in diff.stdout
    assert "Would fix 1 graph break(s) in 1 file(s)." in diff.stderr
    fix = run(graphmend_cmd, aliased, "--fix", "pkg")
    assert "Fixed 1 graph break(s) in 1 file(s)." in fix.stderr, fix.stdout + fix.stderr
    assert (aliased / "pkg" / "m.py").read_text() == MODEL.replace('        print("v", y.shape)\n', GUARDED)
    assert (aliased / "pkg" / "alias.py").is_symlink()


def test_the_path_named_on_the_command_line_is_the_one_reported(aliased, graphmend_cmd):
    alone = run(graphmend_cmd, aliased, "pkg/alias.py")
    assert "pkg/alias.py:8:9: GM401" in alone.stdout and "Found 1 graph break(s) in 1 file(s)." in alone.stdout
    both = run(graphmend_cmd, aliased, "pkg/alias.py", "pkg/m.py")  # pre-commit names both: the file's own path
    assert both.stdout.count("GM401") == 1 and "pkg/m.py:8:9: GM401" in both.stdout


def test_discovery_keeps_one_path_per_file_through_linked_folders(aliased, monkeypatch):
    (aliased / "linked").symlink_to("pkg", target_is_directory=True)
    monkeypatch.chdir(aliased)
    files, errors = discover(["linked", "pkg"])
    assert not errors
    assert [f.path for f in files] == ["pkg/__init__.py", "pkg/m.py"]
