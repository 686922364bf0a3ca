"""Issue 25.4: Python's compile warnings about a checked file never reach stderr.

Parsing a file with an invalid escape warns (a SyntaxWarning from Python 3.12, shown by default;
a DeprecationWarning before, shown under `-W default`), and the warning line starts with the file's
name: a pull request's file named `::warning ...::x.py` issued a workflow command in the Actions log."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FORGED = "::warning title=forged::pwned.py"
MODEL = '''\
import torch
from torch import nn


class M(nn.Module):
    def forward(self, x):
        s = f"""
::error title=forged::{x} \\d approved
"""
        print(s)
        return x
'''


def python312() -> str | None:
    """A Python 3.12 that can import GraphMend's dependencies: GRAPHMEND_TEST_PYTHON312, else python3.12."""
    candidate = os.environ.get("GRAPHMEND_TEST_PYTHON312") or shutil.which("python3.12")
    if not candidate:
        return None
    probe = subprocess.run([candidate, "-c", "import yaml, libcst"], capture_output=True, check=False)
    return candidate if probe.returncode == 0 else None


@pytest.mark.parametrize("interpreter", ["this", "3.12"])
def test_a_file_name_or_source_line_in_a_compile_warning_issues_no_workflow_command(tmp_path: Path,
                                                                                   interpreter: str) -> None:
    python = sys.executable if interpreter == "this" else python312()
    if python is None:
        pytest.skip("no Python 3.12 with PyYAML and libcst (set GRAPHMEND_TEST_PYTHON312)")
    (tmp_path / FORGED).write_text(MODEL)
    (tmp_path / "quoted.py").write_text(MODEL)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([python, "-W", "default", "-m", "graphmend_bot.cli", "check", FORGED, "quoted.py"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 1 and "GM401" in done.stdout, done.stdout + done.stderr  # both files checked
    assert "Warning" not in done.stderr, done.stderr
    assert not [line for line in done.stderr.splitlines() if line.strip().startswith("::")], done.stderr


def test_the_actions_run_python_with_warnings_off() -> None:
    for action in sorted((ROOT / "verify").glob("*/action.yml")):
        calls = re.findall(r'"\$GRAPHMEND_PYTHON" ([^\n]*)', action.read_text("utf-8"))
        assert calls and all(call.startswith("-I -W ignore -m graphmend_bot.cli") for call in calls), action
    assert re.search(r"^\s*PYTHONWARNINGS=ignore\b", (ROOT / "Dockerfile").read_text("utf-8"), re.M)
