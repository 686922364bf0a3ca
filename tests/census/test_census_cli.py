"""`graphmend census`: pytest with the plugin, in one command, with pytest's exit status."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from project import line_of, make_project


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


def test_a_suite_that_crashes_mid_run_keeps_what_ran_before_and_says_so(tmp_path: Path) -> None:
    """A test that kills the interpreter (a segfault in an extension, os.abort) ends pytest before the
    session finishes: the census written after the last test that explained a call is kept, marked
    incomplete, and `graphmend census` and `graphmend check --census` say so."""
    root = make_project(tmp_path)
    (root / "tests" / "test_crash.py").write_text(
        "import os\n\nimport torch\nfrom pkg.model import Net, score\n\n\ndef test_net():\n"
        "    Net()(torch.randn(2, 4))\n\n\ndef test_crash():\n    score(torch.ones(2))\n    os.abort()\n")
    (root / "graphmend-census.json").write_text("{}")  # from an earlier run: never taken for this one
    done = graphmend(root, "--", "-p", "no:cacheprovider", "-p", "no:faulthandler", "tests/test_crash.py")
    assert done.returncode == 128 + 6, done.stdout + done.stderr  # SIGABRT, as a shell reports it
    assert "pytest exited with 134 before the end of the session; graphmend-census.json holds what the tests " \
           "that ran before showed" in done.stderr
    census = json.loads((root / "graphmend-census.json").read_text("utf-8"))
    assert census["complete"] is False
    # test_net's explain was written after it; the crashing test's own call was lost with the process
    assert [c["test"] for c in census["calls"]] == ["tests/test_crash.py::test_net"]
    assert any(b["path"] == "pkg/model.py" and b["tests"] == ["tests/test_crash.py::test_net"]
               for b in census["breaks"])

    checked = subprocess.run([sys.executable, "-m", "graphmend_bot.cli", "check", "--census", "graphmend-census.json",
                              "--output-format", "json", "pkg"], cwd=root, capture_output=True, text=True, timeout=300,
                             check=False)
    assert "Traceback" not in checked.stderr
    assert "the census's test run stopped before its end (a crash?)" in checked.stderr
    branch = next(f for f in json.loads(checked.stdout) if f["location"]["row"] == line_of("# break: branch"))
    assert branch["dynamo"]["status"] == "confirmed" and branch["dynamo"]["test"] == "tests/test_crash.py::test_net"


def test_changed_since_runs_the_census_in_pull_request_mode(tmp_path: Path) -> None:
    """`graphmend census --changed-since BASE` is pytest's `--graphmend-census-changed-since=BASE`:
    only calls that reach a file changed since BASE are explained; a BASE git does not know is said,
    and every call is explained."""
    from graphmend_bot.census.record import load_census

    root = make_project(tmp_path)
    (root / "pkg" / "other.py").write_text("x = 1\n")  # changed since HEAD, and no test reaches it
    done = graphmend(root, "--changed-since", "HEAD", "--", "-p", "no:cacheprovider", "-k",
                     "clean_entry_point or score_prints")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 call(s) reach none and were not explained" in done.stdout
    census = load_census(root / "graphmend-census.json")
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True,
                          check=True).stdout.strip()
    assert census.partial and census.changed_since == head and census.changed_files == ["pkg/other.py"]
    assert census.calls == []

    done = graphmend(root, "--changed-since=-no-such-branch", "--", "-p", "no:cacheprovider", "-k",
                     "clean_entry_point")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "pull-request mode off, every call explained: --graphmend-census-changed-since '-no-such-branch' " \
           "is not a revision" in done.stdout
    census = load_census(root / "graphmend-census.json")
    assert not census.partial and [call.target for call in census.calls] == ["pkg.model:clean"]
