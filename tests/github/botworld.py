"""The pull-request world with a git remote: the fake GitHub's branches, commits and pull requests
live in a real bare repository that the workspace pushes to, so fix branches, pushes and fix pull
requests made by the bot can be read back as git sees them."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from fake_github import BOT_USER, BareRemote, FakeGitHub, add_issue_comment, attach_remote
from world import NUMBER, REPO, BotRun, PullRequestWorld, load_payload

MEMBER = {"login": "octocat", "id": 583231, "type": "User", "site_admin": False}
STRANGER = {"login": "drive-by", "id": 999001, "type": "User", "site_admin": False}
APP_BOT = {"login": "graphmend[bot]", "id": 41898999, "type": "Bot", "site_admin": False}
# A repository's own App, as docs/security.md names it: its login does not start with "graphmend".
MY_APP = {"login": "my-graphmend[bot]", "id": 41899000, "type": "Bot", "site_admin": False}


class RemoteWorld(PullRequestWorld):
    def __init__(self, tmp: Path, fake: FakeGitHub, base: dict[str, str], head: dict[str, str]) -> None:
        super().__init__(tmp, fake, base, head)
        self.remote: BareRemote = attach_remote(fake, tmp / "remote.git")
        self.git.git("push", "-q", str(self.remote.path), "master", "changes")
        fake.pulls[(REPO, NUMBER)]["_remote"] = True  # its files now come from the remote
        fake.collaborators[MEMBER["login"]] = "maintain"  # the maintainer whose commands are obeyed

    @property
    def pull(self) -> dict[str, Any]:
        return self.fake.pulls[(REPO, NUMBER)]

    def push(self, files: dict[str, str | None]) -> str:
        """A new commit on the head branch (on top of whatever the remote has), pushed."""
        self.git.git("fetch", "-q", str(self.remote.path), "changes")
        self.git.git("reset", "-q", "--hard", "FETCH_HEAD")
        self.head_sha = self.git.commit(files, "more changes")
        self.git.git("push", "-q", str(self.remote.path), "changes")
        self.fake.push(REPO, NUMBER, self.head_sha, [])
        return self.head_sha

    def make_executable(self, name: str) -> str:
        """`chmod +x name`, committed on the head branch and pushed (the content stays as it is)."""
        (self.git.root / name).chmod(0o755)
        self.head_sha = self.git.commit({}, f"{name} runs as a script")
        self.git.git("push", "-q", str(self.remote.path), "changes")
        self.fake.push(REPO, NUMBER, self.head_sha, [])
        return self.head_sha

    def fix_pulls(self, state: str = "all") -> list[dict[str, Any]]:
        return [p for (repo, _), p in sorted(self.fake.pulls.items())
                if repo == REPO and p["head"]["ref"].startswith("graphmend/fix/") and state in ("all", p["state"])]

    def comment_event(self, body: str, user: dict[str, Any], association: str, on_pull: bool = True) -> Path:
        """Somebody comments on the pull request: the comment exists, and the real payload says so."""
        comment = add_issue_comment(self.fake, REPO, NUMBER, body, user, association)
        event = load_payload("issue_comment.created.json")
        event["issue"]["number"] = NUMBER
        if on_pull:
            event["issue"]["pull_request"] = {
                "url": f"https://api.github.com/repos/{REPO}/pulls/{NUMBER}",
                "html_url": f"https://github.com/{REPO}/pull/{NUMBER}",
                "diff_url": f"https://github.com/{REPO}/pull/{NUMBER}.diff",
                "patch_url": f"https://github.com/{REPO}/pull/{NUMBER}.patch"}
        event["comment"].update(id=comment["id"], body=body, user=user, author_association=association)
        event["sender"] = user
        return self._write_event(event)

    def pull_request_event(self, name: str, number: int | None = None, **changes: Any) -> Path:
        event = load_payload(name)
        pull = copy.deepcopy(self.fake.pulls[(REPO, number or NUMBER)])
        event["pull_request"] = {k: v for k, v in pull.items() if not k.startswith("_")}
        event["number"] = pull["number"]
        event.update(changes)
        return self._write_event(event)

    def _write_event(self, event: dict[str, Any]) -> Path:
        path = self.tmp / f"event-{self.runs}-{len(list(self.tmp.glob('event-*')))}.json"
        path.write_text(json.dumps(event), encoding="utf-8")
        return path

    def replies(self) -> list[str]:
        """The bot's answers (written with its token) on the pull request."""
        return [c["body"] for c in self.fake.issue_comments_on(REPO, NUMBER)
                if "graphmend:reply" in c["body"] and c["user"]["login"] == BOT_USER["login"]]

    def reactions_on(self, comment_id: int) -> list[str]:
        return [r["content"] for r in self.fake.reactions if r["_on"] == (REPO, "issues", comment_id)]


def run_fixed_copy(world: RemoteWorld, sha: str) -> dict[str, str]:
    """`graphmend check --fix` on a clean checkout of `sha`: what a user gets locally."""
    copy_dir = world.tmp / f"copy-{sha[:7]}"
    subprocess.run(["git", "clone", "-q", str(world.remote.path), str(copy_dir)], check=True)
    subprocess.run(["git", "checkout", "-q", sha], cwd=copy_dir, check=True)
    script = Path(sys.executable).parent / "graphmend"
    subprocess.run([str(script), "check", "--fix", "--exit-zero", "."], cwd=copy_dir, capture_output=True,
                   timeout=300, check=True)
    return {p.relative_to(copy_dir).as_posix(): p.read_text("utf-8") for p in copy_dir.rglob("*.py")
            if ".git" not in p.parts}


__all__ = ["APP_BOT", "MEMBER", "MY_APP", "STRANGER", "BotRun", "RemoteWorld", "run_fixed_copy"]
