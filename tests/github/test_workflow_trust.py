"""The trust model of docs/security.md, checked on the workflow and action files themselves.

Each rule is a function that lists the problems of one file. The tests assert that the shipped files
have none, and that the files as they were at 503ed7c (tests/github/fixtures/insecure-503ed7c, the
ones the security review broke into) have some: a rule that cannot see those attacks proves nothing.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "workflows"
WORKFLOWS = sorted([*ROOT.glob(".github/workflows/*.yml"), *EXAMPLES.glob("*.yml")])
ACTIONS = [ROOT / "action.yml", *sorted(ROOT.glob("verify/*/action.yml"))]
INSECURE = ROOT / "tests" / "github" / "fixtures" / "insecure-503ed7c"
PULL_REQUEST_EVENTS = ("pull_request", "pull_request_target")
CHECKOUT = "actions/checkout@"


def load(path: Path) -> dict[Any, Any]:
    loaded: dict[Any, Any] = yaml.safe_load(path.read_text("utf-8"))
    return loaded


def triggers(workflow: dict[Any, Any]) -> set[str]:
    on = workflow[True]  # YAML 1.1 reads the key `on` as true
    return {on} if isinstance(on, str) else set(on)


def text(node: Any) -> str:
    return yaml.safe_dump(node, sort_keys=False)


def required_event(job: dict[str, Any]) -> str | None:
    """The event a job's `if:` requires: `github.event_name == 'x'` alone or as its first `&&` term."""
    found = re.fullmatch(r"\s*github\.event_name\s*==\s*'(\w+)'\s*(&&.*)?", str(job.get("if", "")), re.S)
    return found.group(1) if found else None


def reachable_jobs(workflow: dict[Any, Any], event: str) -> dict[str, dict[str, Any]]:
    """The jobs that may run for `event`. On `pull_request` that is every job: the pull request's branch
    controls the workflow file, `if:` included. Otherwise a job is left out only when its `if:` requires
    another event, or when it needs a job that is left out (and does not say always())."""
    if event not in triggers(workflow):
        return {}
    jobs: dict[str, dict[str, Any]] = workflow["jobs"]
    if event == "pull_request":
        return dict(jobs)
    reachable = {name for name, job in jobs.items() if required_event(job) in (None, event)}
    changed = True
    while changed:
        changed = False
        for name in sorted(reachable):
            needs = jobs[name].get("needs", [])
            needs = [needs] if isinstance(needs, str) else needs
            if "always()" not in str(jobs[name].get("if", "")) and any(n not in reachable for n in needs):
                reachable.discard(name)
                changed = True
    return {name: jobs[name] for name in reachable}


def uses(step: dict[str, Any], action: str) -> bool:
    return str(step.get("uses", "")).startswith(action)


def pull_request_problems(workflow: dict[Any, Any]) -> list[str]:
    """What a pull request can reach: on `pull_request` the pull request's branch controls the workflow
    file itself, so its jobs get no self-hosted runner, no secret and no environment; on
    `pull_request_target` (the base's file, with a write token) nothing is checked out either."""
    problems = []
    for event in PULL_REQUEST_EVENTS:
        for name, job in reachable_jobs(workflow, event).items():
            if "self-hosted" in text(job.get("runs-on", "")):
                problems.append(f"{event}: job {name} runs on a self-hosted runner")
            if "secrets." in text(job):
                problems.append(f"{event}: job {name} uses a secret")
            if "environment" in job:
                problems.append(f"{event}: job {name} enters an environment")
            if event == "pull_request_target" and any(uses(s, CHECKOUT) for s in job.get("steps", [])):
                problems.append(f"{event}: job {name} checks code out")
    return problems


def secret_problems(workflow: dict[Any, Any]) -> list[str]:
    """Every stored secret is read in a job with an environment, whose deployment branches guard it.
    `secrets.GITHUB_TOKEN` is the job's own token, bounded by its `permissions:`, not a stored secret."""
    return [f"job {name} uses a secret outside an environment" for name, job in workflow["jobs"].items()
            if re.search(r"secrets\.(?!GITHUB_TOKEN\b)", text(job)) and "environment" not in job]


