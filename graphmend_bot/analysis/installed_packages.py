"""What an imported dotted name is in the installed third-party packages, read from their files.

Nothing is imported or run: the top-level package is located with `find_spec` on its name (which
imports nothing), its `__init__.py` and modules are parsed as text, and an extension module's file
is only searched for the marks its compiler leaves. A name counts as third-party only when it lies
in a `site-packages` (or `dist-packages`) folder: a module of the checked tree never does.

`extension_callee("pywt.Wavelet")` follows `pywt/__init__.py`'s `from ._extensions._pywt import *`
to the compiled `_pywt` module, since no Python module it star-imports binds `Wavelet`.
"""

from __future__ import annotations

import ast
import errno
import functools
import hashlib
import importlib.machinery
import importlib.util
import mmap
import os
import stat
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from graphmend_bot.analysis.files import (
    READ_ROOT_VARIABLE,
    UnreadFile,
    nonblocking_open,
    outside_read_root,
    read_source,
)
from graphmend_bot.vocabulary.compiled_code import CompiledModule
from graphmend_bot.vocabulary.third_party_skips import HANDLED_PACKAGES

INSTALLED_FOLDERS = frozenset({"site-packages", "dist-packages"})
# Cython's function type: in every module it compiles, calls to which Dynamo refuses (GB0156).
CYTHON_MARK = b"cython_function_or_method"
# Rust (PyO3) and pybind11 bindings: Dynamo's handling of their objects was not measured.
UNMEASURED_BINDINGS = (b"pyo3", b"pybind11")
MAX_EXTENSION_BYTES = 512 * 1024 * 1024
_MAX_DEPTH = 8  # re-exports followed from module to module
# Errors of a loaded machine, not of the file: opening or mapping is tried again after a pause.
TRANSIENT_ERRORS = frozenset({errno.EAGAIN, errno.EINTR, errno.EMFILE, errno.ENFILE, errno.ENOMEM, errno.EBUSY})
READ_ATTEMPTS = 4
_RETRY_PAUSE_S = 0.05


@dataclass(frozen=True)
class _Python:
    """The name is bound by Python source (a def, a class, an assignment): not compiled."""

    is_class: bool = False


PYTHON = _Python()
PYTHON_CLASS = _Python(is_class=True)
_Answer = TypeVar("_Answer")


class UnreadInstalledFile(OSError):
    """A file of an installed package (a compiled module, an `__init__.py`) that could not be read
    even after retrying: what the names it holds are stays unknown."""


def read_root() -> str:
    """The read root in force (files.confine_reads), part of every memo's key here: what is read
    outside it differs, and a process may confine its reads after its first check (the bot)."""
    return os.environ.get(READ_ROOT_VARIABLE, "")


def forget() -> None:
    """Drop every memo (tests that change an installed package's files within one process)."""
    for cached in (_installed_package, _extension_callee, _python_class, _python_definition, _bindings, _extension,
                   _installed_state):
        cached.cache_clear()


def installed_package(top: str) -> list[Path]:
    """The folders (or the file) of an installed third-party top-level package or module; empty
    for the standard library, torch, the packages Dynamo handles itself, and anything not lying
    in an installed-packages folder."""
    return _installed_package(top, read_root())


@functools.lru_cache(maxsize=1024)
def _installed_package(top: str, root: str) -> list[Path]:
    if top in sys.stdlib_module_names or top == "torch" or top in HANDLED_PACKAGES or not top.isidentifier():
        return []
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return []
    if spec is None:
        return []
    locations = [Path(p) for p in spec.submodule_search_locations or ()] or (
        [Path(spec.origin)] if spec.origin else [])
    return [
        location for location in locations
        if INSTALLED_FOLDERS & set(location.parts) and not outside_read_root(str(location))
    ]


def extension_callee(dotted: str) -> CompiledModule | None:
    """The compiled module `dotted` (a name under an installed package) comes from, when it comes
    from one Cython or the C API built; None for Python code and for what cannot be told.

    A package file that cannot be read even after retrying (UnreadInstalledFile) answers None for
    this call only, with a one-line warning on stderr: the answer is never memoised, so the next
    question reads the file again instead of losing its findings for the rest of the run."""
    return _asked(_extension_callee, dotted, None)


@functools.lru_cache(maxsize=4096)
def _extension_callee(dotted: str, root: str) -> CompiledModule | None:
    top, *names = dotted.split(".")
    locations = _installed_package(top, root)
    if not locations or not names:
        return None
    found = _lookup(locations, top, names, 0)
    return found if isinstance(found, CompiledModule) else None


