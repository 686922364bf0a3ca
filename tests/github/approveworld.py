"""The three jobs of `graphmend approve` run as GitHub Actions would run them, against the fake
GitHub: preflight and submit with a token, measure with none, each in its own process."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from botworld import APP_BOT, RemoteWorld
from fake_github import FakeGitHub
from world import NUMBER, REPO

FIX_BRANCH = f"graphmend/fix/pr-{NUMBER - 1}"
# An interpreter with torch that the sandbox user can run, where the test's own cannot be (a home
# folder closed to other users): measure's tests use the sandbox, as the action does, when one is.
SANDBOX_PYTHON_VARIABLE = "GRAPHMEND_TEST_SANDBOX_PYTHON"


@functools.cache
def sandbox_python() -> tuple[str, str]:
    """(an interpreter the sandbox can run with torch, "") or ("", why there is none here)."""
    from graphmend_bot.verify.sandbox import SandboxError, open_sandbox, sandbox_problem

    try:
        sandbox = open_sandbox()
    except SandboxError as error:
        return "", str(error)
    problems = []
    for python in filter(None, (os.environ.get(SANDBOX_PYTHON_VARIABLE), sys.executable, sys._base_executable)):
        problem = sandbox_problem(sandbox, python)
        if not problem:
            return python, ""
        problems.append(problem)
    return "", f"{'; '.join(problems)} (set {SANDBOX_PYTHON_VARIABLE} to an interpreter every user can read)"


@dataclass
class StepRun:
    returncode: int
    stdout: str
    stderr: str
    outputs: dict[str, str]

    @property
    def log(self) -> str:
        return self.stdout + self.stderr


def fix_pr_world(tmp: Path, fake: FakeGitHub, base: dict[str, str], head: dict[str, str]) -> RemoteWorld:
    """A pull request as the bot's App opens a fix: its branch, its author."""
    world = RemoteWorld(tmp, fake, base, head)
    world.pull["head"]["ref"] = FIX_BRANCH
    world.pull["user"] = dict(APP_BOT)
    return world


def _environment(world: RemoteWorld, step: str, token: str | None) -> dict[str, str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(world.tmp),
        "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "workflow_dispatch", "GITHUB_API_URL": world.fake.base_url,
        "GITHUB_REPOSITORY": REPO, "GITHUB_OUTPUT": str(world.tmp / f"{step}-output"),
        "GITHUB_STEP_SUMMARY": str(world.tmp / f"{step}-summary.md"), "GRAPHMEND_WRITE_INTERVAL_S": "0",
    }
    if token is not None:
        env["GITHUB_TOKEN"] = token
    return env


def _run(world: RemoteWorld, step: str, arguments: list[str], env: dict[str, str], cwd: Path) -> StepRun:
    output = Path(env["GITHUB_OUTPUT"])
    output.unlink(missing_ok=True)
    # As the workflows run it: isolated mode, so the working directory (a checkout) is not importable.
    done = subprocess.run([sys.executable, "-I", "-m", "graphmend_bot.cli", "approve", step, *arguments], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=600)
    outputs = {}
    if output.exists():
        for line in output.read_text("utf-8").splitlines():
            name, _, value = line.partition("=")
            outputs[name] = value
    return StepRun(done.returncode, done.stdout, done.stderr, outputs)


def preflight(world: RemoteWorld, bot_login: str = APP_BOT["login"]) -> StepRun:
    return _run(world, "preflight", ["--pull-request", str(NUMBER), "--bot-login", bot_login],
                _environment(world, "preflight", world.fake.token), world.tmp)


def measure(world: RemoteWorld, report: Path, head_sha: str | None = None, base_sha: str | None = None,
            **extra_env: str) -> StepRun:
    """On the GPU runner: no token, the checkout as the working directory (as a workflow step has it);
    in the sandbox where this machine has one (`sandbox_python`), unisolated otherwise."""
    env = {**_environment(world, "measure", None), **extra_env}
    python, _ = sandbox_python()
    isolation = ["--python", python] if python else ["--no-sandbox"]
    return _run(world, "measure", ["--checkout", str(world.git.root), "--head-sha", head_sha or world.head_sha,
                                   "--base-sha", base_sha or world.base_sha, "--report", str(report),
                                   "--device", "cpu", *isolation], env, world.git.root)


def submit(world: RemoteWorld, report: Path, head_sha: str | None = None,
           bot_login: str = APP_BOT["login"], fixes: str | None = None) -> StepRun:
    return _run(world, "submit", ["--pull-request", str(NUMBER), "--head-sha", head_sha or world.head_sha,
                                  "--report", str(report), "--bot-login", bot_login,
                                  *(["--fixes", fixes] if fixes else [])],
                _environment(world, "submit", world.fake.token), world.tmp)
