"""Which summary cache the CLI and the local review may read, and the key its entries are signed with.

An entry decides findings: a cache whose entries can come from someone else forges `check`
(review14's finding 1: a `.graphmend_cache/` committed to a repository, cloned, said "clean"). So
- a cache folder that git tracks anything under, or that is not the current user's, is not used
  (one line says so);
- every entry is signed with HMAC-SHA256 under a per-user key kept outside any project
  (`$XDG_CACHE_HOME/graphmend/key`, else `~/.cache/graphmend/key`; created 0600 in a 0700 folder),
  so an entry copied, committed or edited by anyone without that key never verifies (recomputed).
Without a usable key there is no cache. The Action's `cache-dir` (github/review/analyse.py) is
trusted by its workflow instead: only default-branch runs save it, and a pull request's run reads
of it only the entries of texts it does not change (github/review/pull_request_cache.py).
"""

from __future__ import annotations

import os
import secrets
import subprocess
import tempfile
from collections.abc import Callable
from functools import cache
from pathlib import Path

from graphmend_bot.analysis.summary_cache import CACHE_DIR_NAME, CACHE_DIR_VARIABLE, SummaryCache
from graphmend_bot.git_command import run_git

KEY_BYTES = 32
_KEY_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)


def key_path() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "graphmend" / "key"


@cache
def user_key() -> bytes | None:
    """The current user's signing key, made on first use; None when it cannot be read or made."""
    path = key_path()
    try:
        return _read_key(path)
    except FileNotFoundError:
        pass
    except OSError:
        return None
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent)  # 0600
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(secrets.token_bytes(KEY_BYTES))
            os.link(temporary, path)  # never replaces a key another run made meanwhile
        except FileExistsError:
            pass
        finally:
            os.unlink(temporary)
        return _read_key(path)
    except OSError:
        return None


def _read_key(path: Path) -> bytes:
    handle = os.open(path, _KEY_READ_FLAGS)  # a symlink is refused (ELOOP)
    with open(handle, "rb") as key_file:
        status = os.fstat(key_file.fileno())
        if hasattr(os, "getuid") and (status.st_uid != os.getuid() or status.st_mode & 0o077):
            raise PermissionError(f"{path} is not the current user's alone")
        key = key_file.read(KEY_BYTES + 1)
    if len(key) != KEY_BYTES:
        raise OSError(f"{path} is not a key")
    return key


def project_cache(root: Path | None, warn: Callable[[str], None]) -> SummaryCache | None:
    """`GRAPHMEND_CACHE_DIR`, else `.graphmend_cache` in the project root, signed with the user's
    key; None outside a project, without a key, or for a folder someone else's entries can be in."""
    configured = os.environ.get(CACHE_DIR_VARIABLE)
    folder = Path(configured) if configured else root / CACHE_DIR_NAME if root is not None else None
    if folder is None:
        return None
    refusal = _foreign(folder)
    if refusal:
        warn(f"the summary cache {folder} {refusal}: it is not used (delete it, or set {CACHE_DIR_VARIABLE})")
        return None
    key = user_key()
    if key is None:
        warn(
            f"no summary cache: the signing key {key_path()} cannot be made or is not the current user's alone"
        )
        return None
    return SummaryCache(folder, key)


def _foreign(folder: Path) -> str:
    """Why entries under `folder` may be someone else's ("" when they can only be this user's)."""
    try:
        owner = folder.lstat().st_uid
    except OSError:
        return ""  # not there yet: this run makes it
    if hasattr(os, "getuid") and owner != os.getuid():
        return "belongs to another user"
    return "is tracked by git" if _tracked(folder) else ""


def _tracked(folder: Path) -> bool:
    """Whether git tracks a file under `folder` (a committed cache comes with every clone)."""
    try:
        listed = run_git(["ls-files", "-z", "--", folder.name], folder.parent, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False  # no git: nothing is tracked
    return listed.returncode == 0 and bool(listed.stdout)
