"""`check`: files -> (text prefilter) -> module summaries (parallel) -> traced drafts -> findings."""

from __future__ import annotations

import ast
import fnmatch
import multiprocessing
import multiprocessing.context
import multiprocessing.pool
import os
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TypeVar

from graphmend_bot.analysis import installed_packages, python_target
from graphmend_bot.analysis.added_calls import AddedCall, added_call_reach, at_added_calls, on_added_line
from graphmend_bot.analysis.auto_dependencies import AUTO, resolved_packages
from graphmend_bot.analysis.base_comparison import Renamed, base_findings, blamed, changed_call_reach
from graphmend_bot.analysis.caller_arguments import Unproven
from graphmend_bot.analysis.dependencies import Dependencies, imported_names
from graphmend_bot.analysis.files import (
    SkippedFile,
    SourceFile,
    discover,
    module_name,
    read_source,
    text_digest,
)
from graphmend_bot.analysis.guards import file_digest, forget_files, package_root
from graphmend_bot.analysis.incremental import (
    SolvedState,
    edited_paths,
    names_written_only_inside,
    solved_state,
    top_level_name,
    unseen_edits,
    with_findings_of,
    with_warnings_of,
)
from graphmend_bot.analysis.model import Draft, FunctionSummary, ModuleSummary
from graphmend_bot.analysis.prefilter import FileScan, relevant_modules, scan_source
from graphmend_bot.analysis.public_api import is_public_module
from graphmend_bot.analysis.rebound_names import Redirects, redirected_calls
from graphmend_bot.analysis.redraft import redrafted, solved_facts, without_untraced_edits
from graphmend_bot.analysis.scope import FunctionId, Program
from graphmend_bot.analysis.summary import summarize_module
from graphmend_bot.analysis.summary_cache import SummaryCache
from graphmend_bot.analysis.suppressions import hidden, unknown_suppression_codes
from graphmend_bot.analysis.untraced_callers import callee_names
from graphmend_bot.baseline import without_baselined
from graphmend_bot.config import Config
from graphmend_bot.findings import (
    CheckResult,
    FileError,
    Finding,
    Location,
    lacked_by_base,
    number_identical_lines,
)
from graphmend_bot.gc_pause import collector_paused, frozen_for_fork, worker_start
from graphmend_bot.rules import ALL_RULES_BY_CODE, select_codes
from graphmend_bot.shared_map import shared_map

# Below this many files a process pool costs more than it saves.
PARALLEL_THRESHOLD = 48

T = TypeVar("T")


def scan_file(source_file: SourceFile) -> FileScan | FileError:
    try:
        source = read_source(source_file.path)
    except ValueError as error:
        return _unread(source_file, error)
    return _scan(source, source_file)


def _scan(source: str, source_file: SourceFile) -> FileScan:
    """The prefilter's scan, with the suppression comments that name no rule."""
    scan = scan_source(source, source_file.module, source_file.is_package)
    unknown = tuple((row, tuple(codes)) for row, codes in unknown_suppression_codes(source, ALL_RULES_BY_CODE))
    return replace(scan, unknown_suppressions=unknown) if unknown else scan


def summarize_file(source_file: SourceFile, dependency_calls: bool = False) -> ModuleSummary | FileError:
    try:
        return summarize_source(read_source(source_file.path), source_file, dependency_calls)
    except ValueError as error:
        return _unread(source_file, error)


def _suppression_warnings(path: str, scan: FileScan) -> list[FileError]:
    """A comment naming no rule hides nothing: said once per line, as ruff warns of an invalid noqa code."""
    return [
        FileError(path, f"line {row}: `# graphmend: ignore[...]` names {', '.join(codes)}, which is no rule "
                        "(`graphmend rules` lists them): it hides nothing", "warning")
        for row, codes in scan.unknown_suppressions
    ]


def _unread(source_file: SourceFile, error: ValueError) -> FileError:
    """A file read_source refused: a deliberate skip is a notice, an unreadable or undecodable file
    an error (the run fails, as ruff's E902)."""
    return FileError(source_file.path, str(error), "notice" if isinstance(error, SkippedFile) else "error")


def scan_and_store(cache: SummaryCache, source_file: SourceFile) -> FileScan | FileError:
    """scan_file, keeping the scan in the cache (in a worker: each stores what it computed)."""
    try:
        source = read_source(source_file.path)
    except ValueError as error:
        return _unread(source_file, error)
    scan = _scan(source, source_file)
    cache.store_scan(cache.scan_key(text_digest(source), source_file), scan)
    return scan


def summarize_and_store(cache: SummaryCache, dependency_calls: bool, source_file: SourceFile) -> ModuleSummary | FileError:
    """summarize_file, keeping the summary in the cache, unless an installed compiled module it
    asked about could not be read: that summary lacks what the file holds, and a warm run must
    read the module again rather than reuse it."""
    try:
        source = read_source(source_file.path)
    except ValueError as error:
        return _unread(source_file, error)
    unread_before = installed_packages.unread_count
    outcome = summarize_source(source, source_file, dependency_calls)
    if isinstance(outcome, ModuleSummary) and installed_packages.unread_count == unread_before:
        cache.store_summary(cache.summary_key(text_digest(source), source_file, dependency_calls), outcome)
    return outcome


def summarize_source(source: str, source_file: SourceFile, dependency_calls: bool = False) -> ModuleSummary | FileError:
    try:
        with collector_paused():
            return summarize_module(
                source, source_file.path, source_file.module, source_file.is_package, dependency_calls
            )
    except SyntaxError as error:
        return FileError(source_file.path, syntax_message(error), "error")  # ruff's E999
    except RecursionError:
        return FileError(source_file.path, "skipped: nesting too deep to analyse")
    except Exception as error:  # one bad file must never stop the run
        return FileError(source_file.path, f"internal error while analysing: {type(error).__name__}: {error}",
                         "error")


