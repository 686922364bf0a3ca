"""Installed packages the checked tree calls into (`dependencies` in the config).

Their modules are summarised from source like the tree's own, so the scope solver can follow a
call into them; only the modules the tree imports, and what those import within the package,
are read, once. Nothing is imported or run: the package is located with `find_spec` on its
top-level name (which, unlike a dotted name, imports no parent), and its files are read as text.
"""

from __future__ import annotations

import importlib.util
import os
from collections import deque
from collections.abc import Iterable, Iterator
from pathlib import Path

from graphmend_bot.analysis.files import outside_read_root, read_source
from graphmend_bot.analysis.model import ModuleSummary
from graphmend_bot.analysis.summary import summarize_module
from graphmend_bot.findings import FileError
from graphmend_bot.gc_pause import collector_paused


def package_locations(package: str) -> list[Path]:
    """The folders (or the single file) holding an installed top-level package, unimported."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return []
    if spec is None:
        return []
    if spec.submodule_search_locations:
        return [Path(location) for location in spec.submodule_search_locations]
    if spec.origin and spec.origin.endswith(".py"):
        return [Path(spec.origin)]
    return []  # a compiled extension or a frozen module: no source to read


class Dependencies:
    """Where each configured package lies, and the summaries of its modules read so far."""

    def __init__(self, packages: Iterable[str], tree_modules: Iterable[str]) -> None:
        self.tree_modules = set(tree_modules)  # a module the tree holds is the tree's, not a dependency's
        self.locations: dict[str, list[Path]] = {}
        self.errors: list[FileError] = []
        for package in packages:
            locations = package_locations(package)
            if not locations:
                self.errors.append(FileError(package, "dependency not installed (or has no Python source): skipped"))
            elif any(outside_read_root(str(location)) for location in locations):
                self.errors.append(FileError(package, "dependency installed outside the workspace: skipped"))
            else:
                self.locations[package] = locations

    def summaries(self, imported: Iterable[str]) -> list[ModuleSummary]:
        """Summaries of the dependency modules among `imported` (qualified names the tree imports)
        and of the modules they import within their package, transitively."""
        done: dict[str, ModuleSummary | None] = {}
        queue = deque(imported)
        while queue:
            name = queue.popleft()
            found = self._module_file(name)
            if found is None or found[0] in done:
                continue
            module, path, is_package = found
            summary = done[module] = self._summarize(module, path, is_package)
            if summary is not None:
                queue.extend(summary.imports.values())
                queue.extend(summary.star_imports)
        return [summary for summary in done.values() if summary is not None]

    def _module_file(self, name: str) -> tuple[str, Path, bool] | None:
        """The longest prefix of `name` that is a module of a configured package, with its file:
        `pkg.sub.Class` -> ("pkg.sub", .../pkg/sub.py, False)."""
        parts = name.split(".")
        locations = self.locations.get(parts[0])
        if locations is None:
            return None
        for cut in range(len(parts), 0, -1):
            module = ".".join(parts[:cut])
            if module in self.tree_modules:
                return None
            for candidate, is_package in _candidates(locations, parts[1:cut]):
                if candidate.is_file():
                    return module, candidate, is_package
        return None

    def _summarize(self, module: str, path: Path, is_package: bool) -> ModuleSummary | None:
        shown = _display(module, is_package)
        try:
            source = read_source(str(path))
            with collector_paused():
                # with the call facts, as the tree's: keyword sorts and forwards (keyword_sorts.py)
                summary = summarize_module(source, str(path), module, is_package, dependency_calls=True)
        except SyntaxError as error:
            self.errors.append(FileError(shown, f"dependency module skipped: syntax error, line {error.lineno}"))
            return None
        except (ValueError, RecursionError) as error:
            self.errors.append(FileError(shown, f"dependency module skipped: {error or type(error).__name__}"))
            return None
        except Exception as error:  # one bad file must never stop the run
            self.errors.append(FileError(shown, f"dependency module skipped: {type(error).__name__}: {error}"))
            return None
        summary.path = shown  # what findings cite; the file itself was read from `path`
        return summary


def _candidates(locations: list[Path], inner: list[str]) -> Iterator[tuple[Path, bool]]:
    for location in locations:
        if location.suffix == ".py":  # a single-module package: only the module itself
            if not inner:
                yield location, False
            continue
        folder = location.joinpath(*inner)
        yield folder / "__init__.py", True
        if inner:
            yield folder.with_suffix(".py"), False


def _display(module: str, is_package: bool) -> str:
    """`linear_operator/operators/_linear_operator.py`: where the module lies in its package."""
    path = module.replace(".", os.sep)
    return os.path.join(path, "__init__.py") if is_package else f"{path}.py"


def imported_names(summaries: Iterable[ModuleSummary], packages: Iterable[str]) -> list[str]:
    """The qualified names the tree imports from the configured packages."""
    heads = set(packages)
    return [
        name
        for summary in summaries
        for name in (*summary.imports.values(), *summary.star_imports)
        if name.partition(".")[0] in heads
    ]
