"""The Action's summary cache in a pull request's run: trusted for the texts the pull request does not touch, never more.

The workflow restores `cache-dir` with actions/cache/restore, and GitHub looks for the key, then
each restore-keys prefix, in the run's own scope (`refs/pull/N/merge`) before the default branch's.
Every `pull_request` run of that pull request can save into that scope: a workflow file the pull
request adds, or the project's own CI running its tests (review16's finding 2). No key scheme keeps
such an entry out, since its writer can name any key. So in such a run the restored entries are used
only where a forgery could not be told from the truth by the pull request's own change:
- a text's scan or summary, each keyed by the sha256 of one file's text, except the texts of the
  files the pull request changes, at its head or at its base: those are recomputed;
- nothing whole-project: a result (the head's, or the base's a review compares with), a solved
  state and the reach of the added calls are recomputed, since each decides the findings of the
  changed files at once.
A forged scan or summary of an untouched file can still change what the solve knows about that file
(whether a function it defines breaks, say), and so a finding at a call into it; docs/security.md
says so.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from graphmend_bot.analysis.files import SourceFile, text_digest
from graphmend_bot.analysis.summary_cache import SummaryCache

# Events whose runs restore from a scope a pull request's runs can save into: the pull request's own
# merge ref (`pull_request_target` runs in the base branch's scope), or a merge queue's branch.
UNTRUSTED_SCOPE_EVENTS = frozenset(
    {"pull_request", "pull_request_review", "pull_request_review_comment", "merge_group"}
)
_PER_TEXT = ("scan", "summary")


class PullRequestCache(SummaryCache):
    """`SummaryCache` reading only the scans and summaries of texts other than `touched` (the
    changed files' texts at head and base); it stores as the plain cache does."""

    def __init__(self, directory: Path, touched: Iterable[str]) -> None:
        super().__init__(directory)
        self._touched = frozenset(text_digest(text) for text in touched)
        self._refused: set[str] = set()  # keys of the touched texts' entries, as they are asked for

    def scan_key(self, digest: str, source_file: SourceFile) -> str:
        return self._noted(digest, super().scan_key(digest, source_file))

    def summary_key(self, digest: str, source_file: SourceFile, dependency_calls: bool) -> str:
        return self._noted(digest, super().summary_key(digest, source_file, dependency_calls))

    def _noted(self, digest: str, key: str) -> str:
        if digest in self._touched:
            self._refused.add(key)
        return key

    def _load(self, kind: str, key: str, annotation: Any) -> Any:
        if kind not in _PER_TEXT or key in self._refused:
            return None
        return super()._load(kind, key, annotation)