def syntax_message(error: SyntaxError) -> str:
    where = f"line {error.lineno}: " if error.lineno else ""
    return f"syntax error, {where}{error.msg}"


def _syntax_error(path: str) -> str:
    """'' when the file parses (or cannot be read: reported where it is read), else the error."""
    try:
        ast.parse(read_source(path), path)
    except SyntaxError as error:
        return syntax_message(error)
    except (ValueError, RecursionError):
        pass
    return ""


def _map(function: Callable[[SourceFile], T], files: Sequence[SourceFile], pool: _WorkerPool | None) -> list[T]:
    """`[function(f) for f in files]`, in the pool and this process together when there is one
    (shared_map.py: the largest files go to the pool first, this process takes the smallest)."""
    if pool is None:
        return [function(f) for f in files]
    return shared_map(function, files, [_size(f.path) for f in files], pool, pool.workers)


def _size(path: str) -> int:
    try:  # the link itself: a symlink's target may lie outside the read root (analysis/files.py)
        return os.stat(path, follow_symlinks=False).st_size
    except OSError:
        return 0  # the worker reports it


def summarize_all(files: Sequence[SourceFile], jobs: int | None = None) -> list[ModuleSummary | FileError]:
    """Summaries of every file, without the prefilter (callers that need every module)."""
    with _pool(len(files), jobs) as pool:
        return _map(summarize_file, files, pool)


class _NoPool:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


class _WorkerPool(multiprocessing.pool.Pool):
    """A process pool that knows how many workers it has (shared_map queues work for each)."""

    def __init__(self, workers: int, context: multiprocessing.context.BaseContext) -> None:
        super().__init__(workers, initializer=worker_start, context=context)
        self.workers = workers


def _pool(count: int, jobs: int | None) -> _WorkerPool | _NoPool:
    """`jobs` processes at work: this one and a pool of the others (shared_map.py)."""
    jobs = jobs or os.cpu_count() or 1
    if jobs == 1 or count < PARALLEL_THRESHOLD:
        return _NoPool()
    context = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    with frozen_for_fork():
        return _WorkerPool(jobs - 1, context)


