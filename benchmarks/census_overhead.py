"""Census cost and recall: a test suite run plain and with `--graphmend-census`, side by side.

For each suite: wall time of the plain run and of the censused run (the median of `--repeat`
runs each), their ratio, how many calls the census explained, the break lines it recorded, and,
for the bundled transformers suite, census recall of Dynamo's break lines on the code the tests
run (ground truth: `torch._dynamo.explain` plus the graph_breaks log on each model's own call,
benchmarks/ground_truth.py).

    .venv/bin/python benchmarks/census_overhead.py                  # the bundled transformers suite
    .venv/bin/python benchmarks/census_overhead.py --suite DIR --root DIR   # any project's tests
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
BUNDLED = HERE / "census" / "test_transformers_tiny.py"


def run(suite: str, cwd: Path, census: Path | None, root: str | None) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one pytest run. CPU time (user + system of the child) is the
    steadier figure on a shared machine, where other jobs stretch the wall time of both runs unequally."""
    command = [sys.executable, "-m", "pytest", suite, "-q", "-p", "no:cacheprovider", "-x", "--no-header"]
    if census is not None:
        command += ["--graphmend-census", f"--graphmend-census-file={census}"]
        if root:
            command.append(f"--graphmend-census-root={root}")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        sys.exit(f"pytest failed to run ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def ground_truth_lines(families: list[str], root: str) -> set[tuple[str, int]]:
    sys.path.insert(0, str(HERE))
    from ground_truth import Tree, dynamo_breaks
    from hf_models import MODELS

    lines: set[tuple[str, int]] = set()
    for family in families:
        model, args, kwargs = MODELS[family]()
        explained = dynamo_breaks(model, args, kwargs, Tree([root]))
        lines |= {(str(Path(path).relative_to(root).as_posix()), line) for path, line in explained.lines}
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suite", default=str(BUNDLED), help="a pytest target (default: the bundled suite)")
    parser.add_argument("--cwd", default=".", help="where to run pytest")
    parser.add_argument("--root", help="census root (default for the bundled suite: the transformers package)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each kind; the median is reported")
    args = parser.parse_args()
    bundled = Path(args.suite).resolve() == BUNDLED
    root = args.root
    if bundled and root is None:
        import transformers

        root = str(Path(transformers.__file__).resolve().parent)
    with tempfile.TemporaryDirectory() as scratch:
        census_file = Path(scratch) / "census.json"
        plain = [run(args.suite, Path(args.cwd), None, None) for _ in range(args.repeat)]
        censused = [run(args.suite, Path(args.cwd), census_file, root) for _ in range(args.repeat)]
        data = json.loads(census_file.read_text())
    p, c = statistics.median(wall for wall, _ in plain), statistics.median(wall for wall, _ in censused)
    p_cpu, c_cpu = statistics.median(cpu for _, cpu in plain), statistics.median(cpu for _, cpu in censused)
    calls, failed = len(data["calls"]), sum(1 for call in data["calls"] if call["error"])
    recorded = {(b["path"], b["line"]) for b in data["breaks"]}
    print(f"suite: {args.suite}")
    print(f"plain run      {p:8.1f} s")
    print(f"census run     {c:8.1f} s   ({c / p:.2f}x)")
    print(f"CPU time       {p_cpu:8.1f} s plain, {c_cpu:.1f} s with the census   ({c_cpu / max(p_cpu, 1e-9):.2f}x)")
    print(f"calls explained {calls} ({failed} could not be), break lines recorded {len(recorded)}")
    explaining = sum(call.get("seconds", 0.0) for call in data["calls"])
    print(f"explaining     {explaining:8.1f} s   ({explaining / max(c - p, 1e-9):.0%} of the census's extra time; "
          "the rest: the traced first calls, importing Dynamo, the census file)")
    for call in sorted(data["calls"], key=lambda call: -call.get("seconds", 0.0))[:5]:
        print(f"  {call.get('seconds', 0.0):6.1f} s  {call['target']}  ({call['test']})")
    if bundled and root:
        sys.path.insert(0, str(HERE / "census"))
        from test_transformers_tiny import FAMILIES

        truth = ground_truth_lines(FAMILIES, root)
        found = truth & recorded
        print(f"census recall of Dynamo's break lines on the models' own calls: {len(found)}/{len(truth)}"
              f" = {len(found) / max(1, len(truth)):.2f}")
        for path, line in sorted(truth - recorded):
            print(f"  missed {path}:{line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
