"""Time `graphmend check` on transformers' models/ tree beside `ruff check --select ALL`.

Both run cold (both with --no-cache) as subprocesses of this script,
alternating, and the median of --runs is reported. Usage:

    .venv/bin/python benchmarks/check_speed.py [--tree PATH] [--runs 3]

The default tree is the models/ directory of the installed transformers package (4.52.4 in
benchmarks; `pip install transformers==4.52.4` into the venv if missing). When the ratio moves,
`benchmarks/check_profile.py` says which phase moved (prefilter, parsing, summaries, pickling,
scope), in CPU seconds; `benchmarks/same_findings.py --ref main --ab 3` proves a speed change kept
every finding and splits the CPU seconds into the main process (start-up, discovery, its share
of the files, scope, report, exit) and its workers, which is what a loaded machine's wall time
cannot show.
The venv's `graphmend` script is timed: one installed before its entry point became `cli:run`
calls `main` and still pays the interpreter's teardown (reinstall: `pip install -e .`).
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path


def default_tree() -> Path:
    try:
        import transformers
    except ImportError:
        sys.exit("transformers is not installed: pip install transformers==4.52.4, or pass --tree")
    return Path(transformers.__file__).parent / "models"


def timed(command: list[str]) -> float:
    start = time.perf_counter()
    completed = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    if completed.returncode not in (0, 1):
        sys.exit(f"{command[0]} failed ({completed.returncode}): {completed.stderr[-2000:]}")
    return elapsed


def byte_compile_graphmend() -> None:
    """Write graphmend_bot's bytecode cache, as `pip install` does for an installed package.

    This machine sets PYTHONDONTWRITEBYTECODE, so an editable checkout never gets one and every
    timed `graphmend check` would first compile its ~170 modules from source (0.08 s a run, start-up
    no user pays after the first run). Python still reads a cache that exists; it is git-ignored.
    """
    import graphmend_bot

    compileall.compile_dir(Path(graphmend_bot.__file__).parent, quiet=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=None)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    tree = args.tree or default_tree()
    bin_dir = Path(sys.executable).parent
    graphmend = [str(bin_dir / "graphmend"), "check", "--no-cache", "--exit-zero", "--output-format", "json", str(tree)]
    ruff_exe = shutil.which("ruff", path=str(bin_dir)) or shutil.which("ruff")
    if ruff_exe is None:
        sys.exit("ruff is not installed")
    ruff = [ruff_exe, "check", "--select", "ALL", "--no-cache", "--exit-zero", "--quiet", str(tree)]

    byte_compile_graphmend()
    files = list(tree.rglob("*.py"))
    lines = sum(p.read_bytes().count(b"\n") for p in files)
    print(f"tree: {tree}")
    print(f"files: {len(files)}, lines: {lines}, cores: {os.cpu_count()}")
    ours, theirs = [], []
    for _ in range(args.runs):
        ours.append(timed(graphmend))
        theirs.append(timed(ruff))
    ours_median, ruff_median = statistics.median(ours), statistics.median(theirs)
    print(f"graphmend check:        {ours_median:6.2f} s  (runs: {', '.join(f'{t:.2f}' for t in ours)})")
    print(f"ruff check --select ALL: {ruff_median:6.2f} s  (runs: {', '.join(f'{t:.2f}' for t in theirs)})")
    print(f"ratio graphmend / ruff:  {ours_median / ruff_median:6.2f}x  (target <= 1.00x)")


if __name__ == "__main__":
    main()