def verify_problems(workflow: dict[Any, Any]) -> list[str]:
    """The GPU path: dispatch only; preflight, then a tokenless measure job, then a submit job that runs
    no pull request code."""
    problems = []
    if triggers(workflow) != {"workflow_dispatch"}:
        problems.append(f"triggered by {sorted(triggers(workflow))}, not workflow_dispatch alone")
    jobs = workflow["jobs"]
    for name in ("preflight", "measure", "submit"):
        if name not in jobs:
            problems.append(f"no {name} job")
    if problems:
        return problems
    preflight, measure, submit = jobs["preflight"], jobs["measure"], jobs["submit"]
    for name, job in (("preflight", preflight), ("submit", submit)):
        if job["runs-on"] != "ubuntu-latest":
            problems.append(f"{name} must run on a GitHub-hosted runner")
    if set(text(preflight["permissions"]).split()) - {"pull-requests:", "read", "contents:"}:
        problems.append("preflight must be read-only")
    # The GPU runner (self-hosted), or for the CPU path a fresh GitHub-hosted VM.
    if measure.get("needs") != "preflight" or ("self-hosted" not in measure["runs-on"]
                                               and measure["runs-on"] != "ubuntu-latest"):
        problems.append("measure runs on the GPU runner (or a GitHub-hosted one) after preflight")
    if measure.get("permissions") != {"contents": "read"}:
        problems.append("measure holds only what its checkout needs")
    if not any(uses(step, "graphmend/action/verify/measure@") for step in measure["steps"]):
        problems.append("measure must run the measure action (the sandbox)")
    for step in measure["steps"]:
        if uses(step, CHECKOUT):
            if step.get("with", {}).get("persist-credentials") is not False:
                problems.append("measure's checkout keeps its token in .git/config")
            if step.get("with", {}).get("ref") != "${{ needs.preflight.outputs.head-sha }}":
                problems.append("measure must check out exactly the commit preflight passed on")
        elif re.search(r"token|secrets\.", text(step), re.I) or "env" in step:
            problems.append(f"measure hands a token or an environment to {step.get('uses', step.get('run'))}")
    if sorted(text(submit.get("needs", [])).split()) != ["-", "-", "measure", "preflight"]:
        problems.append("submit needs preflight and measure")
    if any(uses(s, CHECKOUT) or "run" in s for s in submit["steps"]):
        problems.append("submit checks code out or runs a script")
    return problems


def composite_problems(action: dict[Any, Any]) -> list[str]:
    """Inputs reach shell only through `env:`; GraphMend runs isolated (`-I`) from $RUNNER_TEMP, never
    through a bare interpreter (the runner's system Python) or `-m pip` outside the action's venv."""
    problems = []
    for step in action["runs"]["steps"]:
        script = step.get("run", "")
        if "${{" in script:
            problems.append(f"step {step.get('name')}: an expression in run:")
        for line in script.splitlines():
            runs_python = "-m " in line and ("graphmend_bot" in line or "pip" in line)
            if runs_python and (" -I " not in line or "$PYTHON" in line or "GRAPHMEND_PYTHON" not in line):
                problems.append(f"step {step.get('name')}: {line.strip()!r} is not the venv's isolated Python")
        if "graphmend_bot.cli" in script and 'cd "$RUNNER_TEMP"' not in script:
            problems.append(f"step {step.get('name')}: runs from the checkout's folder")
    return problems


def measure_token_problems(action: dict[Any, Any]) -> list[str]:
    """The step that runs a pull request's code holds no token: no token input, no token in env."""
    problems = [f"input {name}" for name in action.get("inputs", {}) if "token" in name]
    for step in action["runs"]["steps"]:
        if "graphmend_bot.cli" in step.get("run", ""):
            problems += [f"env {key}" for key, value in step.get("env", {}).items()
                         if re.search(r"token|secret", f"{key} {value}", re.I)]
    return problems


def measure_sandbox_problems(action: dict[Any, Any]) -> list[str]:
    """The pull request's code runs in the sandbox, with an interpreter every user can read."""
    script = "\n".join(step.get("run", "") for step in action["runs"]["steps"])
    problems = []
    if "approve measure" not in script:
        problems.append("no `approve measure`")
    if "--no-sandbox" in script:
        problems.append("measures outside the sandbox")
    if '--python "$measured_python"' not in script:
        problems.append("the measured code's interpreter is not the runner's")
    return problems


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_no_self_hosted_runner_secret_or_checkout_within_reach_of_a_pull_request(path: Path) -> None:
    assert pull_request_problems(load(path)) == []


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_every_secret_is_read_in_a_protected_environment(path: Path) -> None:
    assert secret_problems(load(path)) == []


