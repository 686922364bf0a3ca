"""The least time any Python analysis of a tree's syntax trees can take, beside ruff's whole check.

`graphmend check` parses every file the prefilter keeps (analysis/prefilter.py) and walks its
syntax tree. Parsing with `ast.parse` and visiting every node with an `ast.NodeVisitor` that does
nothing is a floor for that in CPython: no analysis, no scope solving, no results to send between
processes. This script times that floor in CPU seconds on the same files, divides it by the cores
as a perfectly parallel run would, and prints it beside `ruff check --select ALL` (cold, median of
--runs), so a speed target can be judged against what the language allows. Usage:

    .venv/bin/python benchmarks/python_floor.py [--tree PATH] [--runs 3]
"""

from __future__ import annotations

import argparse
import ast
import gc
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from graphmend_bot.analysis.files import discover, read_source
from graphmend_bot.analysis.prefilter import relevant_modules, scan_source


def kept_sources(tree: str) -> list[str]:
    """The texts of the files `graphmend check` parses on this tree (no configured entry points)."""
    files, _ = discover([tree])
    texts = {f.module: read_source(f.path) for f in files}
    scans = [scan_source(texts[f.module], f.module, f.is_package) for f in files]
    relevant = relevant_modules(scans)
    return [texts[f.module] for f in files if f.module in relevant]


def cpu_seconds(sources: list[str], visit: bool) -> float:
    visitor = ast.NodeVisitor()
    start = time.process_time()
    for source in sources:
        syntax_tree = ast.parse(source)
        if visit:
            visitor.visit(syntax_tree)
        del syntax_tree  # dropped at once, as graphmend's workers do
    return time.process_time() - start


def ruff_seconds(tree: str, runs: int) -> float:
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        sys.exit("ruff is not installed")
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(
            [ruff, "check", "--select", "ALL", "--no-cache", "--exit-zero", "--quiet", tree],
            stdout=subprocess.DEVNULL,
            check=False,
        )
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=None)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if args.tree is None:
        sys.path.insert(0, str(Path(__file__).parent))
        from check_speed import default_tree

        args.tree = default_tree()
    sources = kept_sources(str(args.tree))
    cores = os.cpu_count() or 1
    gc.disable()  # as the check's summaries run (gc_pause.py)
    parse = cpu_seconds(sources, visit=False)
    walk = cpu_seconds(sources, visit=True)
    gc.enable()
    ruff = ruff_seconds(str(args.tree), args.runs)
    print(f"tree: {args.tree}")
    print(
        f"files graphmend parses: {len(sources)}, lines: {sum(s.count(chr(10)) for s in sources)}, cores: {cores}"
    )
    print(f"ast.parse alone:                     {parse:6.2f} s CPU")
    print(
        f"ast.parse + a visitor doing nothing: {walk:6.2f} s CPU, {walk / cores:6.2f} s wall on {cores} cores"
    )
    print(f"ruff check --select ALL:             {ruff:6.2f} s wall (median of {args.runs})")
    print(f"floor / ruff:                         {walk / cores / ruff:6.2f}x")


if __name__ == "__main__":
    main()
