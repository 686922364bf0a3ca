"""Instructions of each part of the per-file summaries, and the most analysing only traced code could save.

The summaries dominate `graphmend check`'s CPU and their profile is flat, so the question is what
work could be left out. A sample of the files the prefilter keeps (every k-th, in path order) is
summarised under valgrind (instructions barely move between runs, unlike CPU seconds on a shared
machine) five ways, each net of the start-up:

- parse: `ast.parse` alone;
- definitions: the whole summary but no function body walked (FunctionAnalyzer.run skipped);
- summaries: as a worker makes them;
- traced bodies: only the bodies of functions the scope solver traces walked (its default scope
  on the whole tree, solved beforehand), every file still parsed;
- traced files: the same, and only the files holding a traced function.

The last two are bounds, not a design: the solver also reads what untraced functions say
(attribute writes, hierarchy.AttributeTypes; calls into traced code, untraced_callers.py), and it
needs every summary before it knows what is traced. Usage:

    .venv/bin/python benchmarks/summary_phases.py [--tree PATH] [--files 60]
"""

from __future__ import annotations

import argparse
import pickle
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from summary_instructions import ROOT, python_instructions

from graphmend_bot.analysis.files import discover, read_source
from graphmend_bot.analysis.model import ModuleSummary
from graphmend_bot.analysis.prefilter import relevant_modules, scan_source
from graphmend_bot.analysis.scope import Program
from graphmend_bot.engine import summarize_source
from graphmend_bot.gc_pause import collector_paused

# argv: the pickled (sample, traced) file and the way to summarise. The collector is paused
# throughout, as in a worker.
SUMMARISE = """
import ast, gc, pickle, sys
from graphmend_bot import engine
from graphmend_bot.analysis import summary
from graphmend_bot.analysis.files import read_source
from graphmend_bot.analysis.function import FunctionAnalyzer
sample, traced = pickle.load(open(sys.argv[1], "rb"))
way = sys.argv[2]
sources = [(read_source(f.path), f) for f in sample]
gc.disable()
if way == "parse":
    for source, _ in sources:
        ast.parse(source)
if way in ("definitions", "summaries", "traced bodies", "traced files"):
    walk = FunctionAnalyzer.run
    if way == "definitions":
        FunctionAnalyzer.run = lambda analyzer: None
    if way.startswith("traced"):
        module = []
        FunctionAnalyzer.run = lambda analyzer: walk(analyzer) if (module[-1], analyzer.summary.qualname) in traced else None
        summarize = engine.summarize_module
        engine.summarize_module = lambda source, path, name, *rest: module.append(name) or summarize(source, path, name, *rest)
    holding = {name for name, _ in traced}
    for source, f in sources:
        if way != "traced files" or f.module in holding:
            engine.summarize_source(source, f)
"""
WAYS = ("parse", "definitions", "summaries", "traced bodies", "traced files")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=None)
    parser.add_argument("--files", type=int, default=60, help="how many files to summarise (default: 60)")
    args = parser.parse_args()
    if args.tree is None:
        from check_speed import default_tree

        args.tree = default_tree()
    files, _ = discover([str(args.tree)], ())
    scans = [scan_source(read_source(f.path), f.module, f.is_package) for f in files]
    relevant = relevant_modules(scans)
    kept = sorted((f for f in files if f.module in relevant), key=lambda f: f.path)
    with collector_paused():
        outcomes = [summarize_source(read_source(f.path), f) for f in kept]
    traced = Program([o for o in outcomes if isinstance(o, ModuleSummary)], ()).traced_functions()
    sample = kept[:: max(1, len(kept) // args.files)][: args.files]
    with tempfile.NamedTemporaryFile(suffix=".pkl") as held:
        pickle.dump(([replace(f, path=str(Path(f.path).resolve())) for f in sample], traced), held)
        held.flush()
        start_up = python_instructions(ROOT, SUMMARISE, held.name, "start-up")
        counts = {way: python_instructions(ROOT, SUMMARISE, held.name, way) - start_up for way in WAYS}
    lines = sum(read_source(f.path).count("\n") for f in sample)
    print(f"tree: {args.tree}: {len(sample)} of the {len(kept)} files the prefilter keeps ({lines} lines); "
          f"{len(traced)} functions traced in the whole tree")
    whole = counts["summaries"]
    for way in WAYS:
        print(f"{way:<14} {counts[way] / 1e6:9,.0f} M instructions  {100 * counts[way] / whole:5.1f}% of the summaries")


if __name__ == "__main__":
    main()