def test_the_gpu_path_is_preflight_then_tokenless_measure_then_submit() -> None:
    assert verify_problems(load(EXAMPLES / "graphmend-verify.yml")) == []
    assert verify_problems(load(EXAMPLES / "graphmend-verify-cpu.yml")) == []
    actions = {path.parent.name: load(path) for path in ROOT.glob("verify/*/action.yml")}
    assert set(actions) == {"preflight", "measure", "submit"}
    assert measure_token_problems(actions["measure"]) == []
    assert measure_sandbox_problems(actions["measure"]) == []
    for action in actions.values():
        assert action["runs"]["using"] == "composite"
        assert composite_problems(action) == []


def test_the_rules_refuse_the_workflows_the_review_broke_into() -> None:
    """A fork PR's workflow edit reached the GPU runner, a same-repo PR's workflow file could read the
    App key, the dispatch path measured with the review token in reach of the PR's code."""
    verify, fix, schedule = (load(INSECURE / name) for name in
                             ("graphmend-verify.yml", "graphmend-fix.yml", "graphmend-schedule.yml"))
    assert "pull_request: job verify runs on a self-hosted runner" in pull_request_problems(verify)
    assert "pull_request: job fix uses a secret" in pull_request_problems(fix)
    assert secret_problems(fix) and secret_problems(schedule)
    assert "no preflight job" in verify_problems(verify)
    old_action = load(INSECURE / "verify-action.yml")
    assert "env GITHUB_TOKEN" in measure_token_problems(old_action)
    assert measure_sandbox_problems(old_action)
    assert any("not the venv's isolated Python" in p for p in composite_problems(old_action))


def test_commands_filter_strangers_before_any_token_is_minted() -> None:
    """The App token is minted only in jobs that a stranger's comment cannot reach; the stranger-facing
    job holds no secret and no concurrency group (which would let a stranger displace a maintainer)."""
    fix = load(EXAMPLES / "graphmend-fix.yml")
    assert "concurrency" not in fix
    comment_jobs = reachable_jobs(fix, "issue_comment")
    authorize = fix["jobs"]["authorize"]
    assert "secrets." not in text(authorize) and "concurrency" not in authorize and authorize["permissions"] == {}
    assert "collaborators/$COMMENTER/permission" in authorize["steps"][0]["run"]
    for name, job in comment_jobs.items():
        if "secrets." in text(job):
            assert job["needs"] == "authorize" and job["if"] == "needs.authorize.outputs.allowed == 'true'", name
            assert job["environment"] == "graphmend" and "concurrency" in job
    writers = [job for name, job in fix["jobs"].items() if name not in ("authorize", "narrow")]
    assert {job["concurrency"]["group"].split("${{")[0] for job in writers} == {"graphmend-fix-"}  # one writer
    # The narrowing round (issue 11) knows the fix pull request, not its source, so it has its own
    # group; it moves the branch only as a fast-forward of the measured head, never over the fix job.
    assert fix["jobs"]["narrow"]["concurrency"]["group"].startswith("graphmend-fix-narrow-")
    old = load(INSECURE / "graphmend-fix.yml")
    assert any("secrets." in text(job) and "needs" not in job for job in reachable_jobs(old, "issue_comment").values())


def test_a_comment_storm_from_new_accounts_starts_no_job() -> None:
    """Issue 25.4: each `/graphmend` comment cost a job and an API call, whoever wrote it. The `if:`
    pre-filter drops accounts new to the repository before any job starts; the permission API in
    the job still decides, and the workflow says the filter is not an authorization."""
    source = (EXAMPLES / "graphmend-fix.yml").read_text("utf-8")
    condition = load(EXAMPLES / "graphmend-fix.yml")["jobs"]["authorize"]["if"]
    assert "startsWith(github.event.comment.body, '/graphmend')" in condition
    assert "github.event.issue.pull_request" in condition and "github.event.comment.user.type != 'Bot'" in condition
    excluded = re.search(r"!contains\(fromJSON\('(\[.*?\])'\), github.event.comment.author_association\)", condition)
    assert excluded and set(json.loads(excluded.group(1))) >= {"NONE", "FIRST_TIMER", "FIRST_TIME_CONTRIBUTOR"}
    assert not {"OWNER", "MEMBER", "COLLABORATOR", "CONTRIBUTOR"} & set(json.loads(excluded.group(1)))
    assert "pre-filter, NOT an authorization" in source


