"""action.yml, the Dockerfile and every workflow: valid against GitHub's schemas, clean under
zizmor, and consistent with what the tests run."""

from __future__ import annotations

import importlib.metadata
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted([*ROOT.glob(".github/workflows/*.yml"), *ROOT.glob("examples/workflows/*.yml")])
BIN = Path(sys.executable).parent


def tool(name: str) -> str:
    path = BIN / name
    found = str(path) if path.exists() else shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed (it is in the `test` extra)")
    return found


ACTIONS = [ROOT / "action.yml", *sorted(ROOT.glob("verify/*/action.yml")), ROOT / "census" / "action.yml"]


def test_there_are_workflows_to_check() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in WORKFLOWS}
    assert {".github/workflows/ci.yml", "examples/workflows/graphmend.yml", "examples/workflows/graphmend-fix.yml",
            "examples/workflows/graphmend-schedule.yml", "examples/workflows/graphmend-verify.yml",
            "examples/workflows/graphmend-census.yml", "examples/workflows/graphmend-census-base.yml"} <= names


@pytest.mark.parametrize("schema, files", [
    ("vendor.github-actions", ACTIONS),
    ("vendor.github-workflows", WORKFLOWS),
])
def test_valid_against_github_schemas(schema: str, files: list[Path]) -> None:
    done = subprocess.run([tool("check-jsonschema"), "--builtin-schema", schema, *map(str, files)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_zizmor_finds_nothing() -> None:
    """The auditor persona (every audit, pedantic ones included); each remaining ignore says why."""
    files = [*map(str, ACTIONS), *map(str, WORKFLOWS)]
    done = subprocess.run([tool("zizmor"), "--offline", "--no-progress", "--persona", "auditor", *files],
                          capture_output=True, text=True, timeout=120, env={"PATH": "/usr/bin:/bin",
                                                                             "NO_COLOR": "1"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "No findings to report" in done.stdout
    for path in (*ACTIONS, *WORKFLOWS):
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            ignore = re.search(r"zizmor: ignore\[[\w,-]+\](.*)", line)
            if ignore:
                assert len(ignore.group(1).split()) >= 3, f"{path.name}:{number}: say why the finding is ignored"


def test_actionlint_finds_nothing() -> None:
    """actionlint (expressions, job outputs, `needs`, runner labels from .github/actionlint.yaml, and
    shellcheck on every `run:` script)."""
    done = subprocess.run([tool("actionlint"), "-no-color", "-shellcheck", tool("shellcheck"),
                           "-config-file", str(ROOT / ".github" / "actionlint.yaml"), *map(str, WORKFLOWS)],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr


def test_shellcheck_finds_nothing_in_the_composite_actions(tmp_path: Path) -> None:
    """actionlint does not read composite actions: their scripts (bash, as the runner runs them) and
    verify/install.sh go through shellcheck here."""
    scripts = [ROOT / "verify" / "install.sh"]
    for action in ACTIONS:
        steps = yaml.safe_load(action.read_text("utf-8"))["runs"].get("steps", [])
        for number, step in enumerate(steps):
            if "run" in step:
                assert step.get("shell") == "bash", f"{action}: step {number} must say `shell: bash`"
                script = tmp_path / f"{action.parent.name}-{number}.sh"
                script.write_text(f"#!/usr/bin/env bash\nset -eo pipefail\n{step['run']}", encoding="utf-8")
                scripts.append(script)
    done = subprocess.run([tool("shellcheck"), *map(str, scripts)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_workflow_sets_least_privilege_permissions() -> None:
    for path in WORKFLOWS:
        workflow = yaml.safe_load(path.read_text("utf-8"))
        assert workflow["permissions"] == {}, f"{path.name}: default permissions must be none"
        for name, job in workflow["jobs"].items():
            assert "permissions" in job, f"{path.name}: job {name} must say which permissions it needs"
            assert "write-all" not in str(job["permissions"])


def test_action_inputs_are_the_ones_the_bot_reads() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text("utf-8"))
    assert action["runs"] == {"using": "docker", "image": "Dockerfile"}
    assert set(action["outputs"]) == {"findings", "fixable", "sarif-file", "shard-file"}
    source = "".join(p.read_text("utf-8") for p in (ROOT / "graphmend_bot" / "github").rglob("*.py"))
    for name in action["inputs"]:
        assert f'"{name}"' in source, f"input {name} is declared but the bot never reads it"


def test_dockerfile_runs_the_bot_with_the_tested_versions() -> None:
    text = (ROOT / "Dockerfile").read_text("utf-8")
    instructions = [line.split()[0] for line in text.splitlines() if line and not line.startswith((" ", "#"))]
    assert "USER" not in instructions and "WORKDIR" not in instructions
    # slim, pinned by tag and digest; an ARG so tests can build on a local stand-in (issue 15)
    assert re.search(r"^ARG BASE=python:\d+\.\d+\.\d+-slim-\w+@sha256:[0-9a-f]{64}$", text, re.M), \
        "base image must be slim and pinned by digest"
    assert re.search(r"^FROM \$\{BASE\}$", text, re.M)
    assert 'ENTRYPOINT ["graphmend", "bot"]' in text
    assert "pip install --require-hashes --no-deps -r /opt/graphmend/verify/requirements.lock" in text
    assert "pip install --no-deps --no-index --no-build-isolation /opt/graphmend" in text
    assert not re.findall(r'"([A-Za-z0-9_.-]+)==([^"]+)"', text)  # every pin is in the hashed lock


def test_the_hashed_lock_pins_what_the_tests_run_with() -> None:
    """Issue 25.4: the image and verify/install.sh install verify/requirements.lock with
    --require-hashes; its pins are constraints.txt's (what `make test` installs), each with hashes."""
    lock = (ROOT / "verify" / "requirements.lock").read_text("utf-8")
    requirements = re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)[^\n]*\\\n((?:\s+--hash=sha256:[0-9a-f]{64}[ \\]*\n)+)", lock, re.M)
    pins = {name.lower(): version for name, version, _ in requirements}
    assert {"pygithub", "libcst", "pyyaml", "setuptools"} <= set(pins) and "torch" not in pins
    assert len(requirements) == len(re.findall(r"^[A-Za-z0-9_.-]+==", lock, re.M))  # every pin has hashes
    constraints = {name.lower(): version for name, version in
                   re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)$", (ROOT / "constraints.txt").read_text("utf-8"), re.M)}
    for name, version in pins.items():
        assert constraints.get(name) == version, f"{name}: the lock pins {version}, constraints.txt {constraints.get(name)}"
    for name in ("PyGithub", "libcst", "PyYAML"):
        assert importlib.metadata.version(name) == pins[name.lower()], f"{name}: the tests run another version"
    install = (ROOT / "verify" / "install.sh").read_text("utf-8")
    assert '--require-hashes -r "$source_dir/verify/requirements.lock"' in install
    assert re.search(r"--no-index --no-build-isolation \"\$source_dir\"", install)


def test_the_bot_does_not_import_torch(tmp_path: Path) -> None:
    """The image has no torch: analysing, fixing and reporting must not import it."""
    (tmp_path / "model.py").write_text(
        "import torch\nfrom torch import nn\n\n\nclass Net(nn.Module):\n"
        "    def forward(self, x):\n        print('forward')\n        n = x.sum().item()\n"
        "        if x.sum() > 0:\n            x = x * 2\n        return x * n\n", encoding="utf-8")
    code = (
        "import sys\n"
        "from graphmend_bot.github import run_bot\n"
        "from graphmend_bot.config import Config\n"
        "from graphmend_bot.github.review.analyse import _with_fixes\n"
        "from graphmend_bot.github.core.outputs import Log\n"
        "from graphmend_bot.engine import check\n"
        "from graphmend_bot.report.markdown import SummaryView, summary_markdown\n"
        "result = _with_fixes(check(['model.py']), Config(), Log())\n"
        "assert len(result.findings) == 3 and any(f.fix for f in result.findings), result\n"
        "summary_markdown(SummaryView(result.findings))\n"
        "assert 'torch' not in sys.modules, 'torch was imported'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def _workflow(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "examples" / "workflows" / name).read_text("utf-8"))
    return loaded


def _triggers(workflow: dict[Any, Any]) -> dict[str, Any]:
    triggers: dict[str, Any] = workflow[True]  # YAML 1.1 reads the key `on` as true
    return triggers


def test_the_census_pair_takes_its_base_only_from_the_default_branch() -> None:
    """graphmend-census-base.yml runs on push and schedule only (the events the bot trusts a base census
    from) and uploads the artifact the review names; graphmend-census.yml runs the pull request's tests
    with contents: read alone and reviews with that workflow as its base; neither touches a cache."""
    folder = ROOT / "examples" / "workflows"
    base = yaml.safe_load((folder / "graphmend-census-base.yml").read_text("utf-8"))
    pair = yaml.safe_load((folder / "graphmend-census.yml").read_text("utf-8"))
    assert set(base[True]) == {"push", "schedule"}  # YAML 1.1 reads the `on:` key as True
    [census_step] = [s for s in base["jobs"]["census"]["steps"] if "graphmend/action/census" in s.get("uses", "")]
    assert census_step["with"].get("artifact-name", "graphmend-census") == "graphmend-census"
    assert set(pair[True]) == {"pull_request"}
    assert pair["jobs"]["census"]["permissions"] == {"contents": "read"}
    review = pair["jobs"]["review"]
    assert review["permissions"]["actions"] == "read"
    [action] = [s for s in review["steps"] if s.get("uses", "").startswith("graphmend/action@")]
    assert action["with"]["census-base-workflow"] == "graphmend-census-base.yml"
    assert action["with"]["fail-on"] == "new-breaks"
    for workflow in (base, pair):
        for job in workflow["jobs"].values():
            assert not any("actions/cache" in step.get("uses", "") for step in job["steps"])


def test_the_readme_shows_the_census_pair_first() -> None:
    """The README's first Action snippet is the recommended setup: the census pair."""
    readme = (ROOT / "README.md").read_text("utf-8")
    action = readme[readme.index("## GitHub Action"):]
    first = action[action.index("```yaml"):]
    first = first[:first.index("\n```\n")]
    assert "graphmend/action/census@v1" in first and "census-base-workflow: graphmend-census-base.yml" in first
    assert "fail-on: new-breaks" in first and "schedule:" in first
    quick = readme[readme.index("## Quick start"):readme.index("## Usage")]
    assert "```sh\nmake demo\nmake test\n```" in quick


def test_fix_and_scan_workflows() -> None:
    fix = _workflow("graphmend-fix.yml")
    # workflow_dispatch: the verify workflow's submit starts the narrowing round (issue 11).
    assert set(_triggers(fix)) == {"workflow_run", "pull_request_target", "issue_comment", "workflow_dispatch"}
    assert set(_triggers(fix)["workflow_dispatch"]["inputs"]) == {"narrow-fix-pull-request", "head-sha"}
    narrow = fix["jobs"]["narrow"]
    assert narrow["if"] == "github.event_name == 'workflow_dispatch'" and narrow["environment"] == "graphmend"
    assert narrow["permissions"] == {}  # the App token writes; GITHUB_TOKEN holds nothing
    for name in ("graphmend-verify.yml", "graphmend-verify-cpu.yml"):
        submit = _workflow(name)["jobs"]["submit"]
        step = next(s for s in submit["steps"] if "verify/submit" in s.get("uses", ""))
        assert step["with"]["narrow-workflow"] == "graphmend-fix.yml"
        assert submit["permissions"] == {"contents": "read", "pull-requests": "write", "actions": "write"}
    assert _triggers(fix)["workflow_run"] == {"workflows": ["GraphMend"], "types": ["completed"]}
    assert _triggers(fix)["pull_request_target"] == {"types": ["closed"]}
    assert _workflow("graphmend.yml")["name"] == "GraphMend"  # what workflow_run follows
    job = fix["jobs"]["fix"]
    assert "head_repository.full_name == github.repository" in job["if"]
    for job in fix["jobs"].values():  # nothing from a pull request is checked out, on any event
        assert not any("actions/checkout" in s.get("uses", "") for s in job["steps"])
    uses = next(s for s in fix["jobs"]["fix"]["steps"] if s.get("uses", "").startswith("graphmend/action"))
    assert uses["with"]["fix-pr"] is True and "steps.app.outputs.token" in uses["with"]["github-token"]
    assert uses["with"]["verify-workflow"] == "graphmend-verify.yml"
    scan = _workflow("graphmend-schedule.yml")
    assert set(_triggers(scan)) == {"schedule", "workflow_dispatch"}
    shards = scan["jobs"]["shard"]["strategy"]["matrix"]["shard"]
    step = next(s for s in scan["jobs"]["shard"]["steps"] if s.get("uses", "").startswith("graphmend/action"))
    assert step["with"]["shard"] == f"${{{{ matrix.shard }}}}/{len(shards)}"
    merge = scan["jobs"]["merge"]
    assert merge["needs"] == "shard"
    assert any("shard-results" in s.get("with", {}) for s in merge["steps"])


def test_docs_show_the_complete_setup_verbatim() -> None:
    """docs/github-action.md embeds every example workflow as it is (no drift between the two)."""
    docs = (ROOT / "docs" / "github-action.md").read_text("utf-8")
    for name in ("graphmend.yml", "graphmend-fix.yml", "graphmend-schedule.yml", "graphmend-verify.yml",
                 "graphmend-census.yml", "graphmend-census-base.yml"):
        text = (ROOT / "examples" / "workflows" / name).read_text("utf-8").rstrip("\n")
        assert f"```yaml\n{text}\n```" in docs, f"{name} in docs/github-action.md differs from the example"
    assert "GitHub App token, not `GITHUB_TOKEN`" in docs
