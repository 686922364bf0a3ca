"""Which tree a check of given paths analyses, and which of its files it reports.

`graphmend check pkg/utils.py` (as pre-commit runs it, with the changed files only) must see the
project around the file: a helper is traced only because `Net.forward` in another file calls it.
So the analysed tree is the project root, found as ruff finds its configuration: the nearest
folder above the paths holding `.graphmend.yml`, a `pyproject.toml` with `[tool.graphmend]`, or a
`.git`. Findings are then kept to the given paths. Paths outside any project are analysed alone.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from graphmend_bot.analysis.files import SKIPPED_DIRS, discover
from graphmend_bot.config import Config, find_config_file


@dataclass(frozen=True)
class ProjectScope:
    context: list[str]  # the paths analysed: the project root, and the given paths
    only: list[str] | None  # the files reported (as discover shows them); None: every file analysed
    root: Path | None  # the project root; None outside any project


def project_root(paths: Sequence[str], config: Config) -> Path | None:
    """The folder holding the configuration in use, else the nearest one above `paths` with a `.git`.

    None when the paths lie in a folder the project's walk skips (a virtual environment,
    site-packages, build/): an installed package is not part of the project around it."""
    start = _common_folder(paths)
    root = _root_above(start, config)
    if root is None or (root != start and root not in start.parents):  # `--config` from another tree
        return None
    between = [start, *start.parents[: len(start.parents) - len(root.parents) - 1]] if start != root else []
    if any(folder.name in SKIPPED_DIRS or folder.name.endswith(".egg-info") for folder in between):
        return None
    return root


def _root_above(start: Path, config: Config) -> Path | None:
    if config.source and os.path.isfile(config.source):
        return Path(config.source).resolve().parent
    found = find_config_file(start)
    if found is not None:
        return found.parent
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def project_scope(paths: Sequence[str], config: Config) -> ProjectScope:
    """Analyse the project around `paths`; report the files of `paths` only (exclusions apply to both)."""
    paths = list(paths) or ["."]
    existing = [p for p in paths if os.path.lexists(p)]
    root = project_root(existing, config) if existing else None
    if root is None or any(_covers(p, root) for p in existing):
        return ProjectScope(paths, None, root)
    files, _ = discover(existing, config.exclude, config.folder)
    # The given paths stay in the context: a file in a folder the walk skips (build/, a venv) is
    # still analysed when named.
    return ProjectScope([_shown(root), *paths], [f.path for f in files], root)


def write_root(scope: ProjectScope, paths: Sequence[str]) -> str:
    """The real folder `--fix` and `--add-noqa` may write in: the project root, else the folder of
    the given paths. A file whose real path is outside it (a symlink out) is never written."""
    if scope.root is not None:
        return os.path.realpath(scope.root)
    folders = [os.path.abspath(p if os.path.isdir(p) else os.path.dirname(os.path.abspath(p))) for p in paths or ["."]]
    return os.path.realpath(os.path.commonpath(folders))


def _common_folder(paths: Sequence[str]) -> Path:
    absolute = [os.path.abspath(p) for p in paths] or [os.getcwd()]
    common = Path(os.path.commonpath(absolute)).resolve()
    return common if common.is_dir() else common.parent


def _covers(path: str, root: Path) -> bool:
    return Path(path).resolve() == root.resolve()


def _shown(root: Path) -> str:
    try:
        return os.path.relpath(root)
    except ValueError:  # another drive (Windows)
        return str(root)


def within(path: str, given: Sequence[str]) -> bool:
    """Whether `path` is one of `given` or lies in a folder among them (what a restricted check reports)."""
    absolute = os.path.abspath(path)
    for item in given:
        other = os.path.abspath(item)
        if absolute == other or absolute.startswith(other.rstrip(os.sep) + os.sep):
            return True
    return False
