"""A file reached by two paths inside the project (`alias.py -> m.py`): each path is a module
Python can import, so both are analysed and reported (as ruff reports both), but `--fix` writes
and counts the file once (review7 finding 9: it said "Fixed 2 graph break(s) in 2 file(s)" for one
break in one file, and wrote it twice). Dropping the alias from discovery instead lost the breaks
of code imported through it (review8 #3)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

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


def test_fix_writes_and_counts_an_aliased_file_once(aliased, graphmend_cmd):
    diff = run(graphmend_cmd, aliased, "--diff", "pkg")
    assert diff.stdout.count("+++ ") == 1 and "+++ b/pkg/m.py" in diff.stdout
    assert "Would fix 1 graph break(s) in 1 file(s)." in diff.stderr
    fix = run(graphmend_cmd, aliased, "--fix", "pkg")
    assert "Fixed 1 graph break(s) in 1 file(s)." in fix.stderr, fix.stdout + fix.stderr
    assert (aliased / "pkg" / "m.py").read_text() == MODEL.replace('        print("v", y.shape)\n', GUARDED)
    assert (aliased / "pkg" / "alias.py").is_symlink()
    assert "could not be analysed" not in fix.stdout
    assert "No graph breaks" in run(graphmend_cmd, aliased, "pkg").stdout


def test_a_break_reached_through_the_alias_module_is_still_found(aliased, graphmend_cmd):
    """review8 #3: net.py imports the helper through pkg.alias; the alias is that module's file."""
    (aliased / "pkg" / "m.py").write_text("def helper(x):\n    print(x)\n    return x\n")
    (aliased / "pkg" / "net.py").write_text(
        "import torch\nfrom pkg.alias import helper\n\n\n@torch.compile\ndef f(x):\n    return helper(x)\n")
    check = run(graphmend_cmd, aliased, ".")
    assert "pkg/alias.py:2:5: GM401" in check.stdout, check.stdout
