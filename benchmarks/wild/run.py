"""The wild benchmark: `graphmend check` on real PyPI libraries against TorchDynamo's break lines.

Each library runs in its own subprocess (`--worker`), so a crash, a hang or an import error in one
cannot take the others down; it is reported in the table. See harness.py for what is measured and
how findings are matched to break lines, and README.md for the libraries and the baseline.

Usage (after `sh benchmarks/wild/setup_env.sh`):
  .venv-wild/bin/python benchmarks/wild/run.py [--lib NAME ...] [--json FILE] [--sample N]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import hf_corpus  # noqa: E402
from halves import halves_report  # noqa: E402
from harness import (  # noqa: E402
    ALL_ENTRY_POINTS,
    CHECK_CACHE_ENV,
    DEFAULT_SCOPE,
    SCOPE_VARIANTS,
    LibraryReport,
    lib_names,
    measure,
)
from split import HALVES, TEST, half  # noqa: E402

from graphmend_bot.analysis.modes import modes_named  # noqa: E402

TIMEOUT_S = 1800
# transformers 5.x lives in its own environment (setup_env.sh), apart from the libraries that pin
# or import an older one
HF_PYTHON = os.environ.get("WILD_HF_PYTHON", ".venv-wild-hf/bin/python")


HF_BATCH = 6  # transformers families measured in one process (one import of torch and transformers)


ABLATE_ENV = "WILD_ABLATE"  # "0": skip the per-entry-point ablation (the `eps`/`via` columns)
SCOPES_ENV = "WILD_SCOPES"  # "1": also check in each of SCOPE_VARIANTS (`--scopes`)
# saved runs (`--truth-from`, joined by os.pathsep) whose recorded Dynamo truth the workers reuse
TRUTH_ENV = "WILD_TRUTH_FROM"


def run_worker(names: list[str], out: str, sample: int) -> None:
    """Measure `names` in turn, rewriting `out` after each, so a crash keeps the finished ones."""
    reports = []
    ablate = os.environ.get(ABLATE_ENV, "1") != "0"
    scopes = os.environ.get(SCOPES_ENV, "0") == "1"
    recorded = recorded_truth(os.environ[TRUTH_ENV].split(os.pathsep)) if os.environ.get(TRUTH_ENV) else {}
    for name in names:
        report = measure(name, sample=sample, ablate=ablate, scopes=scopes, recorded=recorded.get(name))
        reports.append(report.to_json())
        with open(out + ".part", "w", encoding="utf-8") as handle:
            json.dump(reports, handle)
        os.replace(out + ".part", out)


def recorded_truth(paths: list[str]) -> dict[str, dict[str, Any]]:
    """Saved reports with a recorded truth, by unit name (a later file wins)."""
    return {item["name"]: item for path in paths for item in _load(path) if item.get("truth")}


def run_batch(names: list[str], sample: int, hf_python: str = HF_PYTHON) -> list[LibraryReport]:
    """`names` in one worker process; any it did not finish are rerun one per process."""
    python = hf_python if hf_corpus.is_unit(names[0]) else sys.executable
    done: dict[str, LibraryReport] = {}
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "reports.json")
        command = [python, os.path.abspath(__file__), "--json", out, "--sample", str(sample)]
        command += [arg for name in names for arg in ("--worker", name)]
        # what finished is in `out`; the rest runs alone below and reports its own error
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S * len(names))
        if os.path.exists(out):
            with open(out, encoding="utf-8") as handle:
                done = {r.name: r for r in map(LibraryReport.from_json, json.load(handle))}
    return [done[name] if name in done else run_isolated(name, sample, hf_python) for name in names]


def run_isolated(name: str, sample: int, hf_python: str = HF_PYTHON) -> LibraryReport:
    python = hf_python if hf_corpus.is_unit(name) else sys.executable
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "report.json")
        command = [python, os.path.abspath(__file__), "--worker", name, "--json", out, "--sample", str(sample)]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S)
        except OSError as error:  # the interpreter is missing (transformers' environment not set up)
            return LibraryReport(name, name, "?", "", [], error=f"cannot start {python}: {error.strerror}")
        except subprocess.TimeoutExpired:
            return LibraryReport(name, name, "?", "", [], error=f"timed out after {TIMEOUT_S} s")
        if done.returncode != 0 or not os.path.exists(out):
            tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
            return LibraryReport(name, name, "?", "", [], error=f"worker exited {done.returncode}: {tail}")
        with open(out, encoding="utf-8") as handle:
            return LibraryReport.from_json(json.load(handle)[0])


def _ratio(value: float | None) -> str:
    return "  -  " if value is None else f"{value:5.2f}"


def _count(value: int | None) -> str:
    return "-" if value is None else str(value)


def _default_recall(report: LibraryReport) -> float | None:
    found = report.scopes.get(DEFAULT_SCOPE, {}).get("found")
    return len(found) / report.break_statements if found is not None and report.break_statements else None


def _needed(report: LibraryReport) -> str:
    needed = sum(1 for entry, (found, _, _) in report.entry_point_gain.items() if found and entry != ALL_ENTRY_POINTS)
    return f"{needed}/{len(report.entry_points)}"


def _needed_total(reports: list[LibraryReport]) -> str:
    needed = sum(int(_needed(r).split("/")[0]) for r in reports)
    return f"{needed}/{sum(len(r.entry_points) for r in reports)}"


def _via_entry_points(report: LibraryReport) -> str:
    return str(report.entry_point_gain.get(ALL_ENTRY_POINTS, [0])[0])


def table(reports: list[LibraryReport]) -> str:
    header = (
        f"{'library':<30} {'half':<4} {'version':<10} {'calls':>5} {'breaks':>6} {'rec0':>5} {'found':>5} {'recall':>6} "
        f"{'exec':>4} {'conf':>4} {'prec':>5} {'mode':>4} {'mprec':>5} {'never':>5} {'eps':>5} {'via':>3} {'wall s':>7}"
    )
    rows = [header, "-" * len(header)]
    for r in reports:
        ok = sum(1 for c in r.calls if c.error is None)
        rows.append(
            f"{r.name:<30} {half(r.name):<4} {r.version:<10} {f'{ok}/{len(r.calls)}':>5} {r.break_statements:>6} "
            f"{_ratio(_default_recall(r)):>5} {r.matched:>5} "
            f"{_ratio(r.recall):>6} {r.executed_findings:>4} {r.confirmed:>4} {_ratio(r.precision):>5} "
            f"{_count(r.mode_named):>4} {_ratio(r.measured_precision):>5} {r.never_ran:>5} {_needed(r):>5} {_via_entry_points(r):>3} {r.seconds:>7.1f}"
        )
    breaks = sum(r.break_statements for r in reports)
    matched = sum(r.matched for r in reports)
    executed = sum(r.executed_findings for r in reports)
    confirmed = sum(r.confirmed for r in reports)
    counted = [r for r in reports if r.mode_named is not None]
    named = sum(r.mode_named or 0 for r in counted)
    measured = sum(r.executed_findings for r in counted) - named
    measured_confirmed = sum(r.confirmed for r in counted)
    rows.append("-" * len(header))
    rows.append(
        f"{'overall (sums)':<30} {'':<4} {'':<10} {'':>5} {breaks:>6} {'':>5} {matched:>5} "
        f"{_ratio(matched / breaks if breaks else None):>6} "
        f"{executed:>4} {confirmed:>4} {_ratio(confirmed / executed if executed else None):>5} "
        f"{_count(named if counted else None):>4} {_ratio(measured_confirmed / measured if measured else None):>5} "
        f"{sum(r.never_ran for r in reports):>5} {_needed_total(reports):>5} "
        f"{sum(int(_via_entry_points(r)) for r in reports):>3} "
        f"{sum(r.seconds for r in reports):>7.1f}"
    )
    return "\n".join(rows)


def scope_table(reports: list[LibraryReport]) -> str:
    """Recall and executed precision per library in each scope of SCOPE_VARIANTS."""
    header = f"{'library':<24} {'breaks':>6}" + "".join(f" {name + ' rec':>12} {'prec':>10} {'all':>5}" for name in SCOPE_VARIANTS)
    rows = [header, "-" * len(header)]
    totals = {name: [0, 0, 0, 0] for name in SCOPE_VARIANTS}

    def cells(breaks: int, scores: list[int]) -> str:
        found, executed, confirmed, findings = scores
        recall = f"{found}/{breaks} {_ratio(found / breaks if breaks else None)}"
        precision = f"{confirmed}/{executed} {_ratio(confirmed / executed if executed else None)}"
        return f" {recall:>12} {precision:>10} {findings:>5}"

    for r in reports:
        if not r.scope_variants:
            continue
        rows.append(f"{r.name:<24} {r.break_statements:>6}" + "".join(cells(r.break_statements, r.scope_variants[name]) for name in SCOPE_VARIANTS))
        for name in SCOPE_VARIANTS:
            totals[name] = [a + b for a, b in zip(totals[name], r.scope_variants[name])]
    breaks = sum(r.break_statements for r in reports if r.scope_variants)
    rows.append("-" * len(header))
    rows.append(f"{'overall':<24} {breaks:>6}" + "".join(cells(breaks, totals[name]) for name in SCOPE_VARIANTS))
    return "\n".join(rows)


SCOPE_LEGEND = """\
Per scope (--scopes): rec = break statements with a finding / break statements; prec = findings on a
break statement / findings on statements the eager calls ran; all = findings on statements of the package.
model: `scope: model`, no entry points (the default before the library scope); auto: the default now
(`scope: auto`), no entry points; library: `scope: library`, no entry points; declared: configs/<lib>.yml."""


LEGEND = """\
half: split.py's half; rec0: recall at default scope (no entry point declared); found, recall: with
the declared entry points;
breaks: statements Dynamo broke on (explain + graph_breaks log); found: of those, with a finding;
exec: findings on statements the eager calls ran; conf: of those, Dynamo broke there; prec = conf/exec;
mode: of exec, findings not confirmed whose message names a mode the truth may not have run (training,
float16, autocast: the transformers calls run in eval mode and float32), neither confirmed nor false;
mprec: prec without them;
never: findings on statements no call ran; eps: entry points needed (a break statement is found only
through it) / declared in configs/<lib>.yml; via: break statements found only with the declared set."""


def details(report: LibraryReport, show_test_lines: bool = False) -> str:
    lines = [f"== {report.name} {report.version} ({half(report.name)} half)"]
    if report.error:
        lines.append(f"   error: {report.error}")
    for call in report.calls:
        status = call.error or f"{call.graph_count} graphs, {call.breaks} breaks"
        lines.append(f"   call {call.name}: {status} ({call.seconds:.1f} s)")
        lines.extend(f"     break outside the package: {reason}" for reason in call.unmapped)
    for entry, (found, executed, findings) in report.entry_point_gain.items():
        lines.append(
            f"   entry point {entry}: {'needed' if found else 'no break found only through it'} "
            f"(only through it: {found} break statements found, {executed} executed findings, {findings} findings)"
        )
    if half(report.name) == TEST and not show_test_lines:  # the test half is counted, not read
        lines.append(
            f"   test half: {len(report.missed)} missed, {len(report.false_positives)} false positives, "
            f"{report.never_ran} never ran (lines not shown)"
        )
        return "\n".join(lines)
    in_other_modes = [item for item in report.false_positives if modes_named(item.note)]
    for title, items in (
        ("missed", report.missed),
        ("false positive", [item for item in report.false_positives if item not in in_other_modes]),
        ("named a mode the truth did not run", in_other_modes),
        ("never ran (sample)", report.never_ran_sample),
    ):
        lines.extend(f"   {title}: {item.where}  {item.text}\n      {item.note}" for item in items)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lib", action="append", choices=lib_names(), help="run only this library (repeatable)")
    parser.add_argument("--half", choices=HALVES, help="run only the libraries of this half (split.py)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes at a time")
    parser.add_argument(
        "--no-ablation", action="store_true", help="skip rerunning the check without each entry point (eps, via)"
    )
    parser.add_argument("--hf-python", default=HF_PYTHON, help="the Python of transformers' environment")
    parser.add_argument(
        "--from-json", metavar="FILE", action="append", help="report saved runs (repeatable) instead of running"
    )
    parser.add_argument(
        "--truth-from", metavar="FILE", action="append",
        help="reuse the Dynamo truth recorded in a saved run (repeatable): rerun only `graphmend check`; "
        "units without a recorded truth are measured live",
    )
    parser.add_argument("--show-test-lines", action="store_true", help="print the test half's lines too")
    parser.add_argument("--json", metavar="FILE", help="save the reports as JSON")
    parser.add_argument("--sample", type=int, default=5, help="never-ran findings to print per library")
    parser.add_argument("--quiet", action="store_true", help="print the table only")
    parser.add_argument("--scopes", action="store_true",
                        help="also check in the model, auto and library scopes without entry points, and compare")
    parser.add_argument("--worker", metavar="NAME", action="append", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        run_worker(args.worker, args.json, args.sample)
        return 0
    if args.no_ablation:
        os.environ[ABLATE_ENV] = "0"  # read by the workers
    if args.scopes:
        os.environ[SCOPES_ENV] = "1"
    if args.truth_from:
        os.environ[TRUTH_ENV] = os.pathsep.join(os.path.abspath(path) for path in args.truth_from)
    if args.from_json:
        reports = [LibraryReport.from_json(item) for path in args.from_json for item in _load(path)]
    else:
        reports = _run(args)
    if not args.quiet:
        for report in reports:
            print(details(report, args.show_test_lines))
        print()
    print(table(reports))
    print(LEGEND)
    print()
    print(halves_report(reports))
    if any(r.scope_variants for r in reports):
        print()
        print(scope_table(reports))
        print(SCOPE_LEGEND)
    if args.json:
        _save(args.json, reports)
    return 0


def _run(args: argparse.Namespace) -> list[LibraryReport]:
    names = [n for n in args.lib or lib_names() if args.half is None or half(n) == args.half]
    reports = []
    with tempfile.TemporaryDirectory() as cache:
        # one whole-package check per package and config for the run (transformers' families)
        os.environ.setdefault(CHECK_CACHE_ENV, cache)
        hf = [n for n in names if hf_corpus.is_unit(n)]
        batches = [[n] for n in names if not hf_corpus.is_unit(n)]
        batches += [hf[i : i + HF_BATCH] for i in range(0, len(hf), HF_BATCH)]
        def one(batch: list[str]) -> list[LibraryReport]:
            print(f"... {' '.join(batch)}", file=sys.stderr, flush=True)
            return run_batch(batch, args.sample, args.hf_python)

        with ThreadPoolExecutor(max_workers=args.jobs) as pool:  # each batch is its own process
            for done in pool.map(one, batches):
                reports.extend(done)
                if args.json:  # saved as it goes: a run cut short keeps what it measured
                    _save(args.json, reports)
    return sorted(reports, key=lambda r: r.name)


def _save(path: str, reports: list[LibraryReport]) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        json.dump([r.to_json() for r in sorted(reports, key=lambda r: r.name)], handle, indent=1)


def _load(path: str) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as handle:
        return list(json.load(handle))


if __name__ == "__main__":
    sys.exit(main())