@pytest.mark.parametrize("permission, allowed", [("admin", "true"), ("write", "true"), ("read", "false"),
                                                 ("none", "false"), ("", "false")])
def test_authorize_step_allows_write_access_only(tmp_path: Path, permission: str, allowed: str) -> None:
    """The authorize script with a stand-in `gh` that answers as the permission API does."""
    step = load(EXAMPLES / "graphmend-fix.yml")["jobs"]["authorize"]["steps"][0]
    (tmp_path / "gh").write_text(f'#!/bin/sh\necho "$@" > "{tmp_path}/args"\necho "{permission}"\n')
    (tmp_path / "gh").chmod(0o755)
    output = tmp_path / "output"
    env = {"PATH": f"{tmp_path}:/usr/bin:/bin", "GITHUB_OUTPUT": str(output), "REPOSITORY": "o/r",
           "COMMENTER": "some$(touch pwned)one"}
    done = subprocess.run(["bash", "-e", "-c", step["run"]], env=env, cwd=tmp_path, capture_output=True, text=True,
                          timeout=30)
    assert done.returncode == 0, done.stderr
    assert output.read_text() == f"allowed={allowed}\n"
    assert (tmp_path / "args").read_text() == "api repos/o/r/collaborators/some$(touch pwned)one/permission " \
                                              "--jq .permission\n"
    assert not (tmp_path / "pwned").exists()


def test_authorize_step_refuses_when_the_api_refuses(tmp_path: Path) -> None:
    step = load(EXAMPLES / "graphmend-fix.yml")["jobs"]["authorize"]["steps"][0]
    (tmp_path / "gh").write_text('#!/bin/sh\necho "gh: Not Found (HTTP 404)" >&2\nexit 1\n')
    (tmp_path / "gh").chmod(0o755)
    output = tmp_path / "output"
    env = {"PATH": f"{tmp_path}:/usr/bin:/bin", "GITHUB_OUTPUT": str(output), "REPOSITORY": "o/r", "COMMENTER": "x"}
    done = subprocess.run(["bash", "-e", "-c", step["run"]], env=env, cwd=tmp_path, capture_output=True, text=True,
                          timeout=30)
    assert done.returncode == 0 and output.read_text() == "allowed=false\n", done.stderr


def _measure_step(name: str) -> dict[str, Any]:
    action = load(ROOT / "verify" / "measure" / "action.yml")
    return next(s for s in action["runs"]["steps"] if s.get("name") == name)


