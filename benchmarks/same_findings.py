"""Prove a speed change changed no finding: `graphmend check` of this tree against a git revision.

The revision's `graphmend_bot` is exported (`git archive`) to a temporary folder and both run
`check --output-format json` on the same tree with this interpreter, with the cyclic collector
and the pool as in the CLI. The finding lists (every field, sorted) must be
identical; the first differences are printed otherwise. With `--ab N` both also run N times more,
alternating, and the median CPU seconds are printed, of the main process (start-up, discovery,
scope, report, exit, and since shared_map.py its share of the files) and of its workers, their
total, and the wall seconds: CPU time is what a shared machine disturbs least. Usage:

    .venv/bin/python benchmarks/same_findings.py [--ref main] [--tree PATH] [--ab 3]

The default tree is transformers' models/ (see check_speed.py). Exit status 1 when they differ.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def export(ref: str, into: Path) -> None:
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "graphmend_bot"], check=True, capture_output=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)


def byte_compile(code_root: Path) -> None:
    """Both sides start from a bytecode cache (see check_speed.byte_compile_graphmend): without
    one, the side that has it would be timed against one that compiles its modules every run."""
    compileall.compile_dir(code_root / "graphmend_bot", quiet=1)


# The CLI as its script runs it (`run`: main, then the exit, where it has one), writing where argv[1]
# says the CPU seconds of its workers, reaped by the time main returns.
CLI_WITH_CPU = """
import resource, sys
from graphmend_bot import cli
where = sys.argv.pop(1)
check = cli.main

def main(argv=None, **options):
    status = check(sys.argv[1:], **options)
    workers = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(where, "w") as out:
        out.write(str(workers.ru_utime + workers.ru_stime))
    return status

cli.main = main
cli.run() if hasattr(cli, "run") else sys.exit(main())
"""


@dataclass
class Run:
    report: bytes
    main_cpu: float
    worker_cpu: float
    wall: float


def run_check(code_root: Path, tree: Path) -> Run:
    """`graphmend check` with `code_root` first on the path, timed: the CPU of the whole process tree
    (what this process's reaped children used meanwhile), less its workers', is its main process's,
    exit included."""
    environment = {**os.environ, "PYTHONPATH": str(code_root)}
    with tempfile.NamedTemporaryFile("r", suffix=".cpu") as cpu:
        command = [sys.executable, "-c", CLI_WITH_CPU, cpu.name,
                   "check", "--exit-zero", "--output-format", "json", str(tree)]
        before = _children_cpu()
        start = time.perf_counter()
        completed = subprocess.run(command, capture_output=True, env=environment, cwd=tempfile.gettempdir())
        wall = time.perf_counter() - start
        if completed.returncode != 0:
            sys.exit(f"check failed with {code_root} ({completed.returncode}): {completed.stderr.decode()[-2000:]}")
        worker_cpu = float(cpu.read())
    return Run(completed.stdout, _children_cpu() - before - worker_cpu, worker_cpu, wall)


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def normalized(report: bytes) -> list[str]:
    findings: list[dict[str, Any]] = json.loads(report)
    return sorted(json.dumps(finding, sort_keys=True) for finding in findings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", default="main", help="git revision to compare against (default: main)")
    parser.add_argument("--tree", type=Path, default=None)
    parser.add_argument("--ab", type=int, default=0, metavar="N", help="then time both N times, alternating")
    args = parser.parse_args()
    if args.tree is None:
        sys.path.insert(0, str(Path(__file__).parent))
        from check_speed import default_tree

        args.tree = default_tree()
    with tempfile.TemporaryDirectory(prefix="graphmend-ref-") as folder:
        reference = Path(folder)
        export(args.ref, reference)
        byte_compile(reference)
        byte_compile(ROOT)
        runs = {"ref": [run_check(reference, args.tree)], "here": [run_check(ROOT, args.tree)]}
        theirs, ours = normalized(runs["ref"][0].report), normalized(runs["here"][0].report)
        for _ in range(args.ab):
            runs["ref"].append(run_check(reference, args.tree))
            runs["here"].append(run_check(ROOT, args.tree))
    print(f"tree: {args.tree}")
    print(f"findings: {args.ref} {len(theirs)}, this tree {len(ours)}")
    if args.ab:
        for name, label in (("ref", args.ref), ("here", "this tree")):
            timed = runs[name][1:]
            main_cpu, worker_cpu = [r.main_cpu for r in timed], [r.worker_cpu for r in timed]
            total = [r.main_cpu + r.worker_cpu for r in timed]
            print(f"{label:>12}: CPU main {statistics.median(main_cpu):5.2f} s ({', '.join(f'{c:.2f}' for c in main_cpu)}), "
                  f"workers {statistics.median(worker_cpu):5.2f} s ({', '.join(f'{c:.2f}' for c in worker_cpu)}), "
                  f"total {statistics.median(total):5.2f} s ({', '.join(f'{c:.2f}' for c in total)}), "
                  f"wall {statistics.median(r.wall for r in timed):5.2f} s (medians)")
        print(f"load average: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if theirs == ours:
        print("identical findings")
        return
    only_ref, only_here = sorted(set(theirs) - set(ours)), sorted(set(ours) - set(theirs))
    for label, lines in ((f"only in {args.ref}", only_ref), ("only in this tree", only_here)):
        print(f"{label}: {len(lines)}")
        for line in lines[:10]:
            print(f"  {line}")
    sys.exit(1)


if __name__ == "__main__":
    main()