def python_class(dotted: str) -> bool:
    """`dotted` names a class a `class` statement of an installed package defines (`tqdm.tqdm`)."""
    return _asked(_python_class, dotted, False)


@functools.lru_cache(maxsize=1024)
def _python_class(dotted: str, root: str) -> bool:
    top, *names = dotted.split(".")
    locations = _installed_package(top, root)
    return bool(locations and names) and _lookup(locations, top, names, 0) == PYTHON_CLASS


_Definition = tuple[str, str, dict[str, str]] | None


def python_definition(dotted: str) -> tuple[str, str, dict[str, str]] | None:
    """Where `dotted` (a name under an installed package) is defined by Python source, following
    re-exports and Python star imports within its package: (the module's file, the name there, the
    module's imported names -> what each imports), or None when it is not Python or cannot be told."""
    return _asked(_python_definition, dotted, None)


@functools.lru_cache(maxsize=1024)
def _python_definition(dotted: str, root: str) -> _Definition:
    top, *names = dotted.split(".")
    locations = _installed_package(top, root)
    return _definition(locations, top, names, 0) if locations and names else None


def _definition(
    locations: list[Path], module: str, names: list[str], depth: int,
    memo: dict[tuple[str, tuple[str, ...]], _Definition] | None = None,
) -> _Definition:
    """`memo` holds each question of one query once asked, as in _lookup: star imports may form
    cycles, and a question met again while still open answers None."""
    memo = {} if memo is None else memo
    question = (module, tuple(names))
    if question not in memo:
        memo[question] = None  # open: a cycle back here answers None
        memo[question] = _defined_where(locations, module, names, depth, memo)
    return memo[question]


def _defined_where(
    locations: list[Path], module: str, names: list[str], depth: int,
    memo: dict[tuple[str, tuple[str, ...]], _Definition],
) -> _Definition:
    """_definition's answer to a question not asked before in this query."""
    file = _module_file(locations, module)
    if file is None or file.suffix != ".py" or depth > _MAX_DEPTH or not names:
        return None
    name, rest = names[0], names[1:]
    step = _submodule_or_bindings(locations, module, file, name)
    if step is None or isinstance(step, str):
        return _definition(locations, step, rest, depth + 1, memo) if step else None
    bound, stars = step
    origin = bound.get(name)
    if isinstance(origin, _Python):
        imported = {key: value for key, value in bound.items() if isinstance(value, str)}
        return (str(file), name, imported) if not rest else None
    if origin is not None:  # imported: followed within the package only
        source_module, _, source_name = origin.rpartition(".")
        same = source_module.partition(".")[0] == module.partition(".")[0]
        return _definition(locations, source_module, [source_name, *rest], depth + 1, memo) if same else None
    same_package = [star for star in reversed(stars)  # a later one wins
                    if star.partition(".")[0] == module.partition(".")[0] and _is_python(locations, star)]
    return next((found for star in same_package if (found := _definition(locations, star, names, depth + 1, memo))), None)


_unread_warned: set[str] = set()
# How many reads failed in this process: a summary made after one is not stored (engine.py).
unread_count = 0


def _asked(query: Callable[[str, str], _Answer], dotted: str, unknown: _Answer) -> _Answer:
    """`query(dotted, read root)`, or `unknown` with a warning (once per file) when a package file
    it needed could not be read."""
    global unread_count
    try:
        return query(dotted, read_root())
    except UnreadInstalledFile as error:
        unread_count += 1
        if error.filename not in _unread_warned:
            _unread_warned.add(error.filename)
            print(f"graphmend: warning: cannot read the installed file {error.filename} ({error.strerror}): "
                  "the calls it would tell about are not judged in this run (GM651, GM652)", file=sys.stderr)
        return unknown


_Found = CompiledModule | _Python | None
_Memo = dict[tuple[str, tuple[str, ...], bool], _Found]


def _lookup(
    locations: list[Path], module: str, names: list[str], depth: int, guess: bool = True, memo: _Memo | None = None,
) -> _Found:
    """What `module.names[0]...` is: compiled, Python, or not known (None). `guess`: a name no
    Python module binds is taken from a compiled module star-imported on the way.

    `memo` holds each question of one query once asked: star imports may form cycles (modules
    star-importing each other) and each level branches over every star import, so without it a
    hostile package makes the search exponential. A question met again while still open (a
    cycle) answers None: the cycle binds nothing its way in does not."""
    memo = {} if memo is None else memo
    question = (module, tuple(names), guess)
    if question not in memo:
        memo[question] = None  # open: a cycle back here answers None
        memo[question] = _answer(locations, module, names, depth, guess, memo)
    return memo[question]