class Workspace:
    """The analysed tree: summaries of every file that traced code can reach.

    `check` builds one and asks for its findings once; the fixer keeps one and replaces the
    summaries of files it rewrites (`update`) instead of re-analysing the tree on every pass.
    """

    def __init__(self, paths: Iterable[str], config: Config | None = None, jobs: int | None = None,
                 roots: Sequence[str] = (), cache: SummaryCache | None = None, whole_result: bool = False) -> None:
        self.config = config or Config()
        paths = list(paths)
        # The Python the project runs on decides some breaks; the resolved version is in the config,
        # and so in every cache key.
        version = python_target.project_version(self.config.target_version, [
            Path(self.config.folder or (paths[0] if paths else "."))])
        python_target.apply(version)
        self.config = replace(self.config, target_version=f"{version[0]}.{version[1]}")
        forget_files()  # guard helpers judged in other files, by an earlier run of this process
        self.roots = list(roots)  # "module:callable" that `reachable` starts from (verify factories)
        # A whole tree holds every entry point's module; a list of files (pre-commit) may not.
        self._whole_tree = any(os.path.isdir(path) for path in paths)
        # Files named one by one (pre-commit passes each): parsed for syntax even when nothing reaches them.
        self._named = {os.path.abspath(path) for path in paths if not os.path.isdir(path)}
        self.files, self.errors = discover(paths, self.config.exclude, self.config.folder)
        self._by_path = {f.path: f for f in self.files}
        self.summaries: dict[str, ModuleSummary] = {}
        self._rewritten: dict[str, str] = {}  # `update`'s texts, not yet on disk
        self._file_errors: dict[str, FileError] = {}
        self.cache = cache
        # The whole result, when the cache holds it and the caller only wants that (`check`):
        # then no summary is loaded at all.
        self.cached_result: CheckResult | None = None
        # The scope in force: the configured one, `auto` settled to "model" or "library" once the
        # tree is summarised (_settle_scope); unsettled only where the whole result came from the cache.
        self.scope = "model" if self.config.scope == "auto" else self.config.scope
        self._whole_result = whole_result
        # Whether a summary computed for this tree was not stored (summarize_and_store leaves out
        # one made while an installed compiled module could not be read): then neither is the result.
        self._summary_unstored = False
        self._result_key: str | None = None
        # How the result is made: "solve", "cache" (the whole result was cached) or "incremental"
        # (the last solved result, after an edit it cannot see: analysis/incremental.py).
        self.solved_by = "solve"
        self._state_key: str | None = None  # where the solved state is kept, with a cache
        self._digests: dict[str, str] = {}  # path -> text digest, with a cache
        self._file_digests: dict[str, str] = {}  # absolute path -> text digest (_digest_of)
        self._relevant: set[str] = set()  # the modules the prefilter summarised
        self._scope_by_roots = False  # the model scope stands on the tree's own roots (_settle_scope)
        self._text_read: set[str] = set()  # paths whose text the solve read (_source_of)
        self._solved: Program | None = None  # the program `_result` solved
        self._scans: dict[str, FileScan] = {}  # path -> the prefilter's scan of every file read
        self.dependency_summaries: list[ModuleSummary] = []  # read once the tree is (below)
        # The packages `dependencies` stands for: the named ones, and with `auto` the torch libraries
        # the tree imports, found once its files are scanned (_resolve_packages).
        self.packages = [package for package in self.config.dependencies if package != AUTO]
        if cache is not None:
            self._init_cached(cache, jobs)
        else:
            self._init_uncached(jobs)
        self.dependency_summaries = self._dependency_summaries() if self.packages else []

    def _init_uncached(self, jobs: int | None) -> None:
        with _pool(len(self.files), jobs) as pool:
            scans: list[FileScan] = []
            for source_file, scan in zip(self.files, _map(scan_file, self.files, pool)):
                if isinstance(scan, FileError):
                    self._file_errors[scan.path] = scan
                else:
                    scans.append(scan)
                    self._scans[source_file.path] = scan
                    self.errors.extend(_suppression_warnings(source_file.path, scan))
            relevant = relevant_modules(scans, self._configured_modules(scans))
            wanted = [f for f in self.files if f.module in relevant]
            self._resolve_packages(scans)
            # Calls into dependencies are drafted only when the config names some (GM608).
            summarize = partial(summarize_file, dependency_calls=True) if self.packages else summarize_file
            with collector_paused():  # the parent makes or unpickles every summary (no cycles among them)
                outcomes = _map(summarize, wanted, pool)
            for outcome in outcomes:
                self._store(outcome)

            def summarize_more(more: list[SourceFile]) -> list[ModuleSummary | FileError]:
                with collector_paused():
                    return _map(summarize, more, pool)

            self._settle_scope(scans, relevant, summarize_more)
        self._check_unparsed(None)

    def _init_cached(self, cache: SummaryCache, jobs: int | None) -> None:
        """As _init_uncached, taking what the cache holds; only the rest is computed (and stored).

        The parent reads every file once to hash it; a file that cannot be read is left to the
        workers, which report it as without a cache."""
        digests: dict[str, str] = {}
        scans: dict[str, FileScan] = {}
        reusable = self._whole_result and not self.packages  # installed packages are in no key
        texts: dict[str, str] = {}  # every file's text, for a solved state to be checked against
        for source_file in self.files:
            try:
                source = read_source(source_file.path)
            except ValueError:
                continue
            digests[source_file.path] = text_digest(source)
            if reusable:
                texts[source_file.path] = source
        dependency_calls = bool(self.packages)
        self._digests = digests
        if len(digests) == len(self.files):  # every file read: the whole result may be cached
            self._result_key = self._result_key_of(cache, digests, dependency_calls)
            if reusable:
                self.cached_result = cache.load_result(self._result_key)
                if self.cached_result is not None:
                    self.solved_by = "cache"
                    return  # before the scans: a warm run reads (and verifies) one entry, not one per file
        for source_file in self.files:
            digest = digests.get(source_file.path)
            cached = cache.load_scan(cache.scan_key(digest, source_file)) if digest is not None else None
            if cached is not None:
                scans[source_file.path] = cached
        state: SolvedState | None = None
        if reusable:  # no whole result for these texts: the last solve's, if no edit since can change it
            self._state_key = cache.state_key(self.files, self.errors, self.config, self.roots)
            state = self._named_result(cache, cache.load_state(self._state_key))
        missing = [f for f in self.files if f.path not in scans]
        with _pool(len(missing), jobs) as pool:
            for source_file, outcome in zip(missing, _map(partial(scan_and_store, cache), missing, pool), strict=True):
                if isinstance(outcome, FileError):
                    self._file_errors[outcome.path] = outcome
                else:
                    scans[source_file.path] = outcome
        found = [scans[f.path] for f in self.files if f.path in scans]  # in file order, as without a cache
        for source_file in self.files:
            if source_file.path in scans:
                self.errors.extend(_suppression_warnings(source_file.path, scans[source_file.path]))
        relevant = relevant_modules(found, self._configured_modules(found))
        self._digests, self._relevant, self._scans = digests, relevant, scans
        if self._resolve_packages(found):  # auto found some: as with named ones, no result is kept
            state, self._state_key = None, None
            if self._result_key is not None:
                self._result_key = self._result_key_of(cache, digests, True)
        if state is not None and self._result_key is not None:
            self.cached_result = self._reused_result(cache, state, scans, texts, jobs)
            if self.cached_result is not None:
                self.solved_by = "incremental"
                if not self._summary_unstored:
                    cache.store_result(self._result_key, self.cached_result)
                    cache.store_state(self._state_key or "", replace(state, result_key=self._result_key,
                                                                     digests=digests))
                return
        wanted = [f for f in self.files if f.module in relevant and f.path in scans]
        for summarized in self._cached_summaries(cache, wanted, digests, jobs):
            self._store(summarized)
        self._settle_scope(found, relevant, lambda more: self._cached_summaries(cache, more, digests, jobs))
        self._check_unparsed(cache)

    def _check_unparsed(self, cache: SummaryCache | None) -> None:
        """A file named on the command line that the prefilter left unparsed still fails the run
        with a syntax error, as ruff's E999 does (review14's finding 12: `graphmend check s.py` with
        `def f(:` passed as clean). A file a directory walk found and nothing can reach is left to
        the project's linter: parsing every such file cost a cold run of transformers 5.x a second
        of serial CPU (1,098 files), which the speed target cannot spare. The scan keeps the outcome."""
        for source_file in self.files:
            path = source_file.path
            scan = self._scans.get(path)
            if scan is None or path in self.summaries or path in self._file_errors \
                    or os.path.abspath(path) not in self._named:
                continue
            if scan.syntax_error is None:
                scan = self._scans[path] = replace(scan, syntax_error=_syntax_error(path))
                if cache is not None and path in self._digests:
                    cache.store_scan(cache.scan_key(self._digests[path], source_file), scan)
            if scan.syntax_error:
                self._file_errors[path] = FileError(path, scan.syntax_error, "error")

    def _named_result(self, cache: SummaryCache, state: SolvedState | None) -> SolvedState | None:
        """`state` when the result it names is the one of the texts it names (the key they give),
        else None: a state is one slot per project, so a forged or stale one could otherwise point
        at any result in the cache (another tree's, or a path out of it)."""
        if state is None or state.digests.keys() != self._by_path.keys():
            return None
        # No dependencies: a state is kept only without them.
        return state if state.result_key == self._result_key_of(cache, state.digests, False) else None

    def _result_key_of(self, cache: SummaryCache, digests: dict[str, str], dependency_calls: bool) -> str:
        """The key of the whole result for these texts (path -> digest) and this walk and configuration;
        a path the tree lacks is a file only a review's base has."""
        file_keys = [(path, cache.summary_key(digest, self._by_path.get(path) or _base_only_file(path), dependency_calls))
                     for path, digest in digests.items()]
        return cache.result_key(file_keys, self.errors, self.config, self.roots)

    def _reused_result(self, cache: SummaryCache, state: SolvedState, scans: dict[str, FileScan],
                       texts: dict[str, str], jobs: int | None) -> CheckResult | None:
        """The result `state` was solved to, when no edit since can change it (analysis/incremental.py):
        each edited file's own warnings recomputed, the rest as solved. None: solve again."""
        edited = edited_paths(state, self._digests)
        read = {os.path.abspath(path) for path in state.text_read}
        if not edited or set(state.relevant) != self._relevant or any(os.path.abspath(p) in read for p in edited):
            return None
        solved = cache.load_result(state.result_key)
        if solved is None:
            return None
        warnings: dict[str, tuple[list[FileError], list[FileError]]] = {}
        names: dict[str, set[str]] = {}
        refound: dict[str, list[Finding]] = {}  # path -> the findings of a file whose findings are made again
        enabled = select_codes(self.config.select, self.config.ignore)
        for path in edited:
            source_file = self._by_path[path]
            before = cache.load_scan(cache.scan_key(state.digests[path], source_file))
            if before is None or path not in scans:
                return None
            warnings[path] = (_suppression_warnings(path, before), _suppression_warnings(path, scans[path]))
            if source_file.module not in self._relevant:
                if before.imports != scans[path].imports:
                    return None  # what it imports can leave parameters unproven (caller_arguments.py)
                if os.path.abspath(path) in self._named and (before.syntax_error != "" or _syntax_error(path)):
                    return None  # a syntax error comes or goes: the solve reports it (_check_unparsed)
                continue  # never summarised: only its text's own warnings can change
            old = cache.load_summary(cache.summary_key(state.digests[path], source_file, False), path)
            (new,) = self._cached_summaries(cache, [source_file], self._digests, jobs)
            if old is None or not isinstance(new, ModuleSummary):
                return None
            changed = unseen_edits(old, new, state, self.config.entry_points)
            if changed is None:
                # An edit of traced code that changes only what its findings are (redraft.py), and
                # of untraced code the solve did not consult
                traced = state.traced.get(new.module, ())
                traced_edit = without_untraced_edits(old, new, traced)
                found = redrafted(old, traced_edit, traced, state.facts.get(new.module, {}))
                changed = unseen_edits(traced_edit, new, state, self.config.entry_points) if found is not None else None
                if found is None or changed is None:
                    return None
                refound[path] = []
                for function, draft in found:
                    facts = state.facts.get(new.module, {}).get(function.qualname)
                    if facts is None and draft.deps.params:
                        return None  # what its callers pass was not judged: solve again
                    if draft.code in enabled and not _hidden(new, draft):
                        refound[path].append(_finding(new, function, draft, unproven=facts.unproven if facts else ()))
            names[path] = {top_level_name(qualname) for qualname in changed}
        if not names_written_only_inside(names, texts):
            return None
        reused = with_warnings_of(solved, warnings)
        return with_findings_of(reused, refound) if reused is not None else None

    def _store_state(self, cache: SummaryCache) -> None:
        """What the solve settled, for the next run to reuse its result (analysis/incremental.py)."""
        if (self._state_key is None or self._result_key is None or self._solved is None
                or not self._scope_by_roots or self._rewritten):
            return
        traced = self._solved.traced_functions()
        # Functions whose callers the solve consulted: for hinted parameters, and for what every
        # traced function's calls pass it, which can leave a parameter unproven (caller_arguments.py).
        watched = [fid for fid in traced if self._solved.function(fid).params]
        read = self._text_read | self._solved.rows_read
        for path, summary in self.summaries.items():
            source_file = self._by_path[path]
            root = package_root(path, source_file.module, source_file.is_package)
            read.update(os.path.relpath(os.path.join(root, relative)) for relative, _ in summary.read_files if root)
        cache.store_state(self._state_key, solved_state(self._result_key, self._digests, self._relevant, traced,
                                                        callee_names(watched), read,
                                                        solved_facts(self._solved)))

    def _cached_summaries(self, cache: SummaryCache, wanted: list[SourceFile], digests: dict[str, str],
                          jobs: int | None) -> list[ModuleSummary | FileError]:
        """The summaries of `wanted`, in file order (the solver then sees the same program as
        without a cache): those the cache holds, the rest computed and stored."""
        dependency_calls = bool(self.packages)
        outcomes: dict[str, ModuleSummary | FileError] = {}
        with collector_paused():
            for source_file in wanted:
                known = digests.get(source_file.path)
                summary = (cache.load_summary(cache.summary_key(known, source_file, dependency_calls), source_file.path)
                           if known is not None else None)
                if summary is not None and self._reads_unchanged(summary, source_file):
                    outcomes[source_file.path] = summary
            todo = [f for f in wanted if f.path not in outcomes]
            with _pool(len(todo), jobs) as pool:
                computed = _map(partial(summarize_and_store, cache, dependency_calls), todo, pool)
            outcomes.update((f.path, outcome) for f, outcome in zip(todo, computed, strict=True))
        self._summary_unstored |= any(
            isinstance(outcome, ModuleSummary) and not cache.holds_summary(
                cache.summary_key(digests.get(f.path, ""), f, dependency_calls))
            for f, outcome in zip(todo, computed, strict=True))
        return [outcomes[source_file.path] for source_file in wanted]

    def _reads_unchanged(self, summary: ModuleSummary, source_file: SourceFile) -> bool:
        """Whether the other files a cached summary read (ModuleSummary.read_files) hold the text
        it was made from: its key is its own file's text only."""
        if not summary.read_files:
            return True
        root = package_root(source_file.path, source_file.module, source_file.is_package)
        return root is not None and all(self._digest_of(os.path.join(root, relative)) == digest
                                        for relative, digest in summary.read_files)

    def _digest_of(self, path: str) -> str:
        """guards.file_digest, once per file and run (the digests of the checked files are known)."""
        if not self._file_digests:
            self._file_digests = {os.path.abspath(p): digest for p, digest in self._digests.items()}
        absolute = os.path.abspath(path)
        if absolute not in self._file_digests:
            self._file_digests[absolute] = file_digest(absolute)
        return self._file_digests[absolute]

    def _settle_scope(self, scans: list[FileScan], relevant: set[str],
                      summarize: Callable[[list[SourceFile]], list[ModuleSummary | FileError]]) -> None:
        """The library scope and `auto`'s public-api and tensor-api scopes (public_api.py) also need
        every public module of the packages and what they import. Nothing more is read in the model scope, nor
        where `auto` sees a tree whose own compiles name its roots (public_api.roots_settled_by_what_is_read:
        a model zoo is told by the modules already read, one public nn.Module settling it). `auto` is
        then decided on the whole package; where it settles to the model scope after all (a
        package with no public callable, a lone file with none on tensors), the new files are
        dropped, so its result is exactly the model scope's."""
        # One loose file may be a single-module library (lone_modules.py): read, then judged by its top level.
        lone = len(self.files) == 1 and not self.files[0].is_package
        if self.config.scope == "model" or (self.config.scope == "auto" and (
                not (lone or any(f.is_package for f in self.files)) or self._program("auto").roots_settled_by_what_is_read())):
            self._scope_by_roots = True
            return
        public = [f.module for f in self.files if lone or is_public_module(f.module, f.is_package)]
        wider = relevant_modules(scans, [*self._configured_modules(scans), *public])
        more = [f for f in self.files if f.module in wider and f.module not in relevant]
        for outcome in summarize(more):
            self._store(outcome)
        settled = self._program(self.config.scope).scope
        if settled == "model":
            for source_file in more:
                self.summaries.pop(source_file.path, None)
                self._file_errors.pop(source_file.path, None)
            return
        order = {source_file.path: index for index, source_file in enumerate(self.files)}
        # The solver meets modules in the files' order, whichever were summarised first.
        self.summaries = dict(sorted(self.summaries.items(), key=lambda item: order.get(item[0], len(order))))
        self.scope = settled

    def _dependency_summaries(self) -> list[ModuleSummary]:
        dependencies = Dependencies(self.packages, (f.module for f in self.files))
        summaries = dependencies.summaries(imported_names(self.summaries.values(), self.packages))
        self.errors.extend(dependencies.errors)
        return summaries

    def _resolve_packages(self, scans: list[FileScan]) -> bool:
        """With `dependencies: auto`, adds the torch libraries the tree imports to the packages
        (auto_dependencies.py); whether it added any."""
        if AUTO not in self.config.dependencies:
            return False
        heads = {module.partition(".")[0] for scan in scans for module, _ in scan.imports}
        own = {f.module.partition(".")[0] for f in self.files}
        before = len(self.packages)
        self.packages = resolved_packages(self.config.dependencies, heads, own, (f.path for f in self.files))
        return len(self.packages) > before

    def _configured_modules(self, scans: list[FileScan]) -> list[str]:
        patterns = [entry.split(":", 1)[0] for entry in [*self.config.entry_points, *self.roots]]
        return [
            scan.module
            for scan in scans
            if any(fnmatch.fnmatchcase(scan.module, p) or p.startswith(f"{scan.module}.") for p in patterns)
        ]

    def _store(self, outcome: ModuleSummary | FileError) -> None:
        if isinstance(outcome, FileError):
            self._file_errors[outcome.path] = outcome
            self.summaries.pop(outcome.path, None)
        else:
            self._file_errors.pop(outcome.path, None)
            self.summaries[outcome.path] = outcome

    def _entry_point_warnings(self, program: Program) -> list[FileError]:
        """An entry point that matches nothing leaves its code unchecked without a word: say so where
        its module was among the checked files, or the whole tree was checked (a typo, not a file
        list from pre-commit that holds other modules)."""
        modules = [f.module for f in self.files if f.path not in self._file_errors]
        unread = [f.module for f in self.files if f.path in self._file_errors]  # their own error says it

        def matches(pattern: str, among: list[str]) -> bool:
            return any(fnmatch.fnmatchcase(module, pattern.split(":", 1)[0]) for module in among)

        return [
            FileError(self.config.source or "configuration",
                      f"entry-points names {pattern!r}, which matches no function in the checked files", "warning")
            for pattern in program.unmatched_entry_points()
            if (self._whole_tree or matches(pattern, modules)) and not matches(pattern, unread)
        ]

    def update(self, path: str, source: str) -> None:
        """Re-analyse one file from new text (a rewrite not yet written to disk)."""
        self._store(summarize_source(source, self._by_path[path], bool(self.packages)))
        self._rewritten[path] = source

    def revert(self, texts: Mapping[str, str | None]) -> None:
        """The tree as a change found it (a review's base): each file of `texts` holds that text,
        or is left out (None: the change added it); unchanged files keep their summaries. A path the
        head lacks (a file the change deletes or renames away) is added with its text. A module
        only the old texts import is summarised too, so that the base's program is whole."""
        by_path = {os.path.abspath(f.path): f for f in self.files}
        for path, text in texts.items():
            source_file = by_path.get(os.path.abspath(path))
            if source_file is None:
                if text is not None:
                    self._add_base_only(path, text)
                continue
            if text is None:
                self.summaries.pop(source_file.path, None)
                self._file_errors.pop(source_file.path, None)
                self._scans.pop(source_file.path, None)
                continue
            self._scans[source_file.path] = _scan(text, source_file)  # a text it cannot parse scans empty
            self.update(source_file.path, text)
        scans = list(self._scans.values())
        relevant = relevant_modules(scans, self._configured_modules(scans))
        summarize = partial(summarize_file, dependency_calls=bool(self.packages))
        for source_file in self.files:
            if source_file.module in relevant and source_file.path in self._scans and (
                    source_file.path not in self.summaries and source_file.path not in self._file_errors):
                self._store(summarize(source_file))

    def _add_base_only(self, path: str, text: str) -> None:
        """A file only the base has, summarised from its text (it is not on disk)."""
        source_file = _base_only_file(path)
        self.files.append(source_file)
        self._by_path[path] = source_file
        self._scans[path] = _scan(text, source_file)
        self.update(path, text)

    def reverted_result_key(self, texts: Mapping[str, str | None]) -> str | None:
        """The cache key of the result `revert(texts)` leads to, or None when none is kept (no
        cache, dependencies, a file that could not be read): a warm review loads its base's too."""
        if self.cache is None or self._result_key is None or self.packages or self._summary_unstored:
            return None
        digests = dict(self._digests)
        shown = {os.path.abspath(path): path for path in digests}
        for path, text in texts.items():
            name = shown.get(os.path.abspath(path))
            if name is not None and text is None:
                del digests[name]
            elif text is not None:  # a changed file, or one only the base has
                digests[name or path] = text_digest(text)
        return self.cache.base_key(self._result_key_of(self.cache, digests, False), self._result_key)

    def _program(self, scope: str | None = None) -> Program:
        unread = [(path, scan.imports) for path, scan in self._scans.items() if path not in self.summaries]
        return Program(self.summaries.values(), self.config.entry_points, self.dependency_summaries,
                       scope or self.scope, source_of=self._source_of, unread_imports=unread)

    def added_call_reach(self, added_lines: Mapping[str, Collection[int]],
                         replaced: Mapping[str, Mapping[int, Collection[str]]] | None = None,
                         rebound: Mapping[str, Redirects] | None = None,
                         ) -> dict[FunctionId, AddedCall] | None:
        """What the calls on `added_lines` (by path) alone bring into traced code (added_calls.py);
        `replaced`: the names each added line's hunk called on removed lines (diff.replaced_calls);
        `rebound`: the calls added imports redirect (rebound_names.redirected_calls).
        Kept in the cache with the result; None when neither the cache holds it nor was a program
        solved (the result came from the cache): a Workspace without `whole_result` solves it."""
        cache, key = self.cache, None
        # Kept as the whole result is: not with dependencies (installed packages are in no key).
        if cache is not None and self._result_key is not None and not self._summary_unstored \
                and not self.packages:
            key = cache.reach_key(self._result_key, added_lines, replaced or {}, rebound or {})
            cached = cache.load_reach(key, added_lines)
            if cached is not None:
                return cached
        if self._solved is None:
            return None
        dependencies, scope = self.dependency_summaries, self.scope

        def solve(summaries: list[ModuleSummary]) -> Program:
            return Program(summaries, self.config.entry_points, dependencies, scope, source_of=self._source_of)

        reach = added_call_reach(self._solved, self.summaries.values(), solve, added_lines, replaced, rebound)
        if cache is not None and key is not None:
            cache.store_reach(key, reach)
        return reach

    def reachable(self) -> set[str]:
        """`module.qualname` of every function reachable from `roots` alone (Program.reachable_from)."""
        program = self._program()
        return {f"{module}.{qualname}" for module, qualname in program.reachable_from(self.roots)}

    def result(self, only: Iterable[str] | None = None) -> CheckResult:
        with collector_paused():  # the solver's sets and tuples are acyclic and short-lived
            return self._result(only)

    def cached_check(self, only: Iterable[str] | None = None) -> CheckResult:
        """`result(only)` of the tree as analysed (no `update`), from the cache when it holds it.

        The whole tree's result is what is cached; `only` keeps its findings in those files, as
        `_result` does (identical-line numbers count within one file, so they do not change)."""
        if self.cached_result is None:
            whole = self.result()
            if (self.cache is not None and self._result_key is not None and not self.packages
                    and not self._summary_unstored):
                self.cache.store_result(self._result_key, whole)
                self._store_state(self.cache)
        else:
            whole = self.cached_result
        if only is None:
            return whole
        wanted = {os.path.abspath(p) for p in only}
        return replace(whole, findings=[f for f in whole.findings if os.path.abspath(f.path) in wanted])

    def _source_of(self, path: str) -> str:
        self._text_read.add(path)
        return self._rewritten[path] if path in self._rewritten else read_source(path)

    def _result(self, only: Iterable[str] | None) -> CheckResult:
        program = self._solved = self._program()
        enabled = select_codes(self.config.select, self.config.ignore)
        wanted = {os.path.abspath(p) for p in only} if only is not None else None
        reached_through = program.public_api_reach()
        standing = [
            traced for traced in program.traced_drafts()
            if traced.draft.code in enabled and (wanted is None or os.path.abspath(traced.module.path) in wanted)
            and not _hidden(traced.module, traced.draft)
        ]
        unproven = program.unproven_parameters(
            {(traced.module.module, traced.function.qualname) for traced in standing if traced.draft.deps.params})
        findings = [
            _finding(traced.module, traced.function, traced.draft,
                     reached_through.get((traced.module.module, traced.function.qualname), ""),
                     unproven.get((traced.module.module, traced.function.qualname), ()))
            for traced in standing
        ]
        findings.sort(key=lambda f: f.sort_key)
        errors = sorted([*self.errors, *self._entry_point_warnings(program), *self._file_errors.values()],
                        key=lambda e: e.path)
        return CheckResult(findings=number_identical_lines(findings), errors=errors, files_checked=len(self.files))


