"""The census on the wild benchmark: does `pytest --graphmend-census` record Dynamo's break lines?

For each library, in its own subprocess (`--worker`, as run.py):
  1. ground truth and the static side: harness.measure (Dynamo's break statements on the
     library's benchmark calls, and `graphmend check` alone), with the same statement matching;
  2. a pytest module with one test per call (`fn, args, kwargs = call_x(); fn(*args, **kwargs)`),
     run twice in a subprocess of this interpreter (the library's own environment): plainly, and
     with `--graphmend-census` rooted at the package directory and the configured entry points;
     the ratio of the two wall times is the census overhead;
  3. `graphmend check --census FILE --census-root PACKAGE_DIR`: static findings plus the census's
     runtime findings (GM801).

  census recall          = break statements the census recorded / break statements
  static recall          = break statements with a finding of `graphmend check` alone
  static + census recall = break statements with a finding of `graphmend check --census`

Usage (after `sh benchmarks/wild/setup_env.sh`; pytest must be installed in .venv-wild):
  .venv-wild/bin/python benchmarks/wild/census_run.py [--lib NAME ...] [--json FILE]
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Collection, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from harness import (  # noqa: E402
    Key,
    LibraryReport,
    Line,
    StatementKeys,
    Tree,
    _check,
    _load_spec,
    config_path,
    entry_points,
    finding_keys,
    lib_names,
    measure,
)

TIMEOUT_S = 1800
PYTEST_TIMEOUT_S = 900


@dataclass
class CensusReport:
    name: str
    error: str | None = None
    breaks: int = 0  # break statements (Dynamo, harness.py)
    census_found: int = 0  # of those, recorded by the census
    static_found: int = 0  # of those, with a finding of `graphmend check`
    merged_found: int = 0  # of those, with a finding of `graphmend check --census`
    census_only_lines: int = 0  # census break statements that are not in the ground truth
    plain_seconds: float = 0.0
    census_seconds: float = 0.0
    tests: str = ""  # pytest's summary line of the census run
    missed: list[str] = field(default_factory=list)  # break statements the census did not record
    problems: list[str] = field(default_factory=list)  # what the plugin reported

    @property
    def overhead(self) -> float | None:
        return self.census_seconds / self.plain_seconds if self.plain_seconds else None


# -- matching (pure: tested in tests/census/test_census_run.py) ------------------------------------
def census_keys(census: dict[str, Any], package_dir: str, keys: StatementKeys) -> set[Key]:
    """The census's break lines (paths relative to the package directory) as statement keys."""
    found: set[Key] = set()
    for record in census.get("breaks", []):
        path = os.path.join(package_dir, record["path"])
        if os.path.isfile(path):
            found.add(keys.key(path, int(record["line"])))
    return found


def recall_counts(truth: Iterable[Key], census: Collection[Key], static: Collection[Key],
                  merged: Collection[Key]) -> tuple[int, int, int, int]:
    """(break statements, found by the census, by the static check, by the check with the census)."""
    truth = set(truth)
    return len(truth), len(truth & set(census)), len(truth & set(static)), len(truth & set(merged))


def _where_key(line: Line) -> Key:
    """A harness Line's place back as a key ("pkg/mod.py:12" -> ("pkg/mod.py", 12))."""
    path, _, number = line.where.rpartition(":")
    return path, int(number)


def truth_keys(report: LibraryReport) -> set[Key]:
    """harness.measure's break statements."""
    return {_where_key(line) for line in report.break_lines}


def static_keys(report: LibraryReport) -> set[Key]:
    """The break statements `graphmend check` alone found: all but the ones harness.measure missed."""
    return truth_keys(report) - {_where_key(line) for line in report.missed}


# -- the worker ------------------------------------------------------------------------------------
TEST_MODULE = '''\
"""The wild benchmark's calls for {name} as tests (written by census_run.py)."""
import importlib.util
import sys

import torch

_spec = importlib.util.spec_from_file_location("wild_lib_{name}", {path!r})
lib = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = lib
_spec.loader.exec_module(lib)
'''

# Under no_grad, as harness.py's ground truth explains and covers each call: Dynamo traces other
# code with grad off (gpytorch's `MultivariateNormal.log_prob` breaks at line 236 only then).
TEST_FUNCTION = '''

def test_{call}():
    torch.manual_seed(0)
    fn, args, kwargs = lib.call_{call}()
    with torch.no_grad():
        fn(*args, **kwargs)
'''


def write_tests(name: str, calls: Iterable[str], folder: str) -> str:
    path = os.path.join(folder, f"test_wild_{name}.py")
    source = TEST_MODULE.format(name=name, path=os.path.join(HERE, "libs", f"{name}.py"))
    source += "".join(TEST_FUNCTION.format(call=call) for call in calls)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(source)
    return path


