"""A real git repository in a temporary directory: the pull request's commits, files and patches."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Codertocat", "GIT_AUTHOR_EMAIL": "octocat@github.com",
    "GIT_COMMITTER_NAME": "Codertocat", "GIT_COMMITTER_EMAIL": "octocat@github.com",
    "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_SYSTEM": "/dev/null", "PATH": "/usr/bin:/bin",
}
STATUS = {"A": "added", "M": "modified", "D": "removed", "R": "renamed", "C": "copied", "T": "changed"}


class GitRepo:
    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "master")

    def git(self, *args: str) -> str:
        return subprocess.run(["git", *args], cwd=self.root, env=GIT_ENV, check=True,
                              capture_output=True, text=True).stdout

    def commit(self, files: dict[str, str | None], message: str) -> str:
        """Write (or delete, for None) files and commit them; returns the new sha."""
        for name, text in files.items():
            path = self.root / name
            if text is None:
                path.unlink()
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)
        return self.git("rev-parse", "HEAD").strip()

    def blob(self, sha: str, name: str) -> bytes:
        """The committed bytes of `name` at `sha` (no newline translation, no attributes applied)."""
        return subprocess.run(["git", "cat-file", "blob", f"{sha}:{name}"], cwd=self.root, env=GIT_ENV, check=True,
                              capture_output=True).stdout

    def checkout(self, ref: str) -> None:
        self.git("checkout", "-q", ref)

    def pull_files(self, base: str, head: str) -> list[dict[str, Any]]:
        """`GET /pulls/{n}/files` for base...head: status, counts and the per-file patch."""
        files = []
        numstat = {}
        fields = iter(self.git("diff", "--numstat", "-z", "-M", base, head).split("\0"))
        for field in fields:  # `added deleted name`, or `added deleted ` then the old and new names of a rename
            if field:
                added, deleted, name = field.split("\t", 2)
                if not name:
                    next(fields)
                    name = next(fields)
                numstat[name] = (int(added), int(deleted))
        for line in self.git("diff", "--name-status", "-M", base, head).splitlines():
            status, *names = line.split("\t")
            name = names[-1]
            raw = self.git("diff", "-U3", "-M", base, head, "--", *names)
            patch = raw[raw.index("@@"):] if "@@" in raw else ""
            added, deleted = numstat.get(name, (0, 0))
            entry = {
                "sha": self.git("rev-parse", f"{head}:{name}").strip() if status[0] != "D" else "0" * 40,
                "filename": name, "status": STATUS[status[0]], "additions": added, "deletions": deleted,
                "changes": added + deleted, "patch": patch.rstrip("\n"),
                "blob_url": f"https://github.com/Codertocat/Hello-World/blob/{head}/{name}",
                "raw_url": f"https://github.com/Codertocat/Hello-World/raw/{head}/{name}",
                "contents_url": f"https://api.github.com/repos/Codertocat/Hello-World/contents/{name}?ref={head}",
            }
            if status[0] == "R":
                entry["previous_filename"] = names[0]
            files.append(entry)
        return files
