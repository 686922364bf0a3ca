"""The two arms' source trees: the working tree, a git ref exported to a temporary folder, or a
temporary copy of the working tree rewritten with the safe fixes.

Each function returns the folder that plays the role of the current directory in that arm (the
same path relative to the repository root), so entry points resolve the same way in both.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path

from graphmend_bot.config import Config

# Never copied when the tree is not a git repository.
SKIPPED_DIRECTORIES = (
    ".git",
    ".venv",
    "venv",
    "__pycache__",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    "node_modules",
)


class SourceError(Exception):
    """An arm's source cannot be prepared; the message says why."""


@dataclass(frozen=True)
class ArmSource:
    root: Path  # the folder entry points resolve from
    label: str  # for reports: "working tree", "HEAD~1", "working tree + 3 safe fixes"


def working_tree(directory: Path) -> ArmSource:
    return ArmSource(directory.resolve(), "working tree")


def export_ref(ref: str, directory: Path, destination: Path) -> ArmSource:
    """`git archive REF` of the repository around `directory`, unpacked under `destination`."""
    toplevel, prefix = _git_location(directory)
    if toplevel is None:
        raise SourceError(f"--against {ref}: {directory} is not inside a git repository")
    resolved = _git(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], toplevel)
    if resolved is None:
        raise SourceError(f"--against {ref}: no such commit in {toplevel}")
    archive = subprocess.run(
        ["git", "archive", "--format=tar", resolved.strip()], cwd=toplevel, capture_output=True, check=False
    )
    if archive.returncode != 0:
        raise SourceError(
            f"--against {ref}: git archive failed: {archive.stderr.decode(errors='replace').strip()}"
        )
    destination.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(destination, filter="data")
    root = destination / prefix
    if not root.is_dir():
        raise SourceError(f"--against {ref}: {prefix or '.'} does not exist at {ref}")
    return ArmSource(root, ref)


def copy_working_tree(directory: Path, destination: Path) -> Path:
    """Copy the files of the working tree (git's tracked and untracked-not-ignored files when it
    is a repository) to `destination`; returns the copy of `directory`."""
    directory = directory.resolve()
    toplevel, prefix = _git_location(directory)
    if toplevel is not None:
        listing = _git(["ls-files", "-z", "--cached", "--others", "--exclude-standard"], toplevel) or ""
        for name in filter(None, listing.split("\0")):
            source = toplevel / name
            if source.is_file():  # deleted-but-tracked files and submodules are skipped
                target = destination / name
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target)
        root = destination / prefix
        root.mkdir(parents=True, exist_ok=True)
        return root
    shutil.copytree(
        directory, destination, ignore=shutil.ignore_patterns(*SKIPPED_DIRECTORIES), dirs_exist_ok=True
    )
    return destination


def rewritten_copy(
    directory: Path, destination: Path, config: Config, unsafe: bool = False
) -> tuple[ArmSource, list[str]]:
    """A copy of the working tree with the fixes of `graphmend check --fix` applied.

    Returns the arm and the changed files (relative to the copy's root)."""
    try:
        from graphmend_bot.rewrite import fix_paths
    except ImportError as error:
        raise SourceError(
            f"the rewrite engine is not available ({error}); compare with a git ref instead: --against REF"
        ) from None
    root = copy_working_tree(directory, destination)
    changes = fix_paths([str(root)], config, unsafe=unsafe)
    changed: list[str] = []
    for change in changes:
        path = Path(change.path).resolve()  # fix_paths reports paths as given or relative to the cwd
        path.write_text(change.after, encoding="utf-8")
        changed.append(str(path.relative_to(root.resolve())))
    kind = "unsafe and safe" if unsafe else "safe"
    label = f"working tree + {kind} fixes ({len(changed)} file{'s' if len(changed) != 1 else ''})"
    return ArmSource(root, label), sorted(changed)


def _git_location(directory: Path) -> tuple[Path | None, str]:
    toplevel = _git(["rev-parse", "--show-toplevel"], directory)
    if toplevel is None:
        return None, ""
    prefix = _git(["rev-parse", "--show-prefix"], directory) or ""
    return Path(toplevel.strip()), prefix.strip()


def _git(arguments: list[str], cwd: Path) -> str | None:
    try:
        completed = subprocess.run(["git", *arguments], cwd=cwd, capture_output=True, text=True, check=False)
    except (OSError, ValueError):
        return None
    return completed.stdout if completed.returncode == 0 else None
