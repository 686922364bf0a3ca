"""`dependencies: auto` (the default): the installed torch libraries the checked tree imports.

Dynamo reports a break inside a library at the user's call into it (the innermost frame of
their code), so a user who never names a dependency still expects such calls reported (GM608).
Candidates are the top-level names of the tree's absolute imports that are neither its own
packages, nor the standard library, nor torch. One is a torch library when its distribution
requires torch (not only under an extra), or, with no distribution metadata found under its
name, when its top-level source imports torch. numpy, scipy and the like are not: Dynamo's own
skip rules decide their calls (GM650). Nothing is imported or run: `find_spec` on a top-level
name imports no parent, and metadata and sources are read as text.
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import sys
from collections.abc import Iterable, Sequence
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
    files = [os.path.realpath(path) for path in tree_files]
    found = [head for head in sorted(set(imported_heads) - own) if is_torch_library(head, files)]
    return named + found[:MAX_PACKAGES]


def is_torch_library(head: str, tree_files: Sequence[str] = ()) -> bool:
    """Whether the installed top-level package `head` is a torch library with Python source to
    read inside the workspace (one outside it is skipped without a word: nobody named it), and
    holds none of `tree_files` (real paths)."""
    if not head.isidentifier() or head in _NEVER or head in sys.stdlib_module_names or head in sys.builtin_module_names:
        return False
    locations = package_locations(head)
    if not locations or any(outside_read_root(str(location)) for location in locations):
        return False
    if any(_holds(location, tree_files) for location in locations):
        return False
    requires = _requirements(head)
    if requires is not None:
        return any(_needs_torch(requirement) for requirement in requires)
    return any(_source_imports_torch(location) for location in locations)


def _holds(location: Path, files: Sequence[str]) -> bool:
    real = os.path.realpath(location)
    return any(path == real or path.startswith(real + os.sep) for path in files)


def _requirements(head: str) -> list[str] | None:
    """The distribution's Requires-Dist, looked up by the package's own name (`linear_operator`,
    `pytorch_wpe` as `pytorch-wpe`); None when no distribution goes by it. The full map of
    packages to distributions is not built: it reads every installed distribution (seconds)."""
    for name in dict.fromkeys((head, head.replace("_", "-"))):
        try:
            return importlib.metadata.requires(name) or []
        except (importlib.metadata.PackageNotFoundError, ValueError, OSError):
            continue
    return None


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
