"""`graphmend check --census`: the census merged into every output format, and bad censuses refused."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from project import line_of


def check(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "graphmend_bot.cli", "check", "pkg", *args], cwd=root,
                          capture_output=True, text=True, timeout=300, check=False)


def test_confirmed_findings_and_breaks_only_dynamo_saw(runs: tuple[Path, str, str]) -> None:
    root = runs[0]
    done = check(root, "--census", "graphmend-census.json", "--output-format", "json")
    assert done.returncode == 1, done.stderr
    findings = {(f["code"], f["location"]["row"]): f for f in json.loads(done.stdout)}
    branch = findings[("GM101", line_of("# break: branch"))]
    assert branch["dynamo"] == {"status": "confirmed",
                                "test": "tests/test_model.py::test_forward_sees_its_own_randomness_logs_and_stats",
                                "reason": "Data-dependent branching", "graph_break_id": "GB0170"}
    runtime = findings[("GM801", line_of("# break: only Dynamo"))]
    assert "Failed to mutate tensor data attribute" in runtime["message"]
    assert runtime["dynamo"]["test"] == "tests/test_model.py::test_timed_entry_point"
    # Without the census, the same check does not know that line.
    plain = {(f["code"], f["location"]["row"]) for f in json.loads(check(root, "--output-format", "json").stdout)}
    assert ("GM801", line_of("# break: only Dynamo")) not in plain and ("GM101", line_of("# break: branch")) in plain


def test_every_output_format_carries_the_evidence(runs: tuple[Path, str, str]) -> None:
    root = runs[0]
    confirmed = "confirmed by Dynamo in tests/test_model.py::test_forward_sees_its_own_randomness_logs_and_stats"
    text = check(root, "--census", "graphmend-census.json").stdout
    assert f"= note: {confirmed}" in text and "GM801" in text
    github = check(root, "--census", "graphmend-census.json", "--output-format", "github").stdout
    assert confirmed in github
    sarif = json.loads(check(root, "--census", "graphmend-census.json", "--output-format", "sarif").stdout)
    messages = [r["message"]["text"] for r in sarif["runs"][0]["results"]]
    assert any(confirmed in m for m in messages) and any(r["ruleId"] == "GM801" for r in sarif["runs"][0]["results"])
    ignored = check(root, "--census", "graphmend-census.json", "--ignore", "GM801").stdout
    assert "GM801" not in ignored and confirmed in ignored


def test_a_census_from_another_commit_or_malformed_is_a_message_and_the_check_goes_on(
        runs: tuple[Path, str, str], tmp_path: Path) -> None:
    root = runs[0]
    data = json.loads((root / "graphmend-census.json").read_text())
    stale = tmp_path / "stale.json"
    stale.write_text(json.dumps({**data, "commit": "b" * 40}))
    done = check(root, "--census", str(stale))
    assert "census not used: the census was recorded on commit bbbbbbbbbbbb" in done.stderr
    assert done.returncode == 1 and "GM101" in done.stdout and "GM801" not in done.stdout
    hostile = tmp_path / "hostile.json"
    hostile.write_text(json.dumps({**data, "breaks": [{"path": "../../etc/passwd", "line": 1, "reason": "x",
                                                       "gb_id": ""}]}))
    done = check(root, "--census", str(hostile))
    assert "census not used" in done.stderr and "relative path" in done.stderr and "Traceback" not in done.stderr
    assert "GM101" in done.stdout


def test_a_census_of_files_edited_since_its_commit_is_refused(runs: tuple[Path, str, str], tmp_path: Path) -> None:
    """Issue 24.5: after `--fix` shifted lines (HEAD unchanged), the census's lines point at other code."""
    root = tmp_path / "project"
    shutil.copytree(runs[0], root)
    assert "GM801" in check(root, "--census", "graphmend-census.json").stdout  # unedited: merged
    fixed = check(root, "--fix")
    assert "Fixed" in fixed.stderr and subprocess.run(["git", "diff", "--quiet"], cwd=root).returncode == 1
    done = check(root, "--census", "graphmend-census.json")
    [message] = [line for line in done.stderr.splitlines() if "census" in line]
    assert message.startswith("graphmend: census not used: pkg/model.py changed since commit ")
    assert "its lines would point at other code" in message and "Traceback" not in done.stderr
    # The check goes on statically: no line reported as a break only Dynamo saw, no evidence.
    assert done.returncode == 1 and "GM604" in done.stdout  # the break --fix has no rewrite for
    assert "GM801" not in done.stdout and "ran in the tests without a graph break" not in done.stdout
    assert "confirmed by Dynamo" not in done.stdout


def test_a_census_covering_an_untracked_file_is_refused(runs: tuple[Path, str, str], tmp_path: Path) -> None:
    """git diff never lists an untracked file, so an edit to one went unseen (review10 #6)."""
    root = tmp_path / "project"
    shutil.copytree(runs[0], root)
    (root / "pkg" / "newmod.py").write_text("import torch\n\n\ndef f(x):\n    return x * 2\n")
    data = json.loads((root / "graphmend-census.json").read_text())
    record = {**data["breaks"][0], "path": "pkg/newmod.py", "line": 5}
    (root / "untracked-census.json").write_text(json.dumps({**data, "breaks": [*data["breaks"], record]}))
    done = check(root, "--census", "untracked-census.json")
    [message] = [line for line in done.stderr.splitlines() if "census" in line]
    assert message.startswith("graphmend: census not used: pkg/newmod.py is not committed")
    assert done.returncode == 1 and "GM801" not in done.stdout and "Traceback" not in done.stderr

