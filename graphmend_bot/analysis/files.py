"""Find the Python files to check and read them, turning every problem into a FileError."""

from __future__ import annotations

import fnmatch
import hashlib
import io
import os
import stat
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


class NotRegularFile(SkippedFile):
    """A device, FIFO, socket or folder where a file's bytes were wanted."""

    def __init__(self, kind: str) -> None:
        super().__init__(f"skipped: not a regular file ({kind})")
        self.kind = kind


class OversizedFile(SkippedFile):
    """A file over its reader's size cap (`size`: what it claimed, or the cap + 1 byte read)."""

    def __init__(self, size: int, max_bytes: int) -> None:
        super().__init__(f"skipped: {size // 1024} KiB is over the {max_bytes // (1024 * 1024)} MiB limit")
        self.max_bytes = max_bytes


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


NOTEBOOK_SKIPPED = ("skipped: a Jupyter notebook; graphmend checks Python source "
                    "(export it with `jupyter nbconvert --to script` to check it)")


def discover(paths: Iterable[str], exclude: Iterable[str] = (),
             exclude_root: str | None = None) -> tuple[list[SourceFile], list[FileError]]:
    """Expand files and directories into Python source files, in a stable order.

    `exclude` patterns match paths relative to `exclude_root` (the configuration file's folder),
    whatever the working directory or the paths given, as ruff's do; a file outside that folder,
    or every file when there is none, is matched as shown (relative to the working directory)."""
    patterns = [pattern.removeprefix("./").rstrip("/") for pattern in exclude]
    base = os.path.realpath(exclude_root) if exclude_root and patterns else None
    packages: dict[tuple[Path, bool], list[str]] = {}  # per directory, for this walk
    files: dict[str, SourceFile] = {}
    errors: list[FileError] = []
    for raw in paths:
        root = Path(raw)
        if not root.exists():
            errors.append(FileError(raw, "no such file or directory"))
            continue
        if root.is_file() and root.suffix == ".ipynb":  # JSON: it would parse as one dict literal, "clean"
            errors.append(FileError(raw, NOTEBOOK_SKIPPED))
            continue
        # A FIFO or device named on the command line is a file to refuse (read_source says why), not a folder.
        candidates = _walk(root, errors) if root.is_dir() else [root]
        for path in candidates:
            shown = _display(path)
            if shown in files or (patterns and _excluded(_relative(path, base) or shown, patterns)):
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
    """A pattern with a `/` matches the path or a folder it is in (`scripts/*`, `pkg/legacy`); one
    without matches any name along it (`legacy`, `*_pb2.py`)."""
    parts = Path(path).parts
    folders = [os.path.join(*parts[:end]) for end in range(1, len(parts) + 1)]
    return any(
        any(fnmatch.fnmatch(folder, pattern) for folder in folders) if "/" in pattern
        else any(fnmatch.fnmatch(part, pattern) for part in parts)
        for pattern in patterns
    )


def _relative(path: Path, root: str | None) -> str | None:
    """`path` relative to `root` (a real path), through the symlinks above it if need be; None
    when it is not inside."""
    if root is None:
        return None
    absolute = os.path.abspath(path)
    for candidate in (absolute, os.path.join(os.path.realpath(os.path.dirname(absolute)), path.name)):
        relative = os.path.relpath(candidate, root)
        if relative != os.pardir and not relative.startswith(os.pardir + os.sep):
            return relative
    return None


def _display(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)


