"""A pull request world for end-to-end tests: a git repository, the fake GitHub serving its pull
request (seeded from the real webhook payload), and `graphmend bot` run as GitHub Actions runs it."""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fake_github import FakeGitHub
from gitrepo import GitRepo

REPO = "Codertocat/Hello-World"
NUMBER = 2
HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def payload_dir() -> Path:
    """The shared real payloads next to the checkout when present, else the copies in fixtures/."""
    shared = ROOT.parent / "shared" / "fixtures" / "github-events"
    return shared if (shared / "pull_request.opened.json").is_file() else HERE / "fixtures"


def load_payload(name: str) -> dict[str, Any]:
    return json.loads((payload_dir() / name).read_text("utf-8"))


def graphmend_command() -> list[str]:
    script = Path(sys.executable).parent / "graphmend"
    return [str(script)] if script.exists() else [sys.executable, "-m", "graphmend_bot.cli"]


@dataclass
class BotRun:
    returncode: int
    stdout: str
    stderr: str
    summary: str
    outputs: dict[str, str]
    sarif: dict[str, Any] | None

    @property
    def annotations(self) -> list[str]:
        return [line for line in self.stdout.splitlines() if line.startswith("::warning file=")]


class PullRequestWorld:
    def __init__(self, tmp: Path, fake: FakeGitHub, base: dict[str, str], head: dict[str, str]) -> None:
        self.tmp = tmp
        self.fake = fake
        self.git = GitRepo(tmp / "workspace")
        self.base_sha = self.git.commit(base, "base")
        self.git.git("checkout", "-q", "-b", "changes")
        self.head_sha = self.git.commit(head, "the pull request")
        event = load_payload("pull_request.opened.json")
        fake.add_repository(event["repository"])
        pull = copy.deepcopy(event["pull_request"])
        pull["head"]["sha"], pull["base"]["sha"] = self.head_sha, self.base_sha
        fake.add_pull_request(REPO, pull, self.git.pull_files(self.base_sha, self.head_sha))
        self._publish(self.base_sha)
        self._publish(self.head_sha)
        self.runs = 0

    def _publish(self, sha: str) -> None:
        """Serve every file of a commit through the contents API."""
        for name in self.git.git("ls-tree", "-r", "--name-only", sha).splitlines():
            self.fake.contents[(REPO, sha, name)] = self.git.blob(sha, name)

    def push(self, files: dict[str, str | None]) -> str:
        """A new commit on the head branch, as a `synchronize` event follows."""
        before = self.head_sha
        self.head_sha = self.git.commit(files, "more changes")
        self.fake.push(REPO, NUMBER, self.head_sha, self.git.pull_files(self.base_sha, self.head_sha))
        self._publish(self.head_sha)
        return before

    def event(self, name: str, **changes: Any) -> Path:
        """A real payload, its pull request (or workflow run) pointing at this world's commits."""
        event = load_payload(name)
        if "pull_request" in event:
            event["pull_request"]["head"]["sha"] = self.head_sha
            event["pull_request"]["base"]["sha"] = self.base_sha
            event["pull_request"].update(changes)
        if "workflow_run" in event:
            pull = self.fake.pulls.get((REPO, NUMBER)) or {}
            head = pull.get("head") or {}
            event["workflow_run"].update(  # the run of the pull request's head, as GitHub describes it
                head_sha=self.head_sha, event="pull_request", head_branch=head.get("ref"),
                head_repository={**event["workflow_run"]["head_repository"],
                                 "full_name": (head.get("repo") or {}).get("full_name")}, **changes)
        path = self.tmp / f"event-{self.runs}.json"
        path.write_text(json.dumps(event), encoding="utf-8")
        return path

    def run(self, event_path: Path, event_name: str = "pull_request", token: str | None = None,
            workspace: Path | None = None, **inputs: str) -> BotRun:
        """`graphmend bot` in a subprocess with the environment GitHub Actions gives a Docker action."""
        self.runs += 1
        output = self.tmp / f"output-{self.runs}"
        summary = self.tmp / f"summary-{self.runs}.md"
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            # A checkout run with PYTHONPATH (a worktree beside an installed copy) tests its own code.
            "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
            "HOME": str(self.tmp),
            "GITHUB_ACTIONS": "true",
            "GRAPHMEND_WRITE_INTERVAL_S": "0",  # the local fake has no secondary rate limit
            "GITHUB_EVENT_NAME": event_name,
            "GITHUB_EVENT_PATH": str(event_path),
            "GITHUB_API_URL": self.fake.base_url,
            "GITHUB_SERVER_URL": "https://github.com",
            "GITHUB_REPOSITORY": REPO,
            "GITHUB_WORKSPACE": str(workspace or self.git.root),
            "GITHUB_OUTPUT": str(output),
            "GITHUB_STEP_SUMMARY": str(summary),
            "INPUT_GITHUB-TOKEN": self.fake.token if token is None else token,
            "INPUT_SARIF-FILE": f"graphmend-{self.runs}.sarif",
            # The scenarios written before `fixes` existed are about safe fixes; `fixes="verified"` opts in.
            "INPUT_FIXES": "safe",
        }
        env.update({f"INPUT_{name.upper().replace('_', '-')}": value for name, value in inputs.items()})
        if os.environ.get("PYTHONPATH"):  # a checkout run with PYTHONPATH: its code, not the installed one
            env["PYTHONPATH"] = os.environ["PYTHONPATH"]
        done = subprocess.run([*graphmend_command(), "bot"], env=env, cwd=self.tmp, capture_output=True,
                              text=True, timeout=300)
        outputs = {}
        if output.exists():
            for line in output.read_text("utf-8").splitlines():
                name, _, value = line.partition("=")
                outputs[name] = value
        sarif_path = (workspace or self.git.root) / f"graphmend-{self.runs}.sarif"
        return BotRun(
            done.returncode, done.stdout, done.stderr,
            summary.read_text("utf-8") if summary.exists() else "",
            outputs,
            json.loads(sarif_path.read_text("utf-8")) if sarif_path.exists() else None,
        )


def bot_available() -> bool:
    return shutil.which("git") is not None