def _answer(locations: list[Path], module: str, names: list[str], depth: int, guess: bool, memo: _Memo) -> _Found:
    """_lookup's answer to a question not asked before in this query."""
    file = _module_file(locations, module)
    if file is None or depth > _MAX_DEPTH:
        return None
    if file.suffix != ".py":
        return _extension(file, module, read_root()) if names or depth else None
    if not names:
        return PYTHON
    name, rest = names[0], names[1:]
    step = _submodule_or_bindings(locations, module, file, name)
    if step is None or isinstance(step, str):
        return _lookup(locations, step, rest, depth + 1, memo=memo) if step else None
    bound, stars = step
    if name in bound:
        origin = bound[name]
        if isinstance(origin, _Python):
            return origin if not rest else PYTHON
        source_module, _, source_name = origin.rpartition(".")
        if source_module.partition(".")[0] != module.partition(".")[0]:
            return None  # re-exported from another package: judged under its own name
        return _lookup(locations, source_module, [source_name, *rest], depth + 1, guess, memo)
    if any(star.partition(".")[0] != module.partition(".")[0] for star in stars):
        return None  # a star import from another package may bind it
    # What a compiled module exports cannot be read: it is the name's origin only when no Python
    # module star-imported here (or further down) binds the name.
    python_stars = [star for star in reversed(stars) if _is_python(locations, star)]  # a later one wins
    for star in python_stars:
        if (found := _lookup(locations, star, names, depth + 1, False, memo)) is not None:
            return found
    if not guess:
        return None
    guesses: list[CompiledModule] = []
    for star in reversed(stars):
        if star not in python_stars and (star_file := _module_file(locations, star)) is not None:
            found = _extension(star_file, star, read_root())
        else:
            found = _lookup(locations, star, names, depth + 1, memo=memo)
        if isinstance(found, CompiledModule):
            guesses.append(found)
        elif found is not None:
            return found
    if len({found.module for found in guesses}) > 1:  # one of them: named by the module importing them
        return CompiledModule(module, all(found.cython for found in guesses))
    return guesses[0] if guesses else None


def _submodule_or_bindings(
    locations: list[Path], module: str, file: Path, name: str,
) -> str | tuple[dict[str, str | _Python], list[str]] | None:
    """`module.name` when it is a submodule; else the bindings and star imports of `module`, the
    Python module at `file` (None when it cannot be read)."""
    if _module_file(locations, f"{module}.{name}") is not None:
        return f"{module}.{name}"
    return _bindings(str(file), module, file.name == "__init__.py")


def _is_python(locations: list[Path], module: str) -> bool:
    file = _module_file(locations, module)
    return file is not None and file.suffix == ".py"


def _module_file(locations: list[Path], module: str) -> Path | None:
    """The file of `module` (a dotted name under the package at `locations`)."""
    parts = module.split(".")[1:]
    for location in locations:
        if location.is_file():
            if not parts and location.name.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)):
                return location
            continue
        base = location.joinpath(*parts)
        if (base / "__init__.py").is_file():
            return base / "__init__.py"
        # Python's own order: a compiled module wins over a `.py` beside it (mypyc, Cython's pure mode)
        for suffix in (*importlib.machinery.EXTENSION_SUFFIXES, ".py") if parts else ():
            if (candidate := base.with_name(base.name + suffix)).is_file():
                return candidate
    return None


@functools.lru_cache(maxsize=1024)
def _bindings(path: str, module: str, is_package: bool) -> tuple[dict[str, str | _Python], list[str]] | None:
    """A Python module's top-level names (each with the `module.name` it imports, or what Python
    code defines it as) and the modules it star-imports, in order; None when it cannot be parsed
    or read_source refuses it (UnreadInstalledFile when the system would not read it: _retried)."""
    try:
        tree = ast.parse(_retried(functools.partial(read_source, path), path))
    except (ValueError, SyntaxError, RecursionError, MemoryError):  # not Python we can read: nothing is told
        return None
    package = module if is_package else module.rpartition(".")[0]
    bound: dict[str, str | _Python] = {}
    stars: list[str] = []
    for node in _top_level(tree.body):
        if isinstance(node, ast.ImportFrom):
            base = _absolute(node, package)
            for alias in node.names:
                if alias.name == "*":
                    stars.append(base)
                else:
                    bound[alias.asname or alias.name] = f"{base}.{alias.name}"
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound[node.name] = PYTHON_CLASS if isinstance(node, ast.ClassDef) else PYTHON
        elif (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Name)):
            bound[node.targets[0].id] = bound.get(node.value.id, PYTHON)  # an alias: `tqdm = asyncio_tqdm`
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Import)):
            targets = node.targets if isinstance(node, ast.Assign) else (
                [] if isinstance(node, ast.Import) else [node.target])
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        bound[name.id] = PYTHON
            if isinstance(node, ast.Import):
                for alias in node.names:
                    bound[alias.asname or alias.name.partition(".")[0]] = PYTHON
    return bound, stars


