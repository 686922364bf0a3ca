"""The wild benchmark: `graphmend check` on real PyPI libraries against TorchDynamo's break lines.

Each library runs in its own subprocess (`--worker`), so a crash, a hang or an import error in one
cannot take the others down; it is reported in the table. See harness.py for what is measured and
how findings are matched to break lines, and README.md for the libraries and the baseline.

Usage (after `sh benchmarks/wild/setup_env.sh`):
  .venv-wild/bin/python benchmarks/wild/run.py [--lib NAME ...] [--json FILE] [--sample N]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from harness import ALL_ENTRY_POINTS, SCOPE_VARIANTS, LibraryReport, lib_names, measure  # noqa: E402

TIMEOUT_S = 1800


def run_worker(name: str, out: str, sample: int, scopes: bool) -> None:
    report = measure(name, sample=sample, scopes=scopes)
    with open(out, "w", encoding="utf-8") as handle:
        json.dump(report.to_json(), handle)


def run_isolated(name: str, sample: int, scopes: bool = False) -> LibraryReport:
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "report.json")
        command = [sys.executable, os.path.abspath(__file__), "--worker", name, "--json", out, "--sample", str(sample)]
        command += ["--scopes"] if scopes else []
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return LibraryReport(name, name, "?", "", [], error=f"timed out after {TIMEOUT_S} s")
        if done.returncode != 0 or not os.path.exists(out):
            tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
            return LibraryReport(name, name, "?", "", [], error=f"worker exited {done.returncode}: {tail}")
        with open(out, encoding="utf-8") as handle:
            return LibraryReport.from_json(json.load(handle))


def _ratio(value: float | None) -> str:
    return "  -  " if value is None else f"{value:5.2f}"


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
        f"{'library':<24} {'version':<10} {'calls':>5} {'breaks':>6} {'found':>5} {'recall':>6} "
        f"{'exec':>4} {'conf':>4} {'prec':>5} {'never':>5} {'eps':>5} {'via':>3} {'wall s':>7}"
    )
    rows = [header, "-" * len(header)]
    for r in reports:
        ok = sum(1 for c in r.calls if c.error is None)
        rows.append(
            f"{r.name:<24} {r.version:<10} {f'{ok}/{len(r.calls)}':>5} {r.break_statements:>6} {r.matched:>5} "
            f"{_ratio(r.recall):>6} {r.executed_findings:>4} {r.confirmed:>4} {_ratio(r.precision):>5} "
            f"{r.never_ran:>5} {_needed(r):>5} {_via_entry_points(r):>3} {r.seconds:>7.1f}"
        )
    breaks = sum(r.break_statements for r in reports)
    matched = sum(r.matched for r in reports)
    executed = sum(r.executed_findings for r in reports)
    confirmed = sum(r.confirmed for r in reports)
    rows.append("-" * len(header))
    rows.append(
        f"{'overall':<24} {'':<10} {'':>5} {breaks:>6} {matched:>5} {_ratio(matched / breaks if breaks else None):>6} "
        f"{executed:>4} {confirmed:>4} {_ratio(confirmed / executed if executed else None):>5} "
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
        if not r.scopes:
            continue
        rows.append(f"{r.name:<24} {r.break_statements:>6}" + "".join(cells(r.break_statements, r.scopes[name]) for name in SCOPE_VARIANTS))
        for name in SCOPE_VARIANTS:
            totals[name] = [a + b for a, b in zip(totals[name], r.scopes[name])]
    breaks = sum(r.break_statements for r in reports if r.scopes)
    rows.append("-" * len(header))
    rows.append(f"{'overall':<24} {breaks:>6}" + "".join(cells(breaks, totals[name]) for name in SCOPE_VARIANTS))
    return "\n".join(rows)


SCOPE_LEGEND = """\
Per scope (--scopes): rec = break statements with a finding / break statements; prec = findings on a
break statement / findings on statements the eager calls ran; all = findings on statements of the package.
model: `scope: model`, no entry points (the default before the library scope); auto: the default now
(`scope: auto`), no entry points; library: `scope: library`, no entry points; declared: configs/<lib>.yml."""


LEGEND = """\
breaks: statements Dynamo broke on (explain + graph_breaks log); found: of those, with a finding;
exec: findings on statements the eager calls ran; conf: of those, Dynamo broke there; prec = conf/exec;
never: findings on statements no call ran; eps: entry points needed (a break statement is found only
through it) / declared in configs/<lib>.yml; via: break statements found only with the declared set."""


def details(report: LibraryReport) -> str:
    lines = [f"== {report.name} {report.version}"]
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
    for title, items in (
        ("missed", report.missed),
        ("false positive", report.false_positives),
        ("never ran (sample)", report.never_ran_sample),
    ):
        lines.extend(f"   {title}: {item.where}  {item.text}\n      {item.note}" for item in items)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lib", action="append", choices=lib_names(), help="run only this library (repeatable)")
    parser.add_argument("--json", metavar="FILE", help="save the reports as JSON")
    parser.add_argument("--sample", type=int, default=5, help="never-ran findings to print per library")
    parser.add_argument("--quiet", action="store_true", help="print the table only")
    parser.add_argument("--scopes", action="store_true",
                        help="also check in the model, auto and library scopes without entry points, and compare")
    parser.add_argument("--worker", metavar="NAME", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        run_worker(args.worker, args.json, args.sample, args.scopes)
        return 0
    reports = []
    for name in args.lib or lib_names():
        print(f"... {name}", file=sys.stderr, flush=True)
        reports.append(run_isolated(name, args.sample, args.scopes))
    if not args.quiet:
        for report in reports:
            print(details(report))
        print()
    print(table(reports))
    print(LEGEND)
    if args.scopes:
        print()
        print(scope_table(reports))
        print(SCOPE_LEGEND)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump([r.to_json() for r in reports], handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
