"""Find the Python files to check and read them, turning every problem into a FileError."""

from __future__ import annotations

import fnmatch
import hashlib
import io
import os
import tokenize
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from graphmend_bot.findings import FileError

MAX_FILE_BYTES = 5 * 1024 * 1024  # generated tables and vendored blobs, not model code
# Set by the bot to its workspace: no file whose real path is outside it is read, whatever symlink
# leads there (a pull request may add `model.py -> /home/runner/.ssh/id_rsa`). An environment
# variable, so that the rewrite engine's worker processes obey it too.
READ_ROOT_VARIABLE = "GRAPHMEND_READ_ROOT"
SKIPPED_DIRS = frozenset({
    ".git", ".hg", ".svn", ".venv", "venv", "__pycache__", ".mypy_cache", ".ruff_cache",
    ".pytest_cache", ".tox", ".nox", "node_modules", "build", "dist", ".eggs", "site-packages",
})


class SkippedFile(ValueError):
    """A file left out on purpose (binary, oversized, a symlink out of the workspace): a notice,
    where any other ValueError of read_source is a file that should have been checked and was not."""


class UnreadFile(ValueError):
    """A file the system would not read (an OSError): `errno` tells a busy machine (EMFILE,
    ENOMEM...) from the file's own fault."""

    def __init__(self, errno: int | None, strerror: str | None) -> None:
        super().__init__(f"cannot read: {strerror}")
        self.errno = errno
        self.strerror = strerror


@dataclass(frozen=True)
class SourceFile:
    path: str  # as shown to the user: relative to the working directory when possible
    module: str
    is_package: bool


def discover(paths: Iterable[str], exclude: Iterable[str] = ()) -> tuple[list[SourceFile], list[FileError]]:
    """Expand files and directories into Python source files, in a stable order."""
    patterns = list(exclude)
    packages: dict[tuple[Path, bool], list[str]] = {}  # per directory, for this walk
    files: dict[str, SourceFile] = {}
    errors: list[FileError] = []
    for raw in paths:
        root = Path(raw)
        if not root.exists():
            errors.append(FileError(raw, "no such file or directory"))
            continue
        candidates = [root] if root.is_file() else _walk(root, errors)
        for path in candidates:
            shown = _display(path)
            if _excluded(shown, patterns) or shown in files:
                continue
            module, is_package = module_name(path, packages)
            files[shown] = SourceFile(shown, module, is_package)
    return _unique_modules(sorted(files.values(), key=lambda f: f.path)), errors


def _unique_modules(files: list[SourceFile]) -> list[SourceFile]:
    """Two roots may hold the same module name (tests/conftest.py, docs/conftest.py): keep both."""
    seen: set[str] = set()
    unique = []
    for source_file in files:
        if source_file.module in seen:
            source_file = SourceFile(source_file.path, f"{source_file.module}@{source_file.path}", source_file.is_package)
        seen.add(source_file.module)
        unique.append(source_file)
    return unique


def _walk(root: Path, errors: list[FileError]) -> Iterator[Path]:
    seen: set[tuple[int, int]] = set()

    def on_error(error: OSError) -> None:
        errors.append(FileError(_display(Path(error.filename or root)), f"cannot read directory: {error.strerror}", "error"))

    for directory, subdirs, names in os.walk(root, followlinks=True, onerror=on_error):
        try:
            stat = os.stat(directory)
        except OSError:
            continue
        if (stat.st_dev, stat.st_ino) in seen:  # a symlink loop: each directory once
            subdirs[:] = []
            errors.append(FileError(_display(Path(directory)), "symlink loop skipped"))
            continue
        seen.add((stat.st_dev, stat.st_ino))
        if outside_read_root(directory):  # not even the names of files outside the workspace
            subdirs[:] = []
            errors.append(FileError(_display(Path(directory)), "skipped: a symlink to a folder outside the workspace"))
            continue
        subdirs[:] = sorted(d for d in subdirs if d not in SKIPPED_DIRS and not d.endswith(".egg-info"))
        for name in sorted(names):
            if name.endswith(".py"):
                yield Path(directory, name)


def _excluded(path: str, patterns: list[str]) -> bool:
    parts = Path(path).parts
    return any(
        fnmatch.fnmatch(path, pattern) or any(fnmatch.fnmatch(part, pattern) for part in parts)
        for pattern in patterns
    )


def _display(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)


def module_name(path: Path, packages: dict[tuple[Path, bool], list[str]] | None = None) -> tuple[str, bool]:
    """Dotted module name from the package layout (directories holding __init__.py).

    A file's own symlink is not followed; its directory's real path is. `packages` remembers
    each directory's package path, so that a walk asks the file system once per directory
    rather than once per file and level.
    """
    is_package = path.name == "__init__.py"
    follow = not path.is_symlink()
    key = (path.parent, follow)
    cache = {} if packages is None else packages
    if key not in cache:
        cache[key] = _package_parts(path.parent.resolve() if follow else path.absolute().parent)
    parts = [*cache[key], *([] if is_package else [path.stem])]
    return ".".join(parts) or path.stem, is_package


def _package_parts(directory: Path) -> list[str]:
    parts: list[str] = []
    while (directory / "__init__.py").exists() and directory.parent != directory:
        parts.insert(0, directory.name)
        directory = directory.parent
    return parts


def confine_reads(root: Path) -> None:
    """From now on (in this process and its children) read only files whose real path is in `root`."""
    os.environ[READ_ROOT_VARIABLE] = os.path.realpath(root)


def outside_read_root(path: str) -> bool:
    """Whether `path` resolves (through any symlink) outside the confined root, when there is one."""
    root = os.environ.get(READ_ROOT_VARIABLE)
    if not root:
        return False
    real = os.path.realpath(path)
    return os.path.commonpath([root, real]) != root


def text_digest(source: str) -> str:
    """The sha256 of a file's text: what the summary cache keys entries by."""
    return hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()


def read_source(path: str) -> str:
    """Read a file as Python would: PEP 263 encodings and BOMs; raises ValueError on bad input."""
    if outside_read_root(path):
        raise SkippedFile("skipped: a symlink to a file outside the workspace is never read")
    try:
        size = os.path.getsize(path)
    except OSError as error:
        raise UnreadFile(error.errno, error.strerror) from None
    if size > MAX_FILE_BYTES:
        raise SkippedFile(f"skipped: {size // 1024} KiB is over the {MAX_FILE_BYTES // (1024 * 1024)} MiB limit")
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        raise UnreadFile(error.errno, error.strerror) from None
    if b"\0" in data:
        raise SkippedFile("skipped: binary file")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError) as error:
        raise ValueError(f"cannot decode: {error}") from None
