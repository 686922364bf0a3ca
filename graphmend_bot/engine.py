"""`check`: files -> module summaries (parallel) -> traced drafts -> findings."""

from __future__ import annotations

import multiprocessing
import os
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import replace

from graphmend_bot.analysis.files import SourceFile, discover, read_source
from graphmend_bot.analysis.model import ModuleSummary
from graphmend_bot.analysis.scope import Program
from graphmend_bot.analysis.summary import summarize_module
from graphmend_bot.config import Config
from graphmend_bot.findings import CheckResult, FileError, Finding, Location
from graphmend_bot.rules import select_codes

# Below this many files a process pool costs more than it saves.
PARALLEL_THRESHOLD = 48


def summarize_file(source_file: SourceFile) -> ModuleSummary | FileError:
    try:
        source = read_source(source_file.path)
        return summarize_module(source, source_file.path, source_file.module, source_file.is_package)
    except ValueError as error:
        return FileError(source_file.path, str(error))
    except SyntaxError as error:
        where = f"line {error.lineno}: " if error.lineno else ""
        return FileError(source_file.path, f"syntax error, {where}{error.msg}")
    except RecursionError:
        return FileError(source_file.path, "skipped: nesting too deep to analyse")
    except Exception as error:  # one bad file must never stop the run
        return FileError(source_file.path, f"internal error while analysing: {type(error).__name__}: {error}")


def summarize_all(files: Sequence[SourceFile], jobs: int | None = None) -> list[ModuleSummary | FileError]:
    jobs = jobs or os.cpu_count() or 1
    if jobs == 1 or len(files) < PARALLEL_THRESHOLD:
        return [summarize_file(f) for f in files]
    context = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    with context.Pool(jobs) as pool:
        return pool.map(summarize_file, files, chunksize=max(1, len(files) // (jobs * 8)))


def check(
    paths: Iterable[str],
    config: Config | None = None,
    only: Iterable[str] | None = None,
    jobs: int | None = None,
) -> CheckResult:
    """Analyse `paths` (the context for scope); report only files in `only` when given."""
    config = config or Config()
    files, errors = discover(paths, config.exclude)
    summaries: dict[str, ModuleSummary] = {}
    for outcome in summarize_all(files, jobs):
        if isinstance(outcome, FileError):
            errors.append(outcome)
        else:
            # Two roots may hold the same module name (tests/a.py, examples/a.py): keep both.
            key = outcome.module if outcome.module not in summaries else f"{outcome.module}@{outcome.path}"
            outcome.module = key
            summaries[key] = outcome
    program = Program(summaries.values(), config.entry_points)
    enabled = select_codes(config.select, config.ignore)
    wanted = {os.path.abspath(p) for p in only} if only is not None else None
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
        and (wanted is None or os.path.abspath(traced.module.path) in wanted)
    ]
    findings.sort(key=lambda f: f.sort_key)
    findings = _number_occurrences(findings)
    errors.sort(key=lambda e: e.path)
    return CheckResult(findings=findings, errors=errors, files_checked=len(files))


def _number_occurrences(findings: list[Finding]) -> list[Finding]:
    """Tell identical lines apart so every finding has its own fingerprint."""
    seen: Counter[tuple[str, str, str, str]] = Counter()
    numbered = []
    for finding in findings:
        key = (finding.code, finding.path, finding.symbol, finding.source_line.strip())
        numbered.append(replace(finding, occurrence=seen[key]) if seen[key] else finding)
        seen[key] += 1
    return numbered
