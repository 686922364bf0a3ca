"""Measure `graphmend check` on one real library against TorchDynamo's own break lines.

A library is a module in benchmarks/wild/libs/: `DISTRIBUTION` (the PyPI name), `PACKAGE` (the
import name whose installed directory is analysed), `WHY` (why it is in the set) and functions
`call_<name>()` that each build a small, realistic call and return `(callable, args, kwargs)`.
Its entry points live in benchmarks/wild/configs/<lib>.yml, as the library's maintainer would
declare them.

For every call, in one process:
  * ground truth: `torch._dynamo.explain` break reasons plus the `graph_breaks` log
    (benchmarks/ground_truth.py), each mapped to the innermost frame inside the package;
  * coverage: the lines of the package one eager run of the call executes (sys.settrace).
Then `graphmend check --output-format json --config configs/<lib>.yml PACKAGE_DIR`, the CLI as a
user runs it, over the whole installed package.

Matching is by statement. Every line of a file maps to the innermost statement that holds it; a
compound statement (`if`, `for`, `while`, `with`, `def`, ...) holds only its header lines (from
its first decorator or keyword down to the line before its body). A finding matches a break when
the finding's first line and the break line fall in the same statement, so a finding on line 3 of
a call spread over five lines still matches Dynamo's report of line 5 of that call, but a finding
on an `if` header never matches a break in the `if`'s body.

  recall             = break statements with a finding / break statements
  executed precision = findings on a break statement / findings on statements the eager calls ran
  never ran          = findings on statements no eager call ran (neither confirmed nor refuted)
  named a mode       = findings on executed statements Dynamo did not break on whose message names a
                       mode (training, float16, autocast: analysis/modes.py) the truth may not have
                       run (transformers' calls run in eval mode and float32): set apart, neither
                       confirmed nor false, in the measured-mode precision (a confirmed one stays
                       confirmed: Dynamo broke there in the calls as measured)
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import importlib.metadata
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Collection
from dataclasses import asdict, dataclass, field
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # benchmarks/, for ground_truth

import hf_corpus  # noqa: E402
import torch  # noqa: E402
from ground_truth import Tree, dynamo_breaks, executed_lines, normalise  # noqa: E402
from miss_causes import code_stamp, miss_causes  # noqa: E402
from split import corpus_names  # noqa: E402

from graphmend_bot.analysis.modes import modes_named  # noqa: E402

CONFIGS = os.path.join(HERE, "configs")
ALL_ENTRY_POINTS = "(all declared)"  # the entry_point_gain key for the whole declared set
DEFAULT_SCOPE, DECLARED_SCOPE = "default", "declared"
# The scopes compared by `run.py --scopes` (docs: README "Scopes"): the library's settings with
# these keys replaced. "declared" is configs/<lib>.yml as it is (the declared entry points keep
# the model scope by themselves); the others drop the declared entry points.
SCOPE_VARIANTS: dict[str, dict[str, Any]] = {
    "model": {"scope": "model", "entry-points": []},
    "auto": {"scope": "auto", "entry-points": []},
    "library": {"scope": "library", "entry-points": []},
    "declared": {},
}
# `graphmend check` results are kept here when set (run.py sets it for a run): transformers'
# families share one package and one config, so the whole-package check runs once, not per family
CHECK_CACHE_ENV = "WILD_CHECK_CACHE"
Key = tuple[str, int]  # (path relative to the package's parent, first line of the statement)


class Statements:
    """Maps a line of a source file to the first line of the innermost statement that holds it."""

    def __init__(self, path: str) -> None:
        with open(path, encoding="utf-8") as handle:
            self.lines = handle.read().splitlines()
        self._start: dict[int, int] = {}
        tree = ast.parse("\n".join(self.lines), filename=path)
        for node in ast.walk(tree):  # breadth first: a parent is seen before its children
            if isinstance(node, ast.stmt):
                start, end = _header(node)
                for line in range(start, end + 1):
                    self._start[line] = start

    def start(self, line: int) -> int:
        return self._start.get(line, line)

    def text(self, line: int) -> str:
        return self.lines[line - 1].strip() if 0 < line <= len(self.lines) else ""


class StatementKeys:
    """Keys for matching by statement: (path relative to the package's parent, first line of the
    statement that holds a line). Shared by the harness and the census run (census_run.py)."""

    def __init__(self, package_dir: str) -> None:
        self.base = os.path.dirname(normalise(package_dir))
        self._files: dict[str, Statements] = {}

    def statements(self, path: str) -> Statements:
        if path not in self._files:
            self._files[path] = Statements(path)
        return self._files[path]

    def key(self, path: str, line: int) -> Key:
        return os.path.relpath(path, self.base), self.statements(path).start(line)

    def line(self, where: Key, note: str) -> Line:
        return Line(f"{where[0]}:{where[1]}", self.statements(os.path.join(self.base, where[0])).text(where[1]), note)


def _header(node: ast.stmt) -> tuple[int, int]:
    start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
    body = getattr(node, "body", None)
    if isinstance(body, list) and body and isinstance(body[0], ast.AST):
        return start, max(start, body[0].lineno - 1)
    if isinstance(node, ast.Match) and node.cases:
        return start, max(start, node.cases[0].pattern.lineno - 1)
    return start, node.end_lineno or node.lineno


@dataclass
class CallResult:
    name: str
    error: str | None = None
    graph_count: int = 0
    breaks: int = 0  # break reasons and logged breaks, mapped or not
    unmapped: list[str] = field(default_factory=list)  # breaks with no frame in the package
    unmapped_in: list[str] = field(default_factory=list)  # for each, who owns its innermost frame (frame_owner)
    seconds: float = 0.0


@dataclass
class Line:
    where: str  # path:line, relative to the package's parent directory
    text: str  # the source line
    note: str  # Dynamo's reason, or the finding's code and message


@dataclass
class LibraryReport:
    name: str
    distribution: str
    version: str
    why: str
    entry_points: list[str]
    calls: list[CallResult] = field(default_factory=list)
    error: str | None = None
    break_statements: int = 0
    matched: int = 0
    executed_findings: int = 0
    confirmed: int = 0
    findings: int = 0
    never_ran: int = 0
    missed: list[Line] = field(default_factory=list)
    false_positives: list[Line] = field(default_factory=list)
    never_ran_sample: list[Line] = field(default_factory=list)
    break_lines: list[Line] = field(default_factory=list)  # every break statement, with Dynamo's reason
    # per declared entry point, and for all of them together (ALL_ENTRY_POINTS), what only it
    # brings: [break statements found, findings on executed statements, findings]
    entry_point_gain: dict[str, list[int]] = field(default_factory=dict)
    # per scope (DEFAULT_SCOPE: no entry point declared; DECLARED_SCOPE: configs/<lib>.yml), the
    # statement keys ("path:line") found, on executed statements, and of those the ones whose
    # findings name a mode the truth did not run ("mode_named"; absent in runs saved before it), so
    # that the halves of the corpus can be scored as unions (transformers families share files: a
    # shared break counts once); "false_positive_codes": "path:line CODE" of the findings on executed
    # statements Dynamo did not break on (absent in runs saved before they were recorded)
    scopes: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    # every break statement missed at default scope -> its cause (miss_causes.py)
    miss_causes: dict[str, str] = field(default_factory=dict)
    # per SCOPE_VARIANTS name (`run.py --scopes`): [break statements found, findings on executed
    # statements, of those on a break statement, findings]
    scope_variants: dict[str, list[int]] = field(default_factory=dict)
    # the recorded ground truth (`truth_json`): Dynamo's break statements and the executed statements,
    # which `run.py --truth-from` reuses to rerun only `graphmend check` (truth does not depend on it)
    truth: dict[str, Any] = field(default_factory=dict)
    static_seconds: float = 0.0
    seconds: float = 0.0

    @property
    def recall(self) -> float | None:
        return self.matched / self.break_statements if self.break_statements else None

    @property
    def precision(self) -> float | None:
        return self.confirmed / self.executed_findings if self.executed_findings else None

    @property
    def mode_named(self) -> int | None:
        """Findings on executed statements Dynamo did not break on (declared scope) that name a mode
        the truth may not have run; None for a run saved before they were counted."""
        named = self.scopes.get(DECLARED_SCOPE, {}).get("mode_named")
        return None if named is None else len(named)

    @property
    def measured_precision(self) -> float | None:
        """Executed precision over the findings in the measured mode (eval, float32); None for a run
        saved before mode-named findings were counted."""
        if self.mode_named is None:
            return None
        executed = self.executed_findings - self.mode_named
        return self.confirmed / executed if executed else None

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["recall"], data["precision"] = self.recall, self.precision
        data["measured_precision"] = self.measured_precision
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LibraryReport:
        data = {k: v for k, v in data.items() if k not in ("recall", "precision", "measured_precision")}
        data["calls"] = [CallResult(**c) for c in data.get("calls", [])]
        for name in ("missed", "false_positives", "never_ran_sample", "break_lines"):
            data[name] = [Line(**item) for item in data.get(name, [])]
        return cls(**data)


def lib_names() -> list[str]:
    """Every corpus unit: the PyPI libraries of libs/ and the transformers model families."""
    return corpus_names()


def entry_points(name: str) -> list[str]:
    return list(library_config(name).get("entry-points", []))


def library_config(name: str) -> dict[str, Any]:
    import yaml

    with open(config_path(name), encoding="utf-8") as handle:
        return dict(yaml.safe_load(handle) or {})


def config_path(name: str) -> str:
    return os.path.join(CONFIGS, f"{hf_corpus.DISTRIBUTION if hf_corpus.is_unit(name) else name}.yml")


def measure(
    name: str,
    sample: int = 5,
    calls: Collection[str] | None = None,
    ablate: bool = True,
    scopes: bool = False,
    recorded: dict[str, Any] | None = None,
) -> LibraryReport:
    """Measure one library in this process (only `calls` when given; `ablate`: rerun the check
    without each declared entry point in turn, to tell which were needed; `recorded`: a saved
    report (`to_json`) whose truth is reused, so only `graphmend check` runs).

    A library that does not import, a call that raises and a recorded truth that does not fit
    what is installed are reported in the result.
    """
    started = time.perf_counter()
    try:
        if recorded is not None:
            report, package_dir, breaks, ran = _recorded(name, recorded)
        else:
            spec = _load_spec(name)
            report = LibraryReport(
                name, spec.DISTRIBUTION, importlib.metadata.version(spec.DISTRIBUTION), spec.WHY, entry_points(name)
            )
            package_dir = _package_dir(importlib.import_module(spec.PACKAGE))
    except Exception as error:  # a library that does not import is reported, not fatal
        report = LibraryReport(name, name, "?", "", [], error=_describe(error))
        report.seconds = time.perf_counter() - started
        return report

    tree = Tree([package_dir])
    keys = StatementKeys(package_dir)
    if recorded is None:
        breaks, ran = _live_truth(spec, report, tree, keys, calls)
    report.truth = truth_json(package_dir, breaks, ran)
    _score(name, report, package_dir, tree, keys, breaks, ran, sample, ablate, scopes)
    report.seconds = time.perf_counter() - started
    return report


def _live_truth(
    spec: Any, report: LibraryReport, tree: Tree, keys: StatementKeys, calls: Collection[str] | None
) -> tuple[dict[Key, str], set[Key]]:
    """Run every call under Dynamo and eagerly under the line tracer: the break statements (with
    Dynamo's reason) and the executed statements; each call's result is added to `report.calls`."""
    key = keys.key
    breaks: dict[Key, str] = {}
    ran: set[Key] = set()
    for call_name, build in _calls(spec):
        if calls is not None and call_name not in calls:
            continue
        result = CallResult(call_name)
        call_started = time.perf_counter()
        try:
            torch.manual_seed(0)
            fn, args, kwargs = build()
            explained = dynamo_breaks(fn, args, kwargs, tree)
            torch.manual_seed(0)
            covered = executed_lines(fn, args, kwargs, tree)
        except Exception as error:  # one raising call must not lose the others
            result.error = _describe(error)
        else:
            result.graph_count = explained.graph_count
            result.breaks = len(explained.breaks)
            result.unmapped = [b.reason for b in explained.unmapped]
            result.unmapped_in = [frame_owner(b.stack) for b in explained.unmapped]
            for brk in explained.breaks:
                if brk.location is not None:
                    reason = f"{brk.reason} ({brk.explanation})" if brk.explanation else brk.reason
                    breaks.setdefault(key(*brk.location), reason)
            for path, lines in covered.items():
                ran.update(key(path, line) for line in lines)
        result.seconds = time.perf_counter() - call_started
        report.calls.append(result)
    return breaks, ran


def frame_owner(stack: tuple[tuple[str, int], ...]) -> str:
    """Whose code a break with no frame in the package broke in: the installed package that holds
    its innermost frame ("torch", "torchdiffeq", ...), or the benchmark's own code."""
    if not stack:
        return "no frame"
    path = stack[-1][0]
    marker = os.sep + "site-packages" + os.sep
    if marker in path:
        return path.split(marker, 1)[1].split(os.sep, 1)[0].removesuffix(".py")
    return "the benchmark's code" if path.startswith(HERE) else "other"


def _score(
    name: str,
    report: LibraryReport,
    package_dir: str,
    tree: Tree,
    keys: StatementKeys,
    breaks: dict[Key, str],
    ran: set[Key],
    sample: int,
    ablate: bool,
    scopes: bool,
) -> None:
    """`graphmend check` over the package, matched against the truth: fills `report`'s figures."""
    # files a finding can match a break or an executed line in: only these are parsed into
    # statements (transformers' whole-package check has findings in hundreds of other files)
    ran_files = {path for path, _ in ran} | {path for path, _ in breaks}

    def reported_keys(findings: list[dict[str, Any]]) -> dict[Key, str]:
        return finding_keys(findings, tree, keys, ran_files)

    static_started = time.perf_counter()
    try:
        reported = reported_keys(_check(config_path(name), package_dir))
        default = (
            reported_keys(_check_with([], package_dir, library_config(name))) if report.entry_points else reported
        )
    except RuntimeError as error:
        report.error = str(error)
        reported = default = {}
    report.static_seconds = time.perf_counter() - static_started
    for scope, found in ((DEFAULT_SCOPE, default), (DECLARED_SCOPE, reported)):
        executed_here = [k for k in found if k in ran or k in breaks]
        report.scopes[scope] = {
            "found": sorted(_where(k) for k in found.keys() & breaks.keys()),
            "executed": sorted(_where(k) for k in executed_here),
            "mode_named": sorted(_where(k) for k in executed_here if k not in breaks and modes_named(found[k])),
            # the false positives' rule codes, counted by cause on the test half without being read
            "false_positive_codes": sorted(f"{_where(k)} {found[k].split()[0]}" for k in executed_here if k not in breaks),
        }
    if not report.error:
        report.miss_causes = miss_causes(
            breaks.keys() - default.keys(), reported.keys(), keys, package_dir, config_path(name)
        )

    line = keys.line
    report.break_statements = len(breaks)
    report.matched = len(breaks.keys() & reported.keys())
    report.findings = len(reported)
    executed = {k for k in reported if k in ran or k in breaks}
    report.executed_findings = len(executed)
    report.confirmed = len(executed & breaks.keys())
    report.never_ran = len(reported) - len(executed)
    report.missed = [line(k, breaks[k]) for k in sorted(breaks.keys() - reported.keys())]
    report.false_positives = [line(k, reported[k]) for k in sorted(executed - breaks.keys())]
    report.never_ran_sample = [line(k, reported[k]) for k in sorted(reported.keys() - executed)[:sample]]
    report.break_lines = [line(k, breaks[k]) for k in sorted(breaks)]
    if ablate and report.entry_points and not report.error:
        report.entry_point_gain = _entry_point_gain(
            report.entry_points, package_dir, reported_keys, breaks, ran, library_config(name)
        )
    if scopes and not report.error:
        settings = library_config(name)
        for variant, overrides in SCOPE_VARIANTS.items():
            found = reported if not overrides else reported_keys(_check_settings({**settings, **overrides}, package_dir))
            executed_here = {k for k in found if k in ran or k in breaks}
            report.scope_variants[variant] = [
                len(found.keys() & breaks.keys()), len(executed_here), len(executed_here & breaks.keys()), len(found)
            ]


def truth_json(package_dir: str, breaks: dict[Key, str], ran: set[Key]) -> dict[str, Any]:
    """The ground truth as JSON: executed statements as first lines per file (compact: a
    transformers family runs thousands of statements)."""
    files: dict[str, list[int]] = {}
    for path, line in sorted(ran):
        files.setdefault(path, []).append(line)
    return {"package_dir": package_dir, "breaks": {_where(k): reason for k, reason in sorted(breaks.items())}, "ran": files}


def _recorded(name: str, saved: dict[str, Any]) -> tuple[LibraryReport, str, dict[Key, str], set[Key]]:
    """A saved report's truth for `name`, checked against what is installed now: the report to
    fill (its calls as recorded), the package directory, the break and the executed statements."""
    truth = saved.get("truth")
    if not truth:
        raise ValueError(f"the saved report of {name} has no recorded truth: measure it live")
    installed = importlib.metadata.version(saved["distribution"])
    if installed != saved["version"]:
        raise ValueError(f"truth recorded on {saved['distribution']} {saved['version']}, {installed} installed")
    package_dir = str(truth["package_dir"])
    if not os.path.exists(package_dir):
        raise ValueError(f"recorded package directory {package_dir} is missing")
    report = LibraryReport(name, saved["distribution"], saved["version"], saved["why"], entry_points(name))
    report.calls = [CallResult(**call) for call in saved["calls"]]
    breaks = {_key(where): reason for where, reason in truth["breaks"].items()}
    ran = {(path, line) for path, lines in truth["ran"].items() for line in lines}
    return report, package_dir, breaks, ran


def _key(where: str) -> Key:
    path, line = where.rsplit(":", 1)
    return path, int(line)


def _package_dir(module: Any) -> str:
    """The analysed tree: a package's directory (a namespace package has no __file__), or the file
    of a distribution that is one module."""
    paths = list(getattr(module, "__path__", None) or [])
    return str(paths[0]) if paths else str(module.__file__)


def _where(key: Key) -> str:
    return f"{key[0]}:{key[1]}"


def finding_keys(
    findings: list[dict[str, Any]], tree: Tree, keys: StatementKeys, files: Collection[str] | None = None
) -> dict[Key, str]:
    """`graphmend check --output-format json` findings inside the package, by statement key (in a
    file not in `files`, when given, by its own line: no statement there can match, and two findings
    in one such statement then count twice among the never-ran ones). A statement's note is a
    finding that names no mode when it has one: it names a mode only when all its findings do."""
    found: dict[Key, str] = {}
    for finding in findings:
        path = normalise(finding["filename"])
        if path in tree and finding.get("location") is not None:  # a file that does not parse has no line
            row = finding["location"]["row"]
            relative = os.path.relpath(path, keys.base)
            key = keys.key(path, row) if files is None or relative in files else (relative, row)
            note = f"{finding['code']} {finding['message']}"
            if key not in found or (modes_named(found[key]) and not modes_named(note)):
                found[key] = note
    return found


def _entry_point_gain(
    declared: list[str],
    package_dir: str,
    reported_keys: Callable[[list[dict[str, Any]]], dict[Key, str]],
    breaks: dict[Key, str],
    ran: set[Key],
    settings: dict[str, Any],
) -> dict[str, list[int]]:
    """Whether each entry point was needed: rerun the check without it (the library's other
    settings, such as `dependencies`, kept) and count what is lost."""

    def score(keys: Collection[Key]) -> tuple[set[Key], set[Key], set[Key]]:
        return set(keys) & breaks.keys(), {k for k in keys if k in ran or k in breaks}, set(keys)

    full = score(reported_keys(_check_with(declared, package_dir, settings)))
    gain: dict[str, list[int]] = {}
    if declared:  # all together: what the declared set brings (one may cover for another)
        without = score(reported_keys(_check_with([], package_dir, settings)))
        gain[ALL_ENTRY_POINTS] = [len(with_ - without_) for with_, without_ in zip(full, without)]
    for entry in declared:
        without = score(reported_keys(_check_with([e for e in declared if e != entry], package_dir, settings)))
        gain[entry] = [len(with_ - without_) for with_, without_ in zip(full, without)]
    return gain


def _check_with(declared: list[str], package_dir: str, settings: dict[str, Any]) -> list[dict[str, Any]]:
    return _check_settings({**settings, "entry-points": declared}, package_dir)


def _check_settings(settings: dict[str, Any], package_dir: str) -> list[dict[str, Any]]:
    import yaml

    with tempfile.TemporaryDirectory() as folder:
        config = os.path.join(folder, ".graphmend.yml")
        with open(config, "w", encoding="utf-8") as handle:
            yaml.safe_dump(settings, handle)
        return _check(config, package_dir)


def _load_spec(name: str) -> Any:
    if hf_corpus.is_unit(name):
        return hf_corpus.family_spec(name)
    module_spec = importlib.util.spec_from_file_location(f"wild_lib_{name}", os.path.join(HERE, "libs", f"{name}.py"))
    assert module_spec is not None and module_spec.loader is not None
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[module_spec.name] = module  # Dynamo imports a traced function's __module__
    module_spec.loader.exec_module(module)
    return module


def _calls(spec: Any, prefix: str = "call_") -> list[tuple[str, Callable[[], tuple[Any, ...]]]]:
    """The library's `call_<name>` functions (`prefix="rewrite_call_"`: the small calls written
    so that every function a rewrite touches runs, which only rewrite_check.py uses)."""
    return [(n[len(prefix) :], getattr(spec, n)) for n in dir(spec) if n.startswith(prefix)]


def _check(config: str, package_dir: str, extra: Collection[str] = ()) -> list[dict[str, Any]]:
    """`graphmend check` as a user runs it: the CLI installed beside this Python (`extra`: more
    options, e.g. `--census FILE`)."""
    graphmend = os.path.join(os.path.dirname(sys.executable), "graphmend")
    command = [graphmend, "check", "--output-format", "json", "--exit-zero", "--config", config, *extra, package_dir]
    digest = _digest(command, config)
    if digest in _CHECKED:
        return _CHECKED[digest]
    folder = os.environ.get(CHECK_CACHE_ENV)
    cached = os.path.join(folder, f"check-{digest}.json") if folder else None
    if cached and os.path.exists(cached):
        with open(cached, encoding="utf-8") as handle:
            return _CHECKED.setdefault(digest, list(json.load(handle)))
    done = subprocess.run(command, capture_output=True, text=True, timeout=1200)
    if done.returncode != 0:
        raise RuntimeError(f"graphmend check exited {done.returncode}: {done.stderr.strip()[-500:]}")
    findings = list(json.loads(done.stdout or "[]"))
    if cached:
        os.makedirs(os.path.dirname(cached), exist_ok=True)  # a fresh WILD_CHECK_CACHE folder
        with open(cached + ".part", "w", encoding="utf-8") as handle:
            json.dump(findings, handle)
        os.replace(cached + ".part", cached)
    return _CHECKED.setdefault(digest, findings)


_CHECKED: dict[str, list[dict[str, Any]]] = {}  # this process's check results, by _digest


def _digest(command: list[str], config: str) -> str:
    """A check's key: graphmend's own source, the command without the config's path, and the
    config's text (ablation configs live in temporary folders, and one text must give one key)."""
    with open(config, "rb") as handle:
        text = handle.read()
    return hashlib.sha256(code_stamp() + text + "\0".join(c for c in command if c != config).encode("utf-8")).hexdigest()[:32]


def _describe(error: BaseException) -> str:
    frames = traceback.extract_tb(error.__traceback__)
    where = f" at {os.path.basename(frames[-1].filename)}:{frames[-1].lineno}" if frames else ""
    return f"{type(error).__name__}: {str(error).strip().splitlines()[0] if str(error).strip() else ''}{where}"