def _hidden(module: ModuleSummary, draft: Draft) -> bool:
    """Whether a `# graphmend: ignore` comment hides the draft: as `select`/`ignore` do, only here,
    where findings are reported (the solve saw it: it is still a break)."""
    return bool(module.suppressions) and hidden(module.suppressions, draft.row, draft.end_row, draft.code)


def _finding(module: ModuleSummary, function: FunctionSummary, draft: Draft, reached_through: str = "",
             unproven: Unproven = ()) -> Finding:
    """The finding a draft of a traced function makes; `reached_through` names the public-API root
    that alone reaches it (none in the model scope, the only one whose solve is reused); `unproven`:
    the function's parameters some call does not pass a tensor, of which the draft's own count."""
    return Finding(
        code=draft.code,
        message=draft.message,
        path=module.path,
        location=Location(draft.row, draft.column),
        end_location=Location(draft.end_row, draft.end_column),
        gb_id=draft.gb_id,
        symbol=f"{module.module}.{function.qualname}",
        source_line=draft.source_line,
        frequency="rare-branch" if draft.rare else "every-call",
        reached_through=reached_through,
        unproven_parameters=tuple((name, why) for name, why in unproven if name in draft.deps.params),
    )


def check_change(
    paths: Iterable[str],
    config: Config,
    changed: Iterable[str],
    added_lines: Mapping[str, Collection[int]],
    cache: SummaryCache | None = None,
    replaced: Mapping[str, Mapping[int, Collection[str]]] | None = None,
    patches: Mapping[str, str | None] | None = None,
    before: Mapping[str, str | None] | None = None,
    renamed: Mapping[str, str] | None = None,
) -> CheckResult:
    """A change's review (`review`, the bot): the findings in the `changed` files, and at each call
    the change added, those on unchanged lines of the functions that call brings into traced code
    (added_calls.py). `added_lines`: the lines the change added, by path (its diff); `replaced`:
    the names each added line's hunk called on removed lines, whose calls are not new
    (diff.replaced_calls); `patches`: each file's unified diff, which undone gives the file before,
    so that a call an added import redirects counts as added (rebound_names.py); the configured baseline hides what it holds (counted in the changed
    files only), the diff telling identical lines apart. A break in a changed file an added call
    brings in is listed at its line too: the finding at the call points at it (findings.pointers).
    `before`: the changed files' text at the base commit (None for a file the change adds): the
    base is solved too, and the findings it lacks are new, each blamed on a changed call
    (analysis/base_comparison.py); the result's `base` says what the base had. `before` may name
    files the head lacks (deleted or renamed away); `renamed`: old path -> new path, so that a
    break in a renamed file is the one the base had under the old name."""
    wanted = {os.path.abspath(p) for p in changed}
    paths = list(paths)
    with collector_paused():
        # The whole result and the reach from the cache when it holds both (a warm review loads no summary).
        workspace = Workspace(paths, config, cache=cache, whole_result=True)
        whole = workspace.cached_check()
        inside = [f for f in whole.findings if os.path.abspath(f.path) in wanted]
        result = without_baselined(replace(whole, findings=inside), config, added_lines)
        outside = without_baselined(replace(whole, findings=[f for f in whole.findings
                                                             if os.path.abspath(f.path) not in wanted]), config)
        older = [f for f in result.findings if not on_added_line(f, added_lines)]
        rebound = _redirected_calls(workspace, added_lines, patches or {})
        reach = workspace.added_call_reach(added_lines, replaced, rebound)
        solving = workspace
        if reach is None:  # the result was cached, the reach of this change not: solve the tree
            solving = _solved(paths, config, cache)
            reach = solving.added_call_reach(added_lines, replaced, rebound) or {}
        brought = at_added_calls([*outside.findings, *older], reach, read_source)
        if before is not None:
            compared = _against_base(paths, workspace, solving, before, whole,
                                     replace(result, findings=[*result.findings, *brought]),
                                     [*outside.findings, *older], added_lines, config, renamed or {})
            if compared is not None:
                return compared
    if not brought:
        return result
    return replace(result, findings=number_identical_lines(sorted([*result.findings, *brought],
                                                                  key=lambda f: f.sort_key)))


