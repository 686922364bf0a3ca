"""A commit's files exactly as git stores them: its tree's blobs, never an export of them.

GitHub's tarball is `git archive`: it applies the commit's own `.gitattributes` (`export-subst`
writes commit data into a file, `ident` expands `$Id$`, `eol`/`text` turn LF into CRLF, a filter
smudges, `export-ignore` leaves files out). A pull request chooses those attributes, so the bot
never takes the archive's bytes for the commit's: after extracting it, every file the bot reads is
checked against the tree listing by its git blob SHA, and each one that differs or is missing is
read from the Git Data API (`GET /git/blobs/{sha}`), which serves the blob itself. In the usual
repository no file differs and the check costs one or a few listing requests.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import posixpath
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from github.Repository import Repository

REGULAR_MODES = frozenset({"100644", "100755"})  # git's modes of regular files (links and submodules are not)
MAX_BLOB_READS = 2_000  # files the archive got wrong, each one request: past this the download is refused
MAX_BLOB_BYTES = 16 << 20  # a file the archive left out and larger than this is no source worth reading


class BlobError(ValueError):
    """The commit's files cannot be had exactly; the message says why, for the reply."""


@dataclass(frozen=True)
class TreeEntry:
    mode: str
    sha: str
    size: int


def blob_sha(data: bytes) -> str:
    """`git hash-object` of `data`: the SHA a tree records for a file with these bytes."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def regular_files(repo: Repository, commit_sha: str) -> dict[str, TreeEntry]:
    """{path: entry} of every regular file at `commit_sha`, from the tree listing (one recursive
    request; folder by folder when GitHub truncates it, as it does for very large trees)."""
    root = repo.get_git_commit(commit_sha).tree.sha
    listing = repo.get_git_tree(root, recursive=True)
    if not listing.raw_data.get("truncated"):
        return {e.path: TreeEntry(e.mode, e.sha, e.size or 0) for e in listing.tree
                if e.type == "blob" and e.mode in REGULAR_MODES}
    files: dict[str, TreeEntry] = {}
    folders = [("", root)]
    while folders:
        prefix, sha = folders.pop()
        for entry in repo.get_git_tree(sha).tree:
            path = f"{prefix}{entry.path}"
            if entry.type == "tree":
                folders.append((f"{path}/", entry.sha))
            elif entry.type == "blob" and entry.mode in REGULAR_MODES:
                files[path] = TreeEntry(entry.mode, entry.sha, entry.size or 0)
    return files


def read_blob(repo: Repository, sha: str) -> bytes:
    """A blob's bytes from the Git Data API."""
    blob = repo.get_git_blob(sha)
    if blob.encoding != "base64":
        return blob.content.encode("utf-8")
    try:
        return base64.b64decode(blob.content)
    except (binascii.Error, ValueError):
        raise BlobError(f"GitHub sent blob {sha[:7]} in a form that cannot be decoded") from None


def make_exact(repo: Repository, commit_sha: str, root: Path, wanted: Callable[[str], bool]) -> None:
    """Make the files under `root` (a commit's extracted archive) the commit's blobs: every regular
    file the tree lists whose bytes differ is replaced, every one `wanted` that the archive left out
    is added, and every file the tree does not list is removed. Raises BlobError, or the API's
    exceptions for the caller to describe."""
    files = regular_files(repo, commit_sha)
    reads = 0
    for name, entry in files.items():
        path = root / name
        present = path.is_file() and not path.is_symlink()
        if present and blob_sha(path.read_bytes()) == entry.sha:
            continue
        if not plain_path(name) or (not present and (not wanted(name) or entry.size > MAX_BLOB_BYTES)):
            continue
        reads += 1
        if reads > MAX_BLOB_READS:
            raise BlobError(f"more than {MAX_BLOB_READS} files of {commit_sha[:7]} differ from the repository "
                            "archive (`.gitattributes` export rules)")
        _write_inside(root, name, read_blob(repo, entry.sha))
    for path in sorted(root.rglob("*"), reverse=True):
        name = path.relative_to(root).as_posix()
        if (path.is_file() and not path.is_symlink()) and name not in files:
            path.unlink()  # the archive holds no such file of the commit (nothing can add one, but be exact)


def _write_inside(root: Path, name: str, data: bytes) -> None:
    """Write `name` below `root`, never through a link the archive created on the way."""
    target = root / name
    folder = root
    for part in Path(name).parts[:-1]:
        folder = folder / part
        if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
            raise BlobError(f"`{name}` lies below something that is not a folder in the repository archive")
    if target.is_symlink() or target.is_dir():
        raise BlobError(f"`{name}` is a file in the commit but not in the repository archive")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)


def plain_path(name: str) -> bool:
    """A relative path with no `..`, no absolute start, no backslash or NUL: safe to join to a folder."""
    return (bool(name) and posixpath.normpath(name) == name and not name.startswith("/")
            and ".." not in name.split("/") and "\\" not in name and "\0" not in name)
