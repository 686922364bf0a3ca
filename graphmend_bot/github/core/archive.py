"""A pull request's head commit as files, from the tarball API, without running anything from it.

The archive is `git archive` output, which the commit's `.gitattributes` may alter; every file is
then made the commit's own blob (blobs.py), so the bot reads and rewrites what is committed.

The archive is hostile input: a failure of any kind (a corrupt download, a member the `data`
filter refuses, a name the file system cannot hold) is an ArchiveError whose message the command
replies with. Size and member count are capped while extracting, before each member is written,
so an archive that unpacks to far more than it weighs never fills the disk.
"""

from __future__ import annotations

import tarfile
import zlib
from pathlib import Path

import requests
from github.Repository import Repository

from graphmend_bot.config import CONFIG_FILES
from graphmend_bot.github.core.api import TIMEOUT_S
from graphmend_bot.github.core.blobs import BlobError, make_exact

MAX_ARCHIVE_BYTES = 512 * 1024 * 1024  # the download itself
MAX_UNPACKED_BYTES = 1024 * 1024 * 1024  # the sum of the members' sizes
MAX_MEMBERS = 100_000  # files, folders and links


class ArchiveError(ValueError):
    """The archive cannot be used; the message says why, for the reply."""


def download_head(repo: Repository, sha: str, scratch: Path) -> Path:
    """The commit's files, as committed, under `scratch`; the folder holding them is returned."""
    archive = scratch / "head.tar.gz"
    download(repo.get_archive_link("tarball", sha), archive)
    target = scratch / "head"
    target.mkdir()
    extract(archive, target)
    roots = [p for p in target.iterdir() if p.is_dir() and not p.is_symlink()]
    root = roots[0] if len(roots) == 1 else target
    try:
        make_exact(repo, sha, root, _read_by_the_bot)
    except BlobError as error:
        raise ArchiveError(str(error)) from None
    return root


def _read_by_the_bot(name: str) -> bool:
    """Files the analysis reads: Python sources and configuration files."""
    return name.endswith(".py") or name.rpartition("/")[2] in CONFIG_FILES


def download(link: str, archive: Path, max_bytes: int = MAX_ARCHIVE_BYTES, headers: dict[str, str] | None = None,
             what: str = "the repository archive") -> None:
    """The file at `link` into `archive`, refused past `max_bytes` while it arrives. `headers`: the
    API's authorization for a link that redirects to storage (requests drops it on another host)."""
    try:
        with requests.get(link, timeout=TIMEOUT_S, stream=True, headers=headers) as response:
            response.raise_for_status()
            size = 0
            with archive.open("wb") as handle:
                for chunk in response.iter_content(1 << 20):
                    size += len(chunk)
                    if size > max_bytes:
                        raise ArchiveError(f"{what} is larger than {_mib(max_bytes)}")
                    handle.write(chunk)
    except requests.RequestException as error:
        raise ArchiveError(f"downloading {what} failed ({type(error).__name__})") from None


def extract(archive: Path, target: Path) -> None:
    """Extract member by member through the `data` filter (no absolute paths, no `..`, no links
    out of `target`, no devices), counting members and bytes before each is written."""
    members = unpacked = 0
    name = ""
    try:
        with tarfile.open(archive, mode="r:gz") as tar:
            for member in tar:
                name = member.name
                members += 1
                unpacked += max(member.size, 0)
                if members > MAX_MEMBERS:
                    raise ArchiveError(f"the repository archive has more than {MAX_MEMBERS:,} entries")
                if unpacked > MAX_UNPACKED_BYTES:
                    raise ArchiveError(f"the repository archive unpacks to more than {_mib(MAX_UNPACKED_BYTES)}")
                tar.extract(member, target, filter="data")
    except tarfile.FilterError as error:
        raise ArchiveError(f"the repository archive holds an entry that is not extracted: {_quote(name)} "
                           f"({_reason(error)})") from None
    except (tarfile.TarError, EOFError, zlib.error) as error:
        raise ArchiveError(f"the repository archive is corrupt ({type(error).__name__})") from None
    except (OSError, UnicodeError) as error:
        raise ArchiveError(f"the repository archive entry {_quote(name)} cannot be written here "
                           f"({type(error).__name__})") from None


def _reason(error: tarfile.FilterError) -> str:
    return {
        "AbsolutePathError": "an absolute path",
        "OutsideDestinationError": "a path outside the repository",
        "AbsoluteLinkError": "a link to an absolute path",
        "LinkOutsideDestinationError": "a link to outside the repository",
        "SpecialFileError": "a device or other special file",
    }.get(type(error).__name__, "refused by the extraction filter")


def _quote(name: str) -> str:
    """An entry name for a Markdown reply: printable, short, and unable to break out of code."""
    shown = "".join(c if c.isprintable() and c != "`" else "?" for c in name)[:120]
    return f"`{shown}`"


def _mib(size: int) -> str:
    return f"{size // (1024 * 1024)} MiB"
