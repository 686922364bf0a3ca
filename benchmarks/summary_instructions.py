"""Instructions the per-file summaries take, this tree against a git revision, counted by valgrind.

CPU seconds on a machine shared by many processes move by a tenth from run to run, more than most
single speed-ups; the instructions a process executes barely move (two runs of one side agree to
a few parts in a million). Each side summarises the same sample of a tree's files (every k-th of
them in path order, `engine.summarize_source` as a worker runs it) under `valgrind
--tool=cachegrind`, and the instruction counts are printed, with a run summarising one file for
the start-up both share. Needs valgrind. Usage:

    .venv/bin/python benchmarks/summary_instructions.py [--ref main] [--tree PATH] [--files 60]

The default tree is transformers' models/ (see check_speed.py).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from same_findings import ROOT, byte_compile, export

# Summarise every k-th file of the tree so that `count` files are summarised.
SUMMARISE = """
import sys
from graphmend_bot.analysis.files import discover, read_source
from graphmend_bot.engine import summarize_source
tree, count = sys.argv[1], int(sys.argv[2])
files = sorted(discover([tree], [])[0], key=lambda f: f.path)
for source_file in files[:: max(1, len(files) // count)][:count]:
    summarize_source(read_source(source_file.path), source_file)
"""


def instructions(code_root: Path, tree: Path, count: int) -> int:
    return python_instructions(code_root, SUMMARISE, str(tree), str(count))


def python_instructions(code_root: Path, code: str, *arguments: str) -> int:
    """The instructions `python -c code arguments...` executes, `code_root` first on the path."""
    environment = {**os.environ, "PYTHONPATH": str(code_root), "PYTHONHASHSEED": "0"}
    command = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
               sys.executable, "-c", code, *arguments]
    # Run elsewhere: `-c` puts the working directory first on the path, before PYTHONPATH.
    completed = subprocess.run(command, capture_output=True, text=True, env=environment, check=True,
                               cwd=tempfile.gettempdir())
    found = re.search(r"I\s+refs:\s+([\d,]+)", completed.stderr)
    if found is None:
        sys.exit(f"no instruction count from valgrind: {completed.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", default="main", help="git revision to compare against (default: main)")
    parser.add_argument("--tree", type=Path, default=None)
    parser.add_argument("--files", type=int, default=60, help="how many files to summarise (default: 60)")
    args = parser.parse_args()
    if args.tree is None:
        from check_speed import default_tree

        args.tree = default_tree()
    with tempfile.TemporaryDirectory(prefix="graphmend-ref-") as folder:
        reference = Path(folder)
        export(args.ref, reference)
        byte_compile(reference)
        byte_compile(ROOT)
        start_up = instructions(ROOT, args.tree, 1)
        theirs = instructions(reference, args.tree, args.files) - start_up
        ours = instructions(ROOT, args.tree, args.files) - start_up
    print(f"tree: {args.tree}, {args.files} files; start-up and one file: {start_up / 1e6:,.0f} M instructions")
    print(f"{args.ref}: {theirs / 1e6:,.0f} M, this tree: {ours / 1e6:,.0f} M ({100 * (ours - theirs) / theirs:+.1f}%)")


if __name__ == "__main__":
    main()
