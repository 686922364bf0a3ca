"""Re-checking while fixing: summaries of the whole tree kept in memory, rewritten files re-summarised.

`graphmend_bot.engine.check` reads every file from disk; the fixer loops check -> fix -> check on
sources it has not written yet, and re-summarising a whole package per pass would cost minutes.
This keeps the per-module summaries and replaces only those of rewritten files; findings are built
exactly as the engine builds them.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from graphmend_bot.analysis.files import SourceFile, discover
from graphmend_bot.analysis.model import ModuleSummary
from graphmend_bot.analysis.scope import Program
from graphmend_bot.analysis.summary import summarize_module
from graphmend_bot.config import Config
from graphmend_bot.engine import summarize_all
from graphmend_bot.findings import CheckResult, FileError, Finding, Location
from graphmend_bot.rules import select_codes


class IncrementalChecker:
    def __init__(self, paths: Iterable[str], config: Config, jobs: int | None = None) -> None:
        self.config = config
        self.files, self.errors = discover(paths, config.exclude)
        self._by_path = {f.path: f for f in self.files}
        self._summaries: dict[str, ModuleSummary] = {}
        self._file_errors: dict[str, FileError] = {}
        for outcome in summarize_all(self.files, jobs):
            if isinstance(outcome, FileError):
                self._file_errors[outcome.path] = outcome
            else:
                self._summaries[outcome.path] = outcome

    def update(self, path: str, source: str) -> None:
        """Replace one file's summary with that of `source` (its rewritten text)."""
        source_file: SourceFile = self._by_path[path]
        try:
            summary = summarize_module(source, path, source_file.module, source_file.is_package)
        except (SyntaxError, ValueError, RecursionError) as error:
            self._file_errors[path] = FileError(path, f"rewritten file no longer analyses: {error}")
            self._summaries.pop(path, None)
            return
        self._file_errors.pop(path, None)
        self._summaries[path] = summary

    def check(self, only: Iterable[str] | None = None) -> CheckResult:
        # Same module-key rule as the engine: two roots may hold the same module name.
        keyed: dict[str, ModuleSummary] = {}
        for path in sorted(self._summaries):
            summary = self._summaries[path]
            base = summary.module.split("@", 1)[0]
            summary.module = base if base not in keyed else f"{base}@{path}"
            keyed[summary.module] = summary
        program = Program(keyed.values(), self.config.entry_points)
        enabled = select_codes(self.config.select, self.config.ignore)
        wanted = {os.path.normpath(p) for p in only} if only is not None else None
        findings = [
            Finding(
                code=traced.draft.code,
                message=traced.draft.message,
                path=traced.module.path,
                location=Location(traced.draft.row, traced.draft.column),
                end_location=Location(traced.draft.end_row, traced.draft.end_column),
                gb_id=traced.draft.gb_id,
                symbol=f"{traced.module.module}.{traced.function.qualname}",
                source_line=traced.draft.source_line,
            )
            for traced in program.traced_drafts()
            if traced.draft.code in enabled
            and (wanted is None or os.path.normpath(traced.module.path) in wanted)
        ]
        findings.sort(key=lambda f: f.sort_key)
        errors = sorted([*self.errors, *self._file_errors.values()], key=lambda e: e.path)
        return CheckResult(findings=findings, errors=errors, files_checked=len(self.files))
