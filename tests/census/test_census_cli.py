"""`graphmend census`: pytest with the plugin, in one command, with pytest's exit status."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from project import make_project


def graphmend(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "graphmend_bot.cli", "census", *args], cwd=root,
                          capture_output=True, text=True, timeout=600, check=False)


def test_runs_the_tests_with_the_census_and_keeps_pytests_status(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    done = graphmend(root, "--file", "out/census.json", "--commit", "ABC1234", "--",
                     "-p", "no:cacheprovider", "-k", "clean or failing")
    assert done.returncode == 1, done.stdout + done.stderr  # the project's failing test fails, as in pytest
    assert "1 failed, 1 passed" in done.stdout
    census = json.loads((root / "out" / "census.json").read_text("utf-8"))
    assert census["commit"] == "abc1234"
    assert sorted((c["target"], c["test"]) for c in census["calls"]) == [
        ("pkg.model.Net", "tests/test_model.py::test_a_failing_test_stays_failing"),
        ("pkg.model:clean", "tests/test_model.py::test_clean_entry_point")]


def test_no_census_written_is_exit_2_and_no_stale_file_is_left(tmp_path: Path) -> None:
    (tmp_path / "graphmend-census.json").write_text("{}")  # from an earlier run
    done = graphmend(tmp_path, "--", "--no-such-pytest-option")
    assert done.returncode == 2
    assert "wrote no census at graphmend-census.json" in done.stderr
    assert not (tmp_path / "graphmend-census.json").exists()


def test_a_commit_that_is_not_hexadecimal_is_reported_and_not_recorded(tmp_path: Path) -> None:
    from graphmend_bot.census.plugin import _commit

    assert _commit(tmp_path, "main; rm -rf /") == (
        "", "--graphmend-census-commit 'main; rm -rf /' is not a hexadecimal commit id: no commit recorded")
    assert _commit(tmp_path, "ABCDEF1") == ("abcdef1", "")
