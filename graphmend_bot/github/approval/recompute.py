"""Is the pull request exactly GraphMend's rewrite of its base? Recomputed with trusted code.

The base commit's sources and configuration are downloaded through the API at the base SHA (never
taken from a checkout or an artifact); the fixer runs on them in a temporary folder, as the bot ran
it on the whole workspace, and its output for the files the pull request changes, made into a fix
plan the way the bot makes one, is compared with those files at the head SHA as git blobs: the git
blob SHA of each recomputed file must be the one the head's tree records, with the base's mode.
Both sides are committed bytes, never an export: the base's archive is corrected to its blobs
(blobs.py), because `.gitattributes` (`export-subst`, `ident`, `eol`, filters) would otherwise let
export output, such as a commit message, pass for GraphMend's rewrite. Any other change (a
`setup.py`, a workflow, a new file) is a difference. An approval needs no difference at all.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import tempfile
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from github.File import File
from github.GitTreeElement import GitTreeElement
from github.Repository import Repository

from graphmend_bot.config import ConfigError, load_config
from graphmend_bot.fences import code_span
from graphmend_bot.github.approval.base_config import write_config
from graphmend_bot.github.approval.base_tree import TreeError, download_base
from graphmend_bot.github.core.api import tree_entries
from graphmend_bot.github.core.blobs import blob_sha, plain_path
from graphmend_bot.github.fixes.fix_pr import plan_fix
from graphmend_bot.github.fixes.fix_set import FIX_SETS, bot_fix_set
from graphmend_bot.github.fixes.narrowing import Change, narrow

MAX_FILES = 100  # a fix pull request larger than this is not approved automatically


@dataclass
class Comparison:
    differences: list[str] = field(default_factory=list)  # empty: the pull request is exactly the rewrite
    changes: list[Change] = field(default_factory=list)  # the recomputed rewrite (exclusions applied)


def differences_from_rewrite(repo: Repository, base_sha: str, head_sha: str, fixes: str = "safe",
                             exclude: Collection[str] = ()) -> list[str]:
    return compare_with_rewrite(repo, base_sha, head_sha, fixes, exclude).differences


def compare_with_rewrite(repo: Repository, base_sha: str, head_sha: str, fixes: str = "safe",
                         exclude: Collection[str] = ()) -> Comparison:
    """How the pull request departs from the recomputed rewrite, one sentence per way.

    `fixes` is the fix set the bot was configured to commit (`safe` or `verified`: safe and unsafe),
    from the maintainer's workflow, never from the pull request. `exclude` names fixes an earlier
    measurement left unproven (narrowing.py): the rewrite is recomputed without them, and a name
    that is no fix of the recomputed rewrite is a difference (it can only remove GraphMend's own
    fixes, but a list that names anything else is not the bot's).

    The changed files come from comparing the two SHAs, never from the pull request's file list:
    that list follows the live head, and a push during the check would hide a file from it while
    the review is pinned to the measured commit. Raises the API's exceptions for the caller."""
    changed: list[File] = list(repo.compare(base_sha, head_sha).files)  # GitHub lists at most 300
    if not changed:
        return Comparison(["the pull request changes no file"])
    if len(changed) > MAX_FILES:
        return Comparison([f"the pull request changes more than {MAX_FILES} files"])
    problems: list[str] = []
    python: list[str] = []
    for file in changed:
        name = file.filename
        if not plain_path(name):
            problems.append(f"{code_span(repr(name))} is not a plain path inside the repository")
        elif file.status != "modified":
            problems.append(f"{code_span(name)} is {file.status}: GraphMend's rewrites only modify existing files")
        elif not name.endswith(".py"):
            problems.append(f"{code_span(name)} is changed, but GraphMend's rewrite changes only Python files")
        else:
            python.append(name)
    expected, problem, changes = recompute_rewrite(repo, base_sha, python, fixes, exclude)
    if problem:
        return Comparison([*problems, problem])
    base, head = tree_entries(repo, base_sha, python), tree_entries(repo, head_sha, python)
    for name in python:
        base_mode, head_mode = _mode(base.get(name)), _mode(head.get(name))
        if base_mode != head_mode:
            problems.append(f"{code_span(name)} changes its mode from {base_mode} to {head_mode}: GraphMend's "
                            "rewrites keep file modes")
        elif name not in expected:
            problems.append(f"{code_span(name)} is changed, but GraphMend's rewrite of the base leaves it as it is")
        elif head[name].type != "blob" or head[name].sha != blob_sha(expected[name]):
            problems.append(f"{code_span(name)} differs from GraphMend's rewrite of the base")
    return Comparison(problems, changes)


def recompute(repo: Repository, base_sha: str, paths: list[str], fixes: str = "safe") -> tuple[dict[str, bytes], str]:
    """{path: the bytes the bot's fix would commit} for `paths` at `base_sha`, or ({}, why not)."""
    expected, problem, _ = recompute_rewrite(repo, base_sha, paths, fixes)
    return expected, problem


def recompute_rewrite(repo: Repository, base_sha: str, paths: list[str], fixes: str = "safe",
                      exclude: Collection[str] = ()) -> tuple[dict[str, bytes], str, list[Change]]:
    """({path: the bytes the bot's fix would commit} for `paths` at `base_sha`, "", the rewrite's
    changes), or ({}, why not, [])."""
    if fixes not in FIX_SETS:
        raise ValueError(f"unknown fix set {fixes!r}")
    with tempfile.TemporaryDirectory(prefix="graphmend-recompute-") as scratch:
        try:
            root = download_base(repo, base_sha, Path(scratch))
        except TreeError as error:
            return {}, str(error), []
        missing = [name for name in paths if not (root / name).is_file()]
        if missing:
            return {}, f"{code_span(missing[0])} cannot be read at the base {base_sha[:7]}", []
        config_folder = Path(scratch) / "config"
        config_folder.mkdir()
        try:
            config = load_config(write_config(config_folder, lambda name: _read(root / name)))
        except ConfigError as error:
            return {}, f"the base's configuration cannot be used: {error}", []
        with contextlib.chdir(root):  # as the bot runs it: from the repository root, on "."
            fix_set = bot_fix_set(["."], config, fixes)  # the bot's own choice of fixes, reach included
        triples = [(posixpath.normpath(os.path.relpath(os.path.abspath(root / c.path), root).replace(os.sep, "/")),
                    c.before, c.after) for c in fix_set.changes]
        narrowed = narrow(triples, exclude)
        if narrowed.unknown:
            return {}, (f"the recorded unproven fixes name {len(narrowed.unknown)} that GraphMend's rewrite of the "
                        f"base does not have (e.g. {code_span(narrowed.unknown[0])}): not the bot's record"), []
        plan = plan_fix(narrowed.changes, [], root, set(paths), verified=fix_set.unsafe)
        return {file.path: file.content for file in plan.files}, "", narrowed.changes


def _mode(entry: GitTreeElement | None) -> str | None:
    return entry.mode if entry is not None else None


def _read(path: Path) -> bytes | None:
    return path.read_bytes() if path.is_file() else None