def run_pytest(test_file: str, folder: str, extra: list[str]) -> tuple[float, str, str]:
    """(wall seconds, pytest's summary line, its whole output)."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", folder, *extra, test_file]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=PYTEST_TIMEOUT_S)
    seconds = time.perf_counter() - started
    lines = [line for line in done.stdout.strip().splitlines() if line.strip()]
    return seconds, (lines[-1] if lines else f"exit {done.returncode}"), done.stdout + done.stderr


def measure_census(name: str) -> CensusReport:
    report = CensusReport(name)
    truth = measure(name, sample=0, ablate=False)
    if truth.error:
        report.error = truth.error
        return report
    spec = _load_spec(name)
    package_dir = os.path.dirname(importlib.import_module(spec.PACKAGE).__file__)
    keys = StatementKeys(package_dir)
    calls = [c.name for c in truth.calls if c.error is None]
    with tempfile.TemporaryDirectory() as folder:
        test_file = write_tests(name, calls, folder)
        census_file = os.path.join(folder, "census.json")
        report.plain_seconds, _, _ = run_pytest(test_file, folder, [])
        options = ["--graphmend-census", f"--graphmend-census-file={census_file}",
                   f"--graphmend-census-root={package_dir}",
                   *(f"--graphmend-census-entry={entry}" for entry in entry_points(name))]
        report.census_seconds, report.tests, output = run_pytest(test_file, folder, options)
        report.problems = [line.strip() for line in output.splitlines()
                           if line.startswith("graphmend census:") and "call(s) explained" not in line]
        if not os.path.isfile(census_file):
            report.error = f"no census written: {report.tests}"
            return report
        with open(census_file, encoding="utf-8") as handle:
            census = json.load(handle)
        merged = finding_keys(_check(config_path(name), package_dir, ["--census", census_file,
                                                                        "--census-root", package_dir]),
                              Tree([package_dir]), keys)
    truth_set = truth_keys(truth)
    recorded = census_keys(census, package_dir, keys)
    report.breaks, report.census_found, report.static_found, report.merged_found = recall_counts(
        truth_set, recorded, static_keys(truth), merged)
    report.census_only_lines = len(recorded - truth_set)
    report.missed = [f"{line.where}  {line.text}  ({line.note})" for line in truth.break_lines
                     if _where_key(line) not in recorded]
    return report


# -- the table -------------------------------------------------------------------------------------
def _ratio(found: int, total: int) -> str:
    return f"{found / total:5.2f}" if total else "  -  "


def table(reports: list[CensusReport]) -> str:
    header = (f"{'library':<24} {'breaks':>6} {'census':>6} {'recall':>6} {'static':>6} {'recall':>6} "
              f"{'s+c':>4} {'recall':>6} {'extra':>5} {'plain s':>7} {'census s':>8} {'overhead':>8}")
    rows = [header, "-" * len(header)]
    for r in reports:
        if r.error:
            rows.append(f"{r.name:<24} error: {r.error}")
            continue
        overhead = f"{r.overhead:7.2f}x" if r.overhead else "     -  "
        rows.append(f"{r.name:<24} {r.breaks:>6} {r.census_found:>6} {_ratio(r.census_found, r.breaks):>6} "
                    f"{r.static_found:>6} {_ratio(r.static_found, r.breaks):>6} {r.merged_found:>4} "
                    f"{_ratio(r.merged_found, r.breaks):>6} {r.census_only_lines:>5} {r.plain_seconds:>7.1f} "
                    f"{r.census_seconds:>8.1f} {overhead:>8}")
    ok = [r for r in reports if not r.error]
    total = {name: sum(getattr(r, name) for r in ok) for name in ("breaks", "census_found", "static_found",
                                                                   "merged_found", "census_only_lines")}
    plain, censused = sum(r.plain_seconds for r in ok), sum(r.census_seconds for r in ok)
    rows.append("-" * len(header))
    rows.append(f"{'overall':<24} {total['breaks']:>6} {total['census_found']:>6} "
                f"{_ratio(total['census_found'], total['breaks']):>6} {total['static_found']:>6} "
                f"{_ratio(total['static_found'], total['breaks']):>6} {total['merged_found']:>4} "
                f"{_ratio(total['merged_found'], total['breaks']):>6} {total['census_only_lines']:>5} "
                f"{plain:>7.1f} {censused:>8.1f} {(censused / plain if plain else 0):7.2f}x")
    return "\n".join(rows)


LEGEND = """\
breaks: statements Dynamo broke on in the benchmark calls (harness.py); census: of those, recorded by
`pytest --graphmend-census` running the calls as tests; static: found by `graphmend check`; s+c: found
by `graphmend check --census` (static findings and GM801 runtime findings); extra: census break
statements not in the ground truth; plain s / census s: wall time of the pytest run without / with
the census; overhead = census s / plain s."""


def details(report: CensusReport) -> str:
    lines = [f"== {report.name}: {report.tests}"]
    lines += [f"   census missed: {item}" for item in report.missed]
    lines += [f"   {problem}" for problem in report.problems]
    return "\n".join(lines)


def run_isolated(name: str) -> CensusReport:
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "report.json")
        command = [sys.executable, os.path.abspath(__file__), "--worker", name, "--json", out]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return CensusReport(name, error=f"timed out after {TIMEOUT_S} s")
        if done.returncode != 0 or not os.path.exists(out):
            tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
            return CensusReport(name, error=f"worker exited {done.returncode}: {tail}")
        with open(out, encoding="utf-8") as handle:
            return CensusReport(**json.load(handle))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lib", action="append", choices=lib_names(), help="run only this library (repeatable)")
    parser.add_argument("--json", metavar="FILE", help="save the reports as JSON")
    parser.add_argument("--worker", metavar="NAME", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(asdict(measure_census(args.worker)), handle)
        return 0
    reports = []
    for name in args.lib or lib_names():
        print(f"... {name}", file=sys.stderr, flush=True)
        reports.append(run_isolated(name))
    for report in reports:
        print(details(report))
    print()
    print(table(reports))
    print(LEGEND)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump([asdict(r) for r in reports], handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
