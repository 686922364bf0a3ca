"""The install a user types (issue 29.1): the built wheel, alone in a fresh virtual environment,
gives a `graphmend` command that checks the bundled example, with no torch installed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


# Nothing of this checkout may leak into the fresh environment (a PYTHONPATH naming it would make pip
# take the package as installed already, and the command run this tree's code).
CLEAN_ENV = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}


def run(*args: str | Path, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=600, env=CLEAN_ENV)


@pytest.mark.skipif(shutil.which("git") is None, reason="the version comes from git (setuptools-scm)")
def test_the_built_wheel_installs_in_a_fresh_venv_and_checks_the_example(tmp_path: Path) -> None:
    built = run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--wheel-dir", tmp_path / "dist", ROOT)
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel,) = (tmp_path / "dist").glob("graphmend-*-py3-none-any.whl")
    fresh = tmp_path / "fresh"
    venv.create(fresh, with_pip=True)
    python = fresh / "bin" / "python"
    installed = run(python, "-m", "pip", "install", "--quiet", wheel)
    assert installed.returncode == 0, installed.stderr[-3000:]

    version = run(fresh / "bin" / "graphmend", "--version")
    assert version.returncode == 0 and version.stdout.startswith("graphmend ")
    assert version.stdout.split()[1] == wheel.name.split("-")[1]  # the version the wheel was built with
    example = tmp_path / "examples"
    shutil.copytree(ROOT / "examples", example)
    checked = run(fresh / "bin" / "graphmend", "check", ".", cwd=example)
    assert checked.returncode == 1, checked.stdout + checked.stderr  # the example's breaks, found
    assert "tinyformer/model.py:" in checked.stdout and "Found " in checked.stdout
    assert checked.stderr == ""
    # `check` needs no torch: the user's project brings its own (the wheel does not depend on it).
    assert run(python, "-c", "import torch").returncode != 0