def module_name(path: Path, packages: dict[tuple[Path, bool], list[str]] | None = None) -> tuple[str, bool]:
    """Dotted module name from the package layout (directories holding __init__.py, and namespace
    subpackages below them: _package_parts).

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
    """The package path of a directory: up to the topmost directory holding `__init__.py`, through
    folders without one below it, which Python imports as namespace subpackages of that package (PEP
    420: einx's `einx/_src/frontend/ops.py` is `einx._src.frontend.ops`). A folder whose name is no
    identifier is no subpackage: the climb ends below it."""
    names: list[str] = []
    parts: list[str] = []
    while directory.parent != directory and directory.name.isidentifier():
        names.insert(0, directory.name)
        if (directory / "__init__.py").exists():
            parts = list(names)
        directory = directory.parent
    return parts


def confine_reads(root: Path) -> None:
    """From now on (in this process and its children) read only files whose real path is in `root`."""
    os.environ[READ_ROOT_VARIABLE] = os.path.realpath(root)


def outside_read_root(path: str) -> bool:
    """Whether `path` resolves (through any symlink) outside the confined root, when there is one."""
    root = os.environ.get(READ_ROOT_VARIABLE)
    return outside(path, root) if root else False


def outside(path: str, root: str) -> bool:
    """Whether `path` resolves (through any symlink) outside the folder `root`, a real path."""
    return os.path.commonpath([root, os.path.realpath(path)]) != root


def text_digest(source: str) -> str:
    """The sha256 of a file's text: what the summary cache keys entries by."""
    return hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()


def read_source(path: str) -> str:
    """Read a file as Python would: PEP 263 encodings and BOMs; raises ValueError on bad input."""
    data = read_capped(path)
    if b"\0" in data:
        raise SkippedFile("skipped: binary file")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError) as error:
        raise ValueError(f"cannot decode: {error}") from None


def read_capped(path: str) -> bytes:
    """The bytes of the source file `path` (through its symlinks), at most MAX_FILE_BYTES of them;
    never a file outside the confined root (see read_regular_file)."""
    if outside_read_root(path):
        raise SkippedFile("skipped: a symlink to a file outside the workspace is never read")
    return read_regular_file(path, MAX_FILE_BYTES)


def read_regular_file(path: str, max_bytes: int) -> bytes:
    """The bytes of the regular file `path` (through its symlinks), at most `max_bytes` of them.

    A device, FIFO or socket (`zero.py -> /dev/zero`, `--baseline /dev/zero`) is never opened for
    reading: its size says nothing (0 for /dev/zero) and a read would never end or never return.
    The open does not wait on a FIFO swapped in after the check, and the read stops one byte past
    the cap, whatever the size claimed (a file growing, a /proc file). Raises NotRegularFile,
    OversizedFile or UnreadFile (an OSError: `errno` ENOENT when there is no such file)."""
    try:
        _check_readable(os.stat(path), max_bytes)
        with open(path, "rb", opener=nonblocking_open) as handle:
            status = os.fstat(handle.fileno())
            _check_readable(status, max_bytes)
            # A read of the size claimed and one byte more: `read(max_bytes + 1)` allocates the
            # whole cap for every file first. Only a file holding more than it claims is read on.
            data = handle.read(status.st_size + 1)
            if len(data) > status.st_size:
                data += handle.read(max_bytes + 1 - len(data))
    except OSError as error:
        raise UnreadFile(error.errno, error.strerror) from None
    if len(data) > max_bytes:
        raise OversizedFile(max_bytes + 1, max_bytes)
    return data


def _check_readable(status: os.stat_result, max_bytes: int) -> None:
    if not stat.S_ISREG(status.st_mode):
        raise NotRegularFile(file_kind(status.st_mode))
    if status.st_size > max_bytes:
        raise OversizedFile(status.st_size, max_bytes)


_KINDS = {
    stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device", stat.S_IFIFO: "a FIFO",
    stat.S_IFSOCK: "a socket", stat.S_IFDIR: "a directory", stat.S_IFLNK: "a symlink",
    stat.S_IFREG: "a regular file",
}


def file_kind(mode: int) -> str:
    """What a file of this st_mode is, for a message: "a FIFO", "a character device"..."""
    return _KINDS.get(stat.S_IFMT(mode), "a special file")


def nonblocking_open(path: str, flags: int) -> int:
    """An `opener` that never waits on a FIFO put where a file is looked for (after a check that
    it was a regular file, too: it may be swapped in between)."""
    return os.open(path, flags | getattr(os, "O_NONBLOCK", 0))
