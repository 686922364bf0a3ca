"""The base commit's Python sources, downloaded through the API, for the trusted recomputation of
the rewrite: the fixer needs the whole program as context, as the bot had it when it wrote the fix.

The tarball link brings them in one download; each file is then checked against the base's tree
and replaced by its git blob where the archive's export rules changed it (blobs.py), so the rewrite
is computed from the committed bytes, as the pull request's files are compared as committed bytes.
Only regular `.py` files and the root's configuration files are written, under their own plain
relative paths: no links, devices or odd names are ever created, and sizes are capped (compressed
download, per file, in total) so that a hostile archive costs a clear refusal, not the runner.
"""

from __future__ import annotations

import tarfile
from pathlib import Path

from github.Repository import Repository

from graphmend_bot.config import CONFIG_FILES
from graphmend_bot.github.core.archive import ArchiveError, download
from graphmend_bot.github.core.blobs import BlobError, make_exact, plain_path

MAX_FILE_BYTES = 16 << 20
MAX_TOTAL_BYTES = 1 << 30
MAX_FILES = 100_000


class TreeError(Exception):
    """The base's sources cannot be had; the message says why."""


def download_base(repo: Repository, sha: str, scratch: Path) -> Path:
    """The base's sources under a fresh folder in `scratch`; returns that folder (the repository root).

    Raises TreeError, or the API's exceptions for the caller to describe."""
    archive = scratch / "base.tar.gz"
    try:
        download(repo.get_archive_link("tarball", sha), archive)
    except ArchiveError as error:
        raise TreeError(f"the base's archive: {error}") from None
    root = scratch / "base"
    root.mkdir()
    try:
        _extract_sources(archive, root)
    except (tarfile.TarError, OSError, EOFError) as error:
        raise TreeError(f"the base's archive cannot be read: {error}") from None
    try:
        make_exact(repo, sha, root, _is_source)
    except BlobError as error:
        raise TreeError(f"the base's files: {error}") from None
    return root


def _extract_sources(archive: Path, root: Path) -> None:
    total = count = 0
    top = ""  # GitHub's archives hold one folder, `owner-repo-sha/`; nothing outside it is kept
    with tarfile.open(archive, "r:gz") as tar:
        for member in tar:
            count += 1
            if count > MAX_FILES:
                raise TreeError(f"the base's archive has more than {MAX_FILES} entries")
            top = top or member.name.partition("/")[0]
            name = _source_name(member, top)
            if name is None:
                continue
            if member.size > MAX_FILE_BYTES:
                continue  # too large to be a source file worth rewriting; the fixer skips it too
            total += member.size
            if total > MAX_TOTAL_BYTES:
                raise TreeError(f"the base's sources are larger than {MAX_TOTAL_BYTES >> 20} MiB")
            source = tar.extractfile(member)
            if source is None:
                continue
            target = root / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read())


def _source_name(member: tarfile.TarInfo, top: str) -> str | None:
    """The member's path below the archive's top folder, if it is a source file to keep."""
    folder, _, name = member.name.partition("/")
    if not member.isreg() or folder != top or not plain_path(folder) or not plain_path(name):
        return None
    return name if _is_source(name) else None


def _is_source(name: str) -> bool:
    return name.endswith(".py") or name in CONFIG_FILES

