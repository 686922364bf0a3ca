"""census/action.yml and the example census workflow: the census step never fails the job, takes its
inputs as plain arguments, and runs the pull request's tests with no token; the review job consumes
the artifact whatever became of the census job."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
ACTION = ROOT / "census" / "action.yml"
WORKFLOW = ROOT / "examples" / "workflows" / "graphmend-census.yml"


def load(path: Path) -> dict[Any, Any]:
    loaded: dict[Any, Any] = yaml.safe_load(path.read_text("utf-8"))
    return loaded


def census_step() -> dict[str, Any]:
    return next(s for s in load(ACTION)["runs"]["steps"] if s.get("id") == "census")


def run_census_step(tmp_path: Path, stand_in: str, pytest_args: str = "") -> tuple[subprocess.CompletedProcess[str],
                                                                                   dict[str, str]]:
    """The step's script, as the runner runs it (`bash -e`), with a stand-in for the job's Python."""
    python = tmp_path / "python"
    python.write_text(f"#!/bin/sh\n{stand_in}\n")
    python.chmod(0o755)
    output = tmp_path / "output"
    env = {"PATH": "/usr/bin:/bin", "PYTHON": str(python), "PYTEST_ARGS": pytest_args,
           "CENSUS_FILE": "graphmend-census.json", "COMMIT": "a" * 40, "GITHUB_OUTPUT": str(output)}
    done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", census_step()["run"]], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=30)
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines()) if output.exists() else {}
    return done, outputs


def test_failing_tests_do_not_fail_the_step_and_the_census_is_kept(tmp_path: Path) -> None:
    done, outputs = run_census_step(tmp_path, 'echo "{}" > graphmend-census.json; exit 1')
    assert done.returncode == 0, done.stderr
    assert outputs == {"tests-exit-code": "1", "census-file": "graphmend-census.json"}
    assert "::notice title=GraphMend census::pytest exited with 1" in done.stdout


def test_a_suite_that_crashes_before_writing_leaves_no_census_and_a_warning(tmp_path: Path) -> None:
    (tmp_path / "graphmend-census.json").write_text("stale, from an earlier run")
    done, outputs = run_census_step(tmp_path, "exit 139")
    assert done.returncode == 0, done.stderr
    assert outputs == {"tests-exit-code": "139", "census-file": ""}
    assert "wrote no census" in done.stdout
    assert not (tmp_path / "graphmend-census.json").exists()  # a stale census is never uploaded as this one's


def test_inputs_reach_pytest_as_plain_arguments(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    done, outputs = run_census_step(tmp_path, 'for a in "$@"; do echo "[$a]"; done; echo "{}" > graphmend-census.json',
                                    pytest_args=f"tests -k 'a or b' $(touch {marker}) *")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "[-m]", "[pytest]", "[--graphmend-census]", "[--graphmend-census-file=graphmend-census.json]",
        f"[--graphmend-census-commit={'a' * 40}]", "[tests]", "[-k]", "['a]", "[or]", "[b']", "[$(touch]",
        f"[{marker})]", "[*]"]
    assert not marker.exists() and outputs["tests-exit-code"] == "0"


def test_the_census_action_holds_no_token() -> None:
    action = load(ACTION)
    assert not [name for name in action["inputs"] if re.search("token|secret", name, re.I)]
    for step in action["runs"]["steps"]:
        assert "${{" not in step.get("run", ""), f"{step.get('name')}: inputs reach shell only through env"
        assert not re.search(r"token|secret", str(step.get("env", {})) + str(step.get("with", {})), re.I)
    upload = next(s for s in action["runs"]["steps"] if "upload-artifact" in s.get("uses", ""))
    assert re.fullmatch(r"actions/upload-artifact@[0-9a-f]{40}", upload["uses"])


def test_the_example_runs_the_tests_read_only_and_reviews_whatever_happened() -> None:
    workflow = load(WORKFLOW)
    assert set(workflow[True]) == {"pull_request"}  # YAML 1.1 reads the key `on` as true
    census, review = workflow["jobs"]["census"], workflow["jobs"]["review"]
    assert census["permissions"] == {"contents": "read"}
    assert "secrets." not in yaml.safe_dump(census) and "environment" not in census
    checkout = next(s for s in census["steps"] if s.get("uses", "").startswith("actions/checkout@"))
    assert checkout["with"] == {"ref": "${{ github.event.pull_request.head.sha }}", "persist-credentials": False}
    assert any(s.get("uses", "").startswith("graphmend/action/census@") for s in census["steps"])
    assert review["needs"] == "census" and review["if"] == "always()"
    action = next(s for s in review["steps"] if s.get("uses", "").startswith("graphmend/action@"))
    assert action["with"]["census-file"] == ".graphmend-census/graphmend-census.json"
    download = next(s for s in review["steps"] if "download-artifact" in s.get("uses", ""))
    assert download["with"]["name"] == load(ACTION)["inputs"]["artifact-name"]["default"]
    assert download["continue-on-error"] is True