@pytest.mark.parametrize("variable", ["GITHUB_TOKEN", "GH_TOKEN", "ACTIONS_RUNTIME_TOKEN"])
def test_measure_refuses_to_run_with_a_token_in_its_environment(variable: str) -> None:
    guard = _measure_step("Refuse to run with a token in the environment")
    done = subprocess.run(["bash", "-e", "-c", guard["run"]], env={"PATH": "/usr/bin:/bin", variable: "ghs_x"},
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and "::error" in done.stdout
    clean = subprocess.run(["bash", "-e", "-c", guard["run"]], env={"PATH": "/usr/bin:/bin"}, capture_output=True,
                           text=True, timeout=30)
    assert clean.returncode == 0, clean.stdout


def test_measure_passes_inputs_as_arguments_not_shell(tmp_path: Path) -> None:
    """The measure script with a stand-in interpreter: hostile inputs arrive as plain argv, and it runs
    from $RUNNER_TEMP, not the checkout."""
    step = _measure_step("Measure head and base")
    runner_temp, checkout = tmp_path / "temp", tmp_path / "work" / "pull-request"
    runner_temp.mkdir()
    checkout.mkdir(parents=True)
    fake_python = tmp_path / "python"
    fake_python.write_text('#!/bin/sh\npwd\nfor a in "$@"; do echo "[$a]"; done\n')
    fake_python.chmod(0o755)
    marker = tmp_path / "pwned"
    env = {"PATH": "/usr/bin:/bin", "GRAPHMEND_PYTHON": str(fake_python), "RUNNER_TEMP": str(runner_temp),
           "GITHUB_OUTPUT": str(tmp_path / "output"), "CHECKOUT": "pull-request", "HEAD_SHA": "a" * 40,
           "BASE_SHA": "b" * 40, "REPORT": "report.json", "DEVICE": "cuda", "PYTHON": "python3",
           "ENTRY_POINTS": f"pkg.m:factory $(touch {marker}) *"}
    done = subprocess.run(["bash", "-e", "-c", step["run"]], env=env, cwd=tmp_path / "work", capture_output=True,
                          text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    report = tmp_path / "work" / "report.json"
    assert done.stdout.splitlines() == [
        str(runner_temp), "[-I]", "[-W]", "[ignore]", "[-m]", "[graphmend_bot.cli]", "[approve]", "[measure]",
        "[--checkout]", f"[{checkout}]", "[--head-sha]", f"[{'a' * 40}]", "[--base-sha]", f"[{'b' * 40}]",
        "[--report]", f"[{report}]", "[--device]", "[cuda]",
        "[--python]", f"[{shutil.which('python3', path='/usr/bin:/bin')}]", "[--entrypoint]", "[pkg.m:factory]",
        "[--entrypoint]", "[$(touch]", "[--entrypoint]", f"[{marker})]", "[--entrypoint]", "[*]"]
    assert not marker.exists()
    assert (tmp_path / "output").read_text() == f"report={report}\n"


def test_measure_never_imports_code_from_the_checkout(tmp_path: Path) -> None:
    """Attack 2 of issue 10: a pull request that ships `graphmend_bot/cli.py` (or `pip/`) ran before any
    check, because Python imported it from the working directory. The measure script with the real
    interpreter, started in a workspace full of such modules, runs GraphMend's own CLI."""
    step = _measure_step("Measure head and base")
    workspace, runner_temp = tmp_path / "workspace", tmp_path / "temp"
    checkout = workspace / "pull-request"
    marker = tmp_path / "pwned"
    for folder in (workspace, checkout):
        for package, module in (("graphmend_bot", "cli.py"), ("graphmend_bot", "__init__.py"), ("pip", "__main__.py")):
            (folder / package).mkdir(parents=True, exist_ok=True)
            (folder / package / module).write_text(f"open({str(marker)!r}, 'w').close()\n", encoding="utf-8")
    runner_temp.mkdir()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "GRAPHMEND_PYTHON": sys.executable,
           "RUNNER_TEMP": str(runner_temp), "GITHUB_OUTPUT": str(tmp_path / "output"), "CHECKOUT": "pull-request",
           "HEAD_SHA": "a" * 40, "BASE_SHA": "b" * 40, "REPORT": "report.json", "DEVICE": "cpu", "ENTRY_POINTS": "",
           "PYTHON": sys.executable,
           "PYTHONPATH": str(workspace)}  # even an inherited PYTHONPATH: -I ignores it
    done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", step["run"]], env=env, cwd=workspace,
                          capture_output=True, text=True, timeout=120)
    assert not marker.exists(), "code from the checkout ran"
    assert "graphmend" in done.stdout + done.stderr  # GraphMend's own CLI answered (usage, error or report)


