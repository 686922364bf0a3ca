"""The copies of the working tree that verify measures (and hands to the sandbox user) never read
through a link and never stop at a special file (review7 findings 3 and 6)."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest

from graphmend_bot.config import Config
from graphmend_bot.verify.sandbox import share_with_sandbox
from graphmend_bot.verify.sources import copy_working_tree, export_ref, rewritten_copy

SECRET = "runner credentials\n"


def _tree_with_links(tmp_path: Path) -> Path:
    """A tree holding links out of it (a private file, a folder, nothing) and links within it."""
    private = tmp_path / "private"
    private.mkdir()
    (private / "secret.txt").write_text(SECRET)
    (private / "secret.txt").chmod(0o600)
    tree = tmp_path / "tree"
    (tree / "pkg" / "data").mkdir(parents=True)
    (tree / "pkg" / "m.py").write_text("x = 1\n")
    (tree / "pkg" / "data" / "table.txt").write_text("rows\n")
    (tree / "pkg" / "notes.txt").symlink_to(private / "secret.txt")  # absolute, out of the tree
    (tree / "pkg" / "up.txt").symlink_to("../../private/secret.txt")  # relative, out of the tree
    (tree / "pkg" / "home").symlink_to(private, target_is_directory=True)
    (tree / "pkg" / "gone.txt").symlink_to(tmp_path / "nothing-here")
    (tree / "pkg" / "alias.py").symlink_to("m.py")
    (tree / "pkg" / "tables").symlink_to("data", target_is_directory=True)
    (tree / "top.txt").symlink_to(tree / "pkg" / "data" / "table.txt")  # absolute, in the tree
    return tree


def _git_add_all(tree: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tree)], check=True)
    subprocess.run(["git", "-C", str(tree), "add", "-A"], check=True)


def _assert_copied_without_leaks(copy: Path, warnings: list[str]) -> None:
    for name in ("pkg/notes.txt", "pkg/up.txt", "pkg/home", "pkg/gone.txt"):
        assert not os.path.lexists(copy / name), name
        assert f"{name} left out of the copy: a link out of the tree" in warnings
    assert not any(SECRET in path.read_text() for path in copy.rglob("*") if path.is_file())
    # Links within the tree stay links, to the copy's own files.
    for name, target in (("pkg/alias.py", "pkg/m.py"), ("pkg/tables", "pkg/data"), ("top.txt", "pkg/data/table.txt")):
        assert (copy / name).is_symlink(), name
        assert (copy / name).resolve() == (copy / target).resolve(), name
    assert (copy / "pkg" / "tables" / "table.txt").read_text() == "rows\n"
    assert (copy / "pkg" / "m.py").read_text() == "x = 1\n"


@pytest.mark.parametrize("in_git", [True, False], ids=["git-listed", "plain-folder"])
def test_links_out_of_the_tree_are_left_out_of_the_copy_and_links_within_it_stay_links(tmp_path, in_git):
    tree = _tree_with_links(tmp_path)
    if in_git:
        _git_add_all(tree)
    warnings: list[str] = []
    scratch = tmp_path / "scratch"
    copy = copy_working_tree(tree, scratch / "copy", warnings.append)
    _assert_copied_without_leaks(copy, warnings)
    share_with_sandbox(scratch)
    assert stat.S_IMODE((tmp_path / "private" / "secret.txt").stat().st_mode) == 0o600
    assert (copy / "pkg" / "m.py").stat().st_mode & 0o444 == 0o444


def test_sharing_with_the_sandbox_never_changes_a_mode_through_a_link(tmp_path):
    private = tmp_path / "secret.txt"
    private.write_text(SECRET)
    private.chmod(0o600)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (scratch / "notes.txt").symlink_to(private)
    (scratch / "own.txt").write_text("mine\n")
    (scratch / "own.txt").chmod(0o600)
    share_with_sandbox(scratch)
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    assert stat.S_IMODE((scratch / "own.txt").stat().st_mode) == 0o644


def test_a_fifo_in_a_folder_outside_git_is_left_out_saying_so(tmp_path, capsys):
    tree = tmp_path / "tree"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pkg" / "m.py").write_text("def f(x):\n    print(x)\n    return x * 2\n")
    os.mkfifo(tree / "pkg" / "pipe")
    arm, _changed = rewritten_copy(tree, tmp_path / "rewritten", Config())
    assert (arm.root / "pkg" / "m.py").is_file()
    assert not os.path.lexists(arm.root / "pkg" / "pipe")
    assert capsys.readouterr().err == "graphmend verify: pkg/pipe left out of the copy: a FIFO, not a regular file or folder\n"


def test_a_hostile_name_left_out_prints_one_inert_line(tmp_path, capsys):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "x\n::error::forged\x1b[2J.txt").symlink_to("/etc/passwd")
    copy_working_tree(tree, tmp_path / "copy")
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "\x1b" not in err and "\n::" not in err
    assert err.startswith("graphmend verify: x\\x0a::error::forged\\x1b[2J.txt left out of the copy")


def test_a_ref_holding_links_out_of_the_tree_is_exported_without_them(tmp_path):
    tree = tmp_path / "repo"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pkg" / "m.py").write_text("x = 1\n")
    (tree / "pkg" / "pw").symlink_to("/etc/passwd")
    (tree / "pkg" / "up").symlink_to("../../secret.txt")
    (tree / "pkg" / "alias.py").symlink_to("m.py")
    _git_add_all(tree)
    subprocess.run(["git", "-C", str(tree), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "0"], check=True)
    warnings: list[str] = []
    arm = export_ref("HEAD", tree, tmp_path / "original", warnings.append)
    assert sorted(warnings) == ["--against HEAD: pkg/pw left out: a link out of the tree",
                                "--against HEAD: pkg/up left out: a link out of the tree"]
    assert sorted(path.name for path in (arm.root / "pkg").iterdir()) == ["alias.py", "m.py"]
    assert (arm.root / "pkg" / "alias.py").is_symlink() and (arm.root / "pkg" / "alias.py").read_text() == "x = 1\n"


def test_a_listed_file_behind_a_folder_swapped_for_a_link_is_left_out(tmp_path):
    """git lists the index: `sub/secret.txt` stays listed after `sub/` becomes a link out of the tree."""
    private = tmp_path / "private"
    private.mkdir()
    (private / "secret.txt").write_text(SECRET)
    tree = tmp_path / "tree"
    (tree / "sub").mkdir(parents=True)
    (tree / "sub" / "secret.txt").write_text("public\n")
    _git_add_all(tree)
    (tree / "sub" / "secret.txt").unlink()
    (tree / "sub").rmdir()
    (tree / "sub").symlink_to(private, target_is_directory=True)
    warnings: list[str] = []
    copy = copy_working_tree(tree, tmp_path / "copy", warnings.append)
    assert not os.path.lexists(copy / "sub" / "secret.txt")
    assert "sub/secret.txt left out of the copy: a link out of the tree" in warnings
