"""A tree's own git configuration runs nothing when graphmend reads it (review16's finding 5: on main
`graphmend check` ran `git ls-files` in the checked tree, and its `core.fsmonitor` command ran).
Every git call goes through git_command.run_git; tests/test_git_calls_stay_home.py keeps it so."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from graphmend_bot.git_command import run_git
from tests.github.gitrepo import GIT_ENV

MODEL = "import torch\n\n\n@torch.compile\ndef f(x):\n    return x.item()\n"


def _hostile_repository(root: Path) -> Path:
    """A committed repository whose .git/config names a command for each way git reads a tree;
    each command writes a file named after its key into `root`'s parent (`ran/`)."""
    ran = root.parent / "ran"
    ran.mkdir()
    root.mkdir()
    (root / "a.py").write_text(MODEL, encoding="utf-8")
    (root / ".gitattributes").write_text("*.py filter=x diff=y\n", encoding="utf-8")
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "base"]):
        subprocess.run(["git", *command], cwd=root, env=GIT_ENV, check=True, capture_output=True)
    settings = {
        "core.fsmonitor": "fsmonitor; false #",
        "core.hooksPath": None,  # a hooks folder whose every hook writes a file
        "core.pager": "pager; cat #",
        "filter.x.clean": "clean; cat #",
        "filter.x.smudge": "smudge; cat #",
        "diff.y.textconv": "textconv; cat #",
        "diff.y.command": "extdiff; true #",
        "diff.external": "external; true #",
        "log.showSignature": "true",
        "gpg.program": "gpg; false #",
    }
    for key, value in settings.items():
        if value is None:
            hooks = root.parent / "hooks"
            hooks.mkdir()
            for hook in ("post-index-change", "post-checkout", "pre-commit", "reference-transaction"):
                (hooks / hook).write_text(f"#!/bin/sh\ntouch {ran}/{hook}\n", encoding="utf-8")
                (hooks / hook).chmod(0o755)
            value = str(hooks)
        elif key != "log.showSignature":
            value = f"touch {ran}/{value}"
        subprocess.run(["git", "config", key, value], cwd=root, env=GIT_ENV, check=True)
    return ran


def test_check_and_review_of_a_tree_run_none_of_its_git_commands(
    tmp_path: Path, graphmend_cmd: list[str]
) -> None:
    root = tmp_path / "project"
    ran = _hostile_repository(root)
    (root / ".graphmend_cache").mkdir()  # the CLI then asks git whether it tracks the folder
    (root / "a.py").write_text(MODEL + "\n\ndef g(x):\n    return x.tolist()\n", encoding="utf-8")
    os.utime(root / "a.py", (0, 0))  # stat-dirty: git must read the file through its filter to compare
    env = {**os.environ, **GIT_ENV, "PATH": os.environ["PATH"], "XDG_CACHE_HOME": str(tmp_path / "keys")}
    env.pop("GRAPHMEND_CACHE_DIR", None)
    for command in (["check", "a.py"], ["review", "--base", "HEAD", "--output-format", "json"]):
        done = subprocess.run(
            [*graphmend_cmd, *command], cwd=root, env=env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 1 and "Traceback" not in done.stderr, (command, done.stderr)
    assert sorted(path.name for path in ran.iterdir()) == []


def test_reading_commands_run_no_driver_the_repository_names(tmp_path: Path) -> None:
    root = tmp_path / "project"
    ran = _hostile_repository(root)
    (root / "a.py").write_text(MODEL + "# edited\n", encoding="utf-8")
    for args in (
        ["ls-files", "-z"],
        ["diff", "HEAD"],
        ["diff", "--name-only", "HEAD", "--"],
        ["show", "HEAD"],
        ["log", "-1", "-p"],
        ["archive", "--format=tar", "HEAD"],
        ["cat-file", "blob", "HEAD:a.py"],
    ):
        done = run_git(args, root)
        assert done.returncode == 0, (args, done.stderr)
    assert sorted(path.name for path in ran.iterdir()) == []
    # without run_git, the same reads run them: the repository above is hostile indeed
    subprocess.run(["git", "diff", "HEAD"], cwd=root, env=GIT_ENV, capture_output=True, check=False)
    subprocess.run(
        ["git", "archive", "--format=tar", "HEAD"], cwd=root, env=GIT_ENV, capture_output=True, check=False
    )
    assert {"fsmonitor", "extdiff", "smudge"} <= {path.name for path in ran.iterdir()}


@pytest.mark.parametrize("scope", ["local", "worktree"])
def test_a_process_filter_the_repository_names_never_starts(tmp_path: Path, scope: str) -> None:
    root = tmp_path / "project"
    ran = _hostile_repository(root)
    if scope == "worktree":
        subprocess.run(
            ["git", "config", "extensions.worktreeConfig", "true"], cwd=root, env=GIT_ENV, check=True
        )
    subprocess.run(
        ["git", "config", f"--{scope}", "filter.x.process", f"touch {ran}/process; false #"],
        cwd=root,
        env=GIT_ENV,
        check=True,
    )
    (root / "a.py").write_text(MODEL + "# edited\n", encoding="utf-8")
    run_git(["diff", "HEAD"], root)  # it fails, having run nothing
    run_git(["archive", "--format=tar", "HEAD"], root)
    assert sorted(path.name for path in ran.iterdir()) == []


def test_the_users_own_filter_is_kept(tmp_path: Path) -> None:
    # git-lfs and the like live in the user's global config: theirs to trust, and graphmend keeps them
    root = tmp_path / "project"
    root.mkdir()
    (root / ".gitattributes").write_text("*.txt filter=upper\n", encoding="utf-8")
    (root / "a.txt").write_text("hello\n", encoding="utf-8")
    user = tmp_path / "gitconfig"
    user.write_text('[filter "upper"]\n\tsmudge = tr a-z A-Z\n\tclean = cat\n', encoding="utf-8")
    env = {**GIT_ENV, "GIT_CONFIG_GLOBAL": str(user)}
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "base"]):
        subprocess.run(["git", *command], cwd=root, env=env, check=True, capture_output=True)
    done = run_git(["archive", "--format=tar", "HEAD", "a.txt"], root, env=env)
    assert done.returncode == 0 and b"HELLO" in done.stdout