def test_install_makes_a_fresh_venv_from_the_action_source(tmp_path: Path) -> None:
    """verify/install.sh with a stand-in interpreter: a new venv under $RUNNER_TEMP, pip run isolated from
    there, the action's source installed (never the checkout), --system-site-packages only when asked."""
    log = tmp_path / "calls"
    fake = tmp_path / "python"
    fake.write_text(f'#!/bin/bash\necho "$(pwd) $0 $*" >> {log}\n'
                    'if [ "$2 $3" = "-m venv" ]; then mkdir -p "${@: -1}/bin"; cp "$0" "${@: -1}/bin/python"; fi\n')
    fake.chmod(0o755)
    runner_temp = tmp_path / "temp"
    runner_temp.mkdir()
    (runner_temp / "graphmend-venv" / "stale").mkdir(parents=True)  # an old job's venv is replaced
    env = {"PATH": "/usr/bin:/bin", "RUNNER_TEMP": str(runner_temp)}
    for extra in ([], ["--system-site-packages"]):
        log.unlink(missing_ok=True)
        done = subprocess.run(["bash", str(ROOT / "verify" / "install.sh"), str(fake), *extra], env=env,
                              cwd=tmp_path, capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, done.stderr
        venv = runner_temp / "graphmend-venv"
        assert done.stdout == f"{venv}/bin/python\n" and not (venv / "stale").exists()
        assert log.read_text().splitlines() == [
            " ".join([str(runner_temp), str(fake), "-I", "-m", "venv", *extra, str(venv)]),
            f"{runner_temp} {venv}/bin/python -I -m pip install --quiet --disable-pip-version-check --no-deps "
            f"--require-hashes -r {ROOT}/verify/requirements.lock",
            f"{runner_temp} {venv}/bin/python -I -m pip install --quiet --disable-pip-version-check --no-deps "
            f"--no-index --no-build-isolation {ROOT}"]


# -- docs/security.md says what the shipped files do (issue 25.5) ---------------------------------
SECURITY_MD = ROOT / "docs" / "security.md"
RUNS_CODE_ACTIONS = ("graphmend/action/census@", "graphmend/action/verify/measure@")
RUNS_CODE_COMMANDS = re.compile(r"pip install -e|\bpytest\b")


def runs_pull_request_code(job: dict[str, Any]) -> bool:
    """A job that checks out a pull request's head and then runs something from it (the project's
    tests, its package install, the measured entry points), not only GraphMend's parser over it."""
    steps = job.get("steps", [])
    checkouts = [i for i, step in enumerate(steps) if uses(step, CHECKOUT)
                 and re.search(r"pull_request\.head\.sha|outputs\.head-sha", text(step.get("with", {})))]
    return bool(checkouts) and any(
        any(uses(step, action) for action in RUNS_CODE_ACTIONS) or RUNS_CODE_COMMANDS.search(str(step.get("run", "")))
        for step in steps[checkouts[0] + 1:])


def documented_jobs() -> dict[tuple[str, str], list[str]]:
    """The rows of security.md's job table: (workflow file, job) -> the row's cells."""
    rows = {}
    for line in SECURITY_MD.read_text("utf-8").splitlines():
        found = re.match(r"\| `(graphmend[\w.-]*\.yml)`(?: `?(\w+)`?)? \|", line)
        if found:
            rows[(found.group(1), found.group(2) or "")] = [cell.strip() for cell in line.strip("|").split("|")]
    return rows


def test_the_docs_name_every_job_that_runs_pull_request_code() -> None:
    running = {(path.name, name) for path in sorted(EXAMPLES.glob("*.yml"))
               for name, job in load(path)["jobs"].items() if runs_pull_request_code(job)}
    assert ("graphmend-census.yml", "census") in running  # the rule sees the census job's tests
    documented = {key for key, cells in documented_jobs().items() if cells[-1].startswith("**yes**")}
    assert documented == running
    first_rule = SECURITY_MD.read_text("utf-8").split("1. **", 1)[1].split("\n2. **", 1)[0]
    for workflow, job in running:
        assert f"`{job}`" in first_rule and (workflow in first_rule or job == "measure"), (workflow, job)


def test_strangers_commands_get_no_reply_from_the_shipped_workflow_and_the_docs_say_so() -> None:
    fix = load(EXAMPLES / "graphmend-fix.yml")
    authorize = fix["jobs"]["authorize"]
    # The only job a stranger's comment reaches can write nothing, so it cannot reply.
    assert authorize["permissions"] == {} and "comments" not in text(authorize)
    assert fix["jobs"]["command"]["if"] == "needs.authorize.outputs.allowed == 'true'"
    [anyone] = [line for line in SECURITY_MD.read_text("utf-8").splitlines() if line.startswith("| anyone")]
    assert "no reply" in anyone and "answers a `/graphmend` command with a refusal" not in anyone


def test_a_self_hosted_runner_is_documented_as_needing_to_be_ephemeral() -> None:
    """The measured code runs as the runner's user; only a fresh machine per job keeps what it leaves
    from the next job, so the docs make that a requirement wherever a job runs on a self-hosted runner."""
    docs = SECURITY_MD.read_text("utf-8")
    rows = documented_jobs()
    for path in sorted(EXAMPLES.glob("*.yml")):
        for name, job in load(path)["jobs"].items():
            if "self-hosted" in text(job.get("runs-on", "")):
                assert "ephemeral: required" in rows[(path.name, name)][3], (path.name, name)
    assert "1. **Ephemeral runners (required).**" in docs
    assert "an implant would outlive the job" not in docs  # a venv under $RUNNER_TEMP does not stop one