def _solved(paths: list[str], config: Config, cache: SummaryCache | None) -> Workspace:
    solving = Workspace(paths, config, cache=cache)
    solving.cached_check()
    return solving


def _in_program(workspace: Workspace, changed: Collection[str]) -> bool:
    """Whether a changed file is in the program (summarised): else the head's findings come from
    files the change left alone, solved without the changed ones, and the base cannot lack any.
    Solving the base is then skipped; what the change removed is not counted."""
    return any(os.path.abspath(path) in changed for path in workspace.summaries)


def _against_base(paths: list[str], workspace: Workspace, solving: Workspace, before: Mapping[str, str | None], whole: CheckResult,
                  result: CheckResult, candidates: Sequence[Finding], added_lines: Mapping[str, Collection[int]],
                  config: Config, renamed: Mapping[str, str]) -> CheckResult | None:
    """`result` (the review's findings) with the findings the base lacks among `candidates` (in
    unchanged files, on old lines of changed ones) blamed on the changed calls that reach them, and
    what the base had; None when the base need not be solved (_in_program). `workspace` made
    `whole` (perhaps from the cache), `solving` is solved when a program was needed already; the
    base's result is kept in the cache as the head's is."""
    key = workspace.reverted_result_key(before)
    cached = workspace.cache.load_result(key) if workspace.cache is not None and key is not None else None
    program, summaries = solving._solved, list(solving.summaries.values())
    if cached is None:
        if program is None:
            solving = _solved(paths, config, workspace.cache)
        if not _in_program(solving, {os.path.abspath(p) for p in before}):
            return None
        program, summaries = solving._solved, list(solving.summaries.values())
        solving.revert(before)
        cached = solving.result()
        if workspace.cache is not None and key is not None:
            workspace.cache.store_result(key, cached)
    base = base_findings(without_baselined(cached, config).findings, whole.findings, _renamed_files(renamed, solving))
    listed = {f.breaks_at for f in result.findings if f.breaks_at}
    # identical lines are matched as groups (findings.lacked_by_base); `older` is in both lists
    every = list({id(f): f for f in [*result.findings, *candidates]}.values())
    lacked = lacked_by_base(every, base.fingerprints, lambda f: on_added_line(f, added_lines))
    # A changed call pointing at a break the base has too brings nothing in (a renamed module's import).
    old_breaks = {f.at for f in every if not f.breaks_at and id(f) not in lacked}
    result = replace(result, findings=[f for f in result.findings if (f.breaks_at, f.code) not in old_breaks])
    new = [f for f in candidates if id(f) in lacked and f"{f.path}:{f.location.row}" not in listed]
    if new and program is None:  # the base came from the cache: solve the head for the calls to blame
        head = _solved(paths, config, workspace.cache)
        program, summaries = head._solved, list(head.summaries.values())
    reach = changed_call_reach(program, summaries, added_lines, {f.symbol for f in new}) if new and program else {}
    moved = {id(f) for f in new}
    findings = [f for f in result.findings if id(f) not in moved] + blamed(new, reach, sorted(before), read_source)
    return replace(result, findings=number_identical_lines(sorted(findings, key=lambda f: f.sort_key)), base=base)


