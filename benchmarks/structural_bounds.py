"""The most each structural change to the per-file summaries could save, from one pass over a tree.

The summaries are most of a cold `graphmend check` (benchmarks/check_profile.py) and their profile
is flat, so speed needs less work, not cheaper work. This summarises every file the prefilter keeps
once, in this process, timing each file and each function body walk (FunctionAnalyzer.run) in CPU
seconds, solves the default scope on the result, and prints three bounds, each before the cost of
the design that would reach it:

- lazy bodies: the walks of untraced functions, and of those the solver does not read either
  (attribute writes, calls by a traced callee's name, compile targets: check_profile.solver_read);
- skipped files: the summaries of files holding no traced function, and no function read at all;
- a function memo: the walks of a body whose text (docstring blanked) an earlier file already had,
  as if its module context never mattered (it does: resolved names, class attributes, imports);
  and of those, the walks whose summary equals the first walk's once its rows are counted from the
  def and its own qualname and class blanked (shifted_summary): what a memo that checks the context
  could hand back, shifted, where the context changes nothing.

check_profile.py --traced-bound measures the first two by summarising the tree three times;
summary_phases.py measures them in instructions on a sample. Usage:

    .venv/bin/python benchmarks/structural_bounds.py [--tree PATH]
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

from graphmend_bot.analysis.files import discover, read_source
from graphmend_bot.analysis.function import FunctionAnalyzer
from graphmend_bot.analysis.model import ModuleSummary
from graphmend_bot.analysis.prefilter import relevant_modules, scan_source
from graphmend_bot.analysis.scope import Program
from graphmend_bot.config import Config
from graphmend_bot.engine import summarize_source
from graphmend_bot.gc_pause import collector_paused

sys.path.insert(0, str(Path(__file__).parent))  # the sibling scripts below are no package
from check_profile import solver_read
from check_speed import default_tree


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=None)
    args = parser.parse_args()
    tree = str(args.tree or default_tree())
    files, _ = discover([tree], [])
    scans = [scan_source(read_source(f.path), f.module, f.is_package) for f in files]
    relevant = relevant_modules(scans, [])
    wanted = [f for f in files if f.module in relevant]

    # (function id, text digest, CPU seconds, shifted summary digest)
    walks: list[tuple[tuple[str, str], str, float, str]] = []
    walking = [""]  # the module being summarised
    run = FunctionAnalyzer.run

    def timed_run(analyzer: FunctionAnalyzer) -> None:
        start = time.process_time()
        run(analyzer)
        seconds = time.process_time() - start
        digest = hashlib.md5((analyzer.text or "").encode()).hexdigest()
        walks.append(((walking[0], analyzer.summary.qualname), digest, seconds, shifted_summary(analyzer)))

    FunctionAnalyzer.run = timed_run  # type: ignore[method-assign, assignment]
    file_seconds: dict[str, float] = {}
    summaries: list[ModuleSummary] = []
    with collector_paused():
        for source_file in wanted:
            walking[0] = source_file.module
            start = time.process_time()
            outcome = summarize_source(read_source(source_file.path), source_file)
            file_seconds[source_file.module] = time.process_time() - start
            if isinstance(outcome, ModuleSummary):
                summaries.append(outcome)
        FunctionAnalyzer.run = run  # type: ignore[method-assign]
        summarised = {summary.path for summary in summaries}
        unread = [(f.path, scan.imports) for f, scan in zip(files, scans) if f.path not in summarised]
        program = Program(summaries, Config().entry_points, unread_imports=unread)  # as check_profile does
        traced = set(program.traced_functions())
        read = traced | solver_read(summaries, traced)

    total = sum(file_seconds.values())

    def share(seconds: float) -> str:
        return f"{seconds:6.2f} s ({100 * seconds / total:4.1f}%)"

    walked = sum(walk[2] for walk in walks)
    print(f"tree: {tree}\n{len(wanted)} files summarised: {total:.2f} s CPU; body walks {share(walked)} "
          f"over {len(walks)} functions, {len(traced)} traced, {len(read)} traced or read by the solver")
    print(f"lazy bodies:    untraced walks {share(sum(w[2] for w in walks if w[0] not in traced))}; "
          f"neither traced nor read {share(sum(w[2] for w in walks if w[0] not in read))}")
    for label, functions in (("no traced function", traced), ("no function traced or read", read)):
        modules = {module for module, _ in functions}
        dropped = [module for module in file_seconds if module not in modules]
        print(f"skipped files:  {len(dropped)} with {label}: {share(sum(file_seconds[m] for m in dropped))}")
    by_text: dict[str, list[tuple[float, str]]] = defaultdict(list)
    for _, digest, seconds, shifted in walks:
        by_text[digest].append((seconds, shifted))
    repeated = sum(seconds for times in by_text.values() for seconds, _ in times[1:])
    same = sum(seconds for times in by_text.values() for seconds, shifted in times[1:] if shifted == times[0][1])
    print(f"function memo:  {len(by_text)} distinct texts; walks of repeated ones {share(repeated)}; "
          f"of those, the same summary as the text's first walk once shifted {share(same)}")


_NUMBER = re.compile(r"(?<![\w.])\d+(?![\w.])")


def shifted_summary(analyzer: FunctionAnalyzer) -> str:
    """A digest of the summary `analyzer` filled, its rows counted from the def and its own qualname and
    class blanked. An estimate: a number inside the def's rows that is no row is shifted too, and differs
    between copies at other rows (so this errs toward "differs")."""
    summary = analyzer.summary
    first, last = analyzer.node.lineno, analyzer.node.end_lineno or analyzer.node.lineno
    blanked = dataclasses.replace(summary, qualname="", class_qualname=None if summary.class_qualname is None else "")
    text = repr(blanked)
    if summary.class_qualname:
        text = text.replace(summary.class_qualname, "CLASS")
    text = _NUMBER.sub(lambda m: f"row{int(m.group()) - first}" if first <= int(m.group()) <= last else m.group(), text)
    return hashlib.md5(text.encode()).hexdigest()


if __name__ == "__main__":
    main()