def _top_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements run at import, `if`/`try`/`with` blocks opened (`try: from ._ext import f`)."""
    found: list[ast.stmt] = []
    for node in body:
        if isinstance(node, ast.With):
            found += _top_level(node.body)
        elif isinstance(node, ast.If):
            found += _top_level(node.body) + _top_level(node.orelse)
        elif isinstance(node, ast.Try):
            found += _top_level(node.body) + [s for h in node.handlers for s in _top_level(h.body)]
            found += _top_level(node.orelse)
        else:
            found.append(node)
    return found


def _absolute(node: ast.ImportFrom, package: str) -> str:
    if not node.level:
        return node.module or ""
    parts = package.split(".")
    parts = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
    return ".".join([*parts, node.module] if node.module else parts)


@functools.lru_cache(maxsize=256)
def _extension(file: Path, module: str, root: str) -> CompiledModule | None:
    """The compiled module at `file`, judged by the marks its compiler left; None for bindings
    whose objects Dynamo was not measured on, and for a file too large, not a regular file or
    resolving outside the read root `root` (the limits read_source keeps to). A read that keeps
    failing raises UnreadInstalledFile, which no memo keeps: an error is never taken for "not compiled"."""
    if outside_read_root(str(file)):
        return None
    try:
        return _retried(functools.partial(_read_extension, file, module), str(file))
    except ValueError:
        return None  # mmap's answer for a file that shrank to nothing while being opened


def _retried(read: Callable[[], _Answer], path: str) -> _Answer:
    """`read()`, tried again after a pause while it fails with an error of a busy machine
    (TRANSIENT_ERRORS); UnreadInstalledFile when it still fails, or fails otherwise to read."""
    for attempt in range(READ_ATTEMPTS):
        try:
            return read()
        except (OSError, UnreadFile) as error:
            if error.errno not in TRANSIENT_ERRORS or attempt == READ_ATTEMPTS - 1:
                raise UnreadInstalledFile(error.errno, error.strerror or str(error), path) from None
            time.sleep(_RETRY_PAUSE_S * (attempt + 1))
    raise AssertionError("not reached: the last attempt returns or raises")


def _read_extension(file: Path, module: str) -> CompiledModule | None:
    with open(file, "rb", opener=nonblocking_open) as handle:
        status = os.fstat(handle.fileno())
        if not stat.S_ISREG(status.st_mode) or not 0 < status.st_size <= MAX_EXTENSION_BYTES:
            return None  # a FIFO or device is never read; an empty file cannot be mapped
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
            if any(data.find(mark) >= 0 for mark in UNMEASURED_BINDINGS):
                return None
            return CompiledModule(module, data.find(CYTHON_MARK) >= 0)


def installed_state() -> str:
    """A digest of what the installed-packages folders on sys.path hold: each folder's entries
    with their modification time and size. The summary cache keys what GM650-GM652 judged by it:
    installing, upgrading or removing a package (a new `.dist-info`) or swapping a file at a
    package's top (`_c.so` for `_c.py`) changes it, so a warm run answers as a cold one. The read
    root is part of it (confined to a workspace, no installed package is read at all), and the
    digest is kept per root: a process that confines its reads after a first check keys its
    later entries by the new root, not by the state it first computed."""
    return _installed_state(read_root())


@functools.cache
def _installed_state(root: str) -> str:
    digest = hashlib.sha256(f"{root}\0".encode("utf-8", "surrogatepass"))
    for folder in sys.path:
        if not INSTALLED_FOLDERS & set(Path(folder).parts):
            continue
        try:
            with os.scandir(folder) as entries:
                # __pycache__ changes whenever Python imports a module for the first time, and
                # nothing here reads it
                listed = sorted((entry.name, entry.stat(follow_symlinks=False))
                                for entry in entries if entry.name != "__pycache__")
        except OSError:
            continue
        digest.update(f"{folder}\0".encode("utf-8", "surrogatepass"))
        for name, status in listed:
            digest.update(f"{name}\0{status.st_mtime_ns}\0{status.st_size}\0".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()