def _base_only_file(path: str) -> SourceFile:
    """A file a review's base has and the head lacks, named as a Python file at `path` would be."""
    module, is_package = module_name(Path(path))
    return SourceFile(path, module, is_package)


def _renamed_files(renamed: Mapping[str, str], workspace: Workspace) -> dict[str, Renamed]:
    """Each renamed file's old path -> its new path and both module names (the old one as a
    Python file at that path would be named: the base's file is not on disk)."""
    modules = {os.path.abspath(f.path): f.module for f in workspace.files}
    out = {}
    for old, new in renamed.items():
        module = modules.get(os.path.abspath(new))
        if module is not None:
            out[old] = Renamed(new, _base_only_file(old).module, module)
    return out


def _redirected_calls(workspace: Workspace, added_lines: Mapping[str, Collection[int]],
                      patches: Mapping[str, str | None]) -> dict[str, Redirects]:
    """By path, the calls the change's added imports redirect (rebound_names.redirected_calls); a
    file that cannot be read now redirects nothing (its own error is reported by the check)."""
    files = {os.path.abspath(f.path): f for f in workspace.files}
    rebound = {}
    for path, rows in added_lines.items():
        source_file = files.get(os.path.abspath(path))
        if source_file is None or not rows:
            continue
        try:
            head = read_source(path)
        except ValueError:
            continue
        redirects = redirected_calls(path, source_file.module, source_file.is_package, head, patches.get(path), rows)
        if redirects:
            rebound[path] = redirects
    return rebound


def check(
    paths: Iterable[str],
    config: Config | None = None,
    only: Iterable[str] | None = None,
    jobs: int | None = None,
    cache: SummaryCache | None = None,
) -> CheckResult:
    """Analyse `paths` (the context for scope); report only files in `only` when given.

    The cyclic collector is off in this process for the whole run (gc_pause.py): what it builds
    is acyclic and lives until the result is made, so the collections would walk it for nothing;
    when it is back on, only the result is left to walk.
    """
    config = config or Config()
    with collector_paused():
        return without_baselined(
            Workspace(paths, config, jobs, cache=cache, whole_result=True).cached_check(only), config)
