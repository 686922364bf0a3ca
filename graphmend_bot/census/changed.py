"""Which files a pull request changed, for the census's pull-request mode: git's word.

`--graphmend-census-changed-since BASE` names the base commit (a branch, tag or commit id); the
changed files are those that differ between it and the working tree, untracked files included
(what the tests run is the working tree, committed or not). Paths are relative to the census root.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from graphmend_bot.census.record import CensusError, is_commit, relative_path
from graphmend_bot.git_command import run_git

GIT_TIMEOUT_S = 60
MAX_REVISION = 200


def changed_since(root: Path, base: str) -> tuple[str, set[str]]:
    """(the base's commit id, the changed files relative to `root`); CensusError saying why not."""
    revision = base.strip()
    if not revision or revision.startswith("-") or len(revision) > MAX_REVISION or not revision.isprintable():
        raise CensusError(f"--graphmend-census-changed-since {base[:80]!r} is not a revision")
    try:
        commit = _git(root, "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}").strip().lower()
    except CensusError:
        commit = ""
    if not is_commit(commit):
        raise CensusError(f"git knows no commit {revision[:80]!r}")
    names = _git(root, "diff", "--name-only", "--no-renames", "--relative", "-z", "--no-ext-diff", "--no-textconv",
                 commit, "--")
    names += _git(root, "ls-files", "--others", "--exclude-standard", "-z")
    return commit, {relative_path(name, "changed file") for name in names.split("\0") if name}


def _git(root: Path, *args: str) -> str:
    try:
        done = run_git(args, root, text=True, encoding="utf-8", errors="surrogateescape", timeout=GIT_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise CensusError(f"git could not run: {error}") from None
    if done.returncode != 0:
        first = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[0]
        raise CensusError(f"git {args[0]} failed: {first[:200]}")
    return done.stdout
