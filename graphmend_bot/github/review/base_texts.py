"""The changed files as the base commit has them: what the review solves the base from.

Only the changed files are read; every other file is the same on both sides and keeps its
summary (engine.Workspace.revert). A file the change adds has no base text: None. A file it
deletes, or renames away, has its base text under its old path, which the head's tree lacks
(the revert adds it). The bot undoes each file's patch (rebound_names.base_text) and asks the API
only where the patch cannot be undone (GitHub leaves it out of large diffs); `graphmend review`
asks git. The texts are data, decoded as Python decodes a source file and capped as the check
caps one: nothing of the pull request is ever run.
"""

from __future__ import annotations

import io
import tokenize
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from graphmend_bot.analysis.files import MAX_FILE_BYTES, confine_reads, read_source
from graphmend_bot.analysis.rebound_names import base_text
from graphmend_bot.github.review.git_changes import show_file

# Changed files whose patch cannot be undone (GitHub leaves large ones out) read through the API at
# most: past this many, the base is not solved (a pull request of thousands of huge files).
MAX_API_READS = 100

# A changed file's bytes at the base commit, by its path; None when the base has no such file.
ReadAtBase = Callable[[str], bytes | None]
BaseTexts = dict[str, str | None]


def decoded(data: bytes | None) -> str | None:
    """Source bytes as Python reads them (PEP 263, BOM); None for no file, a binary or undecodable one,
    or one over the size the check reads."""
    if data is None or len(data) > MAX_FILE_BYTES or b"\0" in data:
        return None
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError):
        return None


def texts_from_git(root: Path, base: str, paths: Iterable[str]) -> BaseTexts:
    """`graphmend review`: each changed file at `base` (a renamed file is new under its name, and
    its old path, among `paths`, has its text)."""
    return {path: decoded(show_file(root, base, path)) for path in paths}


def texts_from_patches(workspace: Path, files: Iterable[tuple[str, str, str | None, int | None]],
                       read_at_base: ReadAtBase, renamed: Mapping[str, str] | None = None,
                       removed: Iterable[str] = ()) -> BaseTexts | None:
    """The bot: `files` are (path, status, patch, changes) as the API lists the pull request's
    files (`changes`: its additions plus deletions, None if unknown); the head is the checkout in
    `workspace` (reads confined to it: analysis/files.confine_reads). `renamed`: new path -> old
    path of the renamed files (their patch is against the old text); `removed`: the deleted files,
    read through the API. None when more than MAX_API_READS files would need the API. Raises what
    `read_at_base` raises (an API error)."""
    confine_reads(workspace)
    renamed = renamed or {}
    texts: BaseTexts = {}
    reads = 0
    for path, status, patch, changes in [*files, *((path, "removed", None, None) for path in removed)]:
        if status in ("added", "copied") or (status == "renamed" and path not in renamed):
            _new_name(texts, path)
            continue
        old = renamed.get(path, path) if status == "renamed" else path
        head = _head_text(workspace, path) if status != "removed" else None
        undone = base_text(head, patch) if head is not None and patch else None
        if undone is None and status == "renamed" and not patch and changes == 0:
            # Renamed, unedited: GitHub gives no patch. It gives none for a large diff either, so
            # only a count of no changed lines tells the head's text is the base's.
            undone = head
        if undone is None:
            reads += 1
            if reads > MAX_API_READS:
                return None
        if status == "renamed":
            _new_name(texts, path)
        texts[old] = undone if undone is not None else decoded(read_at_base(old))
    return texts


def _new_name(texts: BaseTexts, path: str) -> None:
    """`path` is new in the head (added, or a rename's new name): no base text, unless a rename
    away from it recorded one (`z.py` renamed to `a.py` and a new `z.py` added, in either order)."""
    texts.setdefault(path, None)


def _head_text(workspace: Path, path: str) -> str | None:
    try:
        return read_source(str(workspace / path))
    except ValueError:
        return None
