"""The two arms' source trees: the working tree, a git ref exported to a temporary folder, or a
temporary copy of the working tree rewritten with the safe fixes.

Each function returns the folder that plays the role of the current directory in that arm (the
same path relative to the repository root), so entry points resolve the same way in both.
"""

from __future__ import annotations

import io
import os
import shutil
import stat
import sys
import tarfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from graphmend_bot.analysis.files import file_kind, outside
from graphmend_bot.config import Config
from graphmend_bot.git_command import run_git
from graphmend_bot.report.controls import visible
from graphmend_bot.report.github import inert_line

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


def _print_warning(message: str) -> None:
    """File names come from the pull request: never a second line, an escape or a workflow command."""
    print(inert_line(visible(f"graphmend verify: {message}")), file=sys.stderr)


class SourceError(Exception):
    """An arm's source cannot be prepared; the message says why."""


@dataclass(frozen=True)
class ArmSource:
    root: Path  # the folder entry points resolve from
    label: str  # for reports: "working tree", "HEAD~1", "working tree + 3 safe fixes"


def working_tree(directory: Path) -> ArmSource:
    return ArmSource(directory.resolve(), "working tree")


def export_ref(ref: str, directory: Path, destination: Path, warn: Callable[[str], None] = _print_warning) -> ArmSource:
    """`git archive REF` of the repository around `directory`, unpacked under `destination`; a link
    out of the tree (absolute, or up past its root) is left out, as copy_working_tree does, and
    `warn` told."""
    toplevel, prefix = _git_location(directory)
    if toplevel is None:
        raise SourceError(f"--against {ref}: {directory} is not inside a git repository")
    resolved = _git(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], toplevel)
    if resolved is None:
        raise SourceError(f"--against {ref}: no such commit in {toplevel}")
    archive = run_git(["archive", "--format=tar", resolved.strip()], toplevel)
    if archive.returncode != 0:
        raise SourceError(
            f"--against {ref}: git archive failed: {archive.stderr.decode(errors='replace').strip()}"
        )
    destination.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(destination, filter=_left_out_when_refused(ref, warn))
    root = destination / prefix
    if not root.is_dir():
        raise SourceError(f"--against {ref}: {prefix or '.'} does not exist at {ref}")
    return ArmSource(root, ref)


def _left_out_when_refused(ref: str, warn: Callable[[str], None]) -> Callable[[tarfile.TarInfo, str], tarfile.TarInfo | None]:
    """tarfile's "data" filter, leaving out what it refuses rather than stopping the extraction."""
    def data_or_nothing(member: tarfile.TarInfo, path: str) -> tarfile.TarInfo | None:
        try:
            return tarfile.data_filter(member, path)
        except tarfile.FilterError as error:
            reason = "a link out of the tree" if member.issym() or member.islnk() else str(error)
            warn(f"--against {ref}: {member.name} left out: {reason}")
            return None
    return data_or_nothing


def copy_working_tree(directory: Path, destination: Path, warn: Callable[[str], None] = _print_warning) -> Path:
    """Copy the files of the working tree (git's tracked and untracked-not-ignored files when it
    is a repository) to `destination`; returns the copy of `directory`.

    The copy may be handed to the sandbox user, so nothing is ever read through a link: a link
    whose target is inside the tree is copied as a link (relative, to the copy's own file), any
    other is left out, and so is anything that is neither a regular file nor a folder (a FIFO
    would block the copy, a device never end it); `warn` is told each one left out."""
    directory = directory.resolve()
    toplevel, prefix = _git_location(directory)
    if toplevel is not None:
        listing = _git(["ls-files", "-z", "--cached", "--others", "--exclude-standard"], toplevel) or ""
        for name in filter(None, listing.split("\0")):
            _copy_entry(toplevel, name, destination, warn, git_listed=True)
        root = destination / prefix
        root.mkdir(parents=True, exist_ok=True)
        return root
    destination.mkdir(parents=True, exist_ok=True)

    def unreadable(error: OSError) -> None:
        warn(f"{_shown(directory, error.filename)} left out of the copy: {error.strerror}")

    for folder, folders, files in os.walk(directory, onerror=unreadable):  # never into a linked folder
        folders[:] = [name for name in folders if name not in SKIPPED_DIRECTORIES]
        for name in [*folders, *files]:
            _copy_entry(directory, os.path.relpath(os.path.join(folder, name), directory), destination, warn)
    return destination


def _copy_entry(tree: Path, name: str, destination: Path, warn: Callable[[str], None],
                git_listed: bool = False) -> None:
    """Copy `tree/name` to `destination/name` without following a link (see copy_working_tree)."""
    source, target = tree / name, destination / name
    if git_listed and outside(str(source.parent), os.path.realpath(tree)):  # a folder swapped for a link since
        warn(f"{name} left out of the copy: a link out of the tree")
        return
    try:
        mode = source.lstat().st_mode
        if stat.S_ISDIR(mode):
            if not git_listed:  # git lists a folder only for a submodule, which is not copied
                target.mkdir(parents=True, exist_ok=True)
        elif stat.S_ISREG(mode):
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target, follow_symlinks=False)
        elif stat.S_ISLNK(mode):
            _copy_link(tree, source, target, warn)
        else:
            warn(f"{name} left out of the copy: {file_kind(mode)}, not a regular file or folder")
    except FileNotFoundError:  # tracked but deleted, or gone since the listing
        pass
    except OSError as error:
        warn(f"{name} left out of the copy: {error.strerror}")


def _copy_link(tree: Path, source: Path, target: Path, warn: Callable[[str], None]) -> None:
    real_tree = os.path.realpath(tree)
    resolved = os.path.realpath(source)
    if outside(resolved, real_tree):
        warn(f"{source.relative_to(tree)} left out of the copy: a link out of the tree")
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    # Relative from the link's real folder: the same path leads to the copy's own file.
    os.symlink(os.path.relpath(resolved, os.path.realpath(source.parent)), target)


def _shown(tree: Path, filename: str | None) -> str:
    return os.path.relpath(filename, tree) if filename else str(tree)


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
        completed = run_git(arguments, cwd, text=True)
    except (OSError, ValueError):
        return None
    return completed.stdout if completed.returncode == 0 else None
