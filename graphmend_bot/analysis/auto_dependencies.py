"""`dependencies: auto` (opt-in, not the default): the installed torch libraries the checked tree imports.

Dynamo reports a break inside a library at the user's call into it (the innermost frame of
their code), so a user who does not want to list them by hand can still have such calls reported (GM608).
Candidates are the top-level names of the tree's absolute imports that are neither its own
packages, nor the standard library, nor torch. One is a torch library when its distribution
requires torch (not only under an extra), or, with no distribution metadata found under its
name beside it, when its top-level source imports torch. numpy, scipy and the like are not: Dynamo's own
skip rules decide their calls (GM650). Nothing is imported or run: `find_spec` on a top-level
name imports no parent, and metadata and sources are read as text.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable
from pathlib import Path

from graphmend_bot.analysis.dependencies import package_locations
from graphmend_bot.analysis.files import outside_read_root

AUTO = "auto"
# Cap on the packages auto reads (their modules are read lazily: only those the tree imports).
MAX_PACKAGES = 16
# `torch`, `torch>=2`, `torch (>=1.8)`, `torch[opt]; python_version>"3"`: not `torchvision`.
_TORCH_REQUIREMENT = re.compile(r"\s*torch\s*(?:[\[(<>=!~;]|$)", re.IGNORECASE)
_IMPORTS_TORCH = re.compile(r"^[ \t]*(?:import[ \t]+torch\b|from[ \t]+torch\b[\w.]*[ \t]+import\b)", re.MULTILINE)
_NEVER = frozenset({"torch", "functorch", "torchgen", "__future__"})


def resolved_packages(configured: Iterable[str], imported_heads: Iterable[str], tree_heads: Iterable[str],
                      tree_files: Iterable[str] = ()) -> list[str]:
    """The packages `dependencies` stands for: the named ones, and with `auto`, the installed
    torch libraries among `imported_heads` (top-level names the tree imports) that are not the
    tree's own (`tree_heads`, or a package holding one of `tree_files`: a folder without an
    `__init__.py` checked from inside, its modules importing it by name), in name order, at most
    MAX_PACKAGES of them."""
    named = [package for package in configured if package != AUTO]
    if AUTO not in configured:
        return named
    own = set(tree_heads) | set(named)
    listings: dict[Path, dict[str, Path]] = {}
    found = [head for head in sorted(set(imported_heads) - own) if is_torch_library(head, listings)]
    if found:  # rare, so the tree's folders are resolved only then
        folders = {os.path.realpath(os.path.dirname(os.path.abspath(path))) for path in tree_files}
        found = [head for head in found if not any(_holds(location, folders) for location in package_locations(head))]
    return named + found[:MAX_PACKAGES]


def is_torch_library(head: str, listings: dict[Path, dict[str, Path]] | None = None) -> bool:
    """Whether the installed top-level package `head` is a torch library with Python source to
    read inside the workspace (one outside it is skipped without a word: nobody named it).
    `listings`: the distributions found per folder so far (each folder is listed once)."""
    if not head.isidentifier() or head in _NEVER or head in sys.stdlib_module_names or head in sys.builtin_module_names:
        return False
    locations = package_locations(head)
    if not locations or any(outside_read_root(str(location)) for location in locations):
        return False
    requires = _requirements(head, locations, {} if listings is None else listings)
    if requires is not None:
        return any(_needs_torch(requirement) for requirement in requires)
    return any(_source_imports_torch(location) for location in locations)


def _holds(location: Path, folders: set[str]) -> bool:
    real = os.path.realpath(location)
    return any(folder == real or folder.startswith(real + os.sep) for folder in folders)


def _requirements(head: str, locations: list[Path], listings: dict[Path, dict[str, Path]]) -> list[str] | None:
    """Requires-Dist of the distribution named as the package (`linear_operator`, `pytorch_wpe`
    as `pytorch-wpe`) whose metadata lies beside it; None when there is none. Neither
    importlib.metadata's search (a walk of sys.path per name) nor its map of packages to
    distributions (every installed one read) is used: seconds on a large tree's imports."""
    for location in locations:
        folder = location.parent
        if folder not in listings:
            listings[folder] = _distributions(folder)
        info = listings[folder].get(_normal(head))
        if info is not None:
            return _read_requirements(info)
    return None


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def _distributions(folder: Path) -> dict[str, Path]:
    try:
        names = os.listdir(folder)
    except OSError:
        return {}
    return {_normal(name.partition("-")[0].removesuffix(".dist-info")): folder / name
            for name in names if name.endswith(".dist-info")}


def _read_requirements(info: Path) -> list[str]:
    try:
        with (info / "METADATA").open("rb") as handle:
            text = handle.read(1 << 20).decode("utf-8", "replace")
    except OSError:
        return []
    head = text.split("\n\n", 1)[0]  # the headers; the description follows a blank line
    return [line.partition(":")[2].strip() for line in head.splitlines() if line.startswith("Requires-Dist:")]


def _needs_torch(requirement: str) -> bool:
    name, _, marker = requirement.partition(";")
    return bool(_TORCH_REQUIREMENT.match(name + (";" if marker else ""))) and "extra" not in marker


def _source_imports_torch(location: Path) -> bool:
    """Whether the package's `__init__.py` (or the module itself) imports torch: read capped, as text."""
    path = location / "__init__.py" if location.is_dir() else location
    try:
        with path.open("rb") as handle:
            text = handle.read(1 << 20).decode("utf-8", "replace")
    except OSError:
        return False
    return bool(_IMPORTS_TORCH.search(text))
