"""Where `graphmend check` spends its time, phase by phase, so the next regression is easy to find.

Each phase runs in this process, one file after another, and is timed in CPU seconds (this
process only), which shared machines disturb far less than wall time. Then the real parallel
`check` runs once for its wall time. Usage:

    .venv/bin/python benchmarks/check_profile.py [--tree PATH] [--config FILE] [--cprofile PHASE]

`--cprofile summaries|scope` prints cProfile's top functions of that phase. `--traced-bound` adds
the summaries once more with only the traced functions' bodies walked (the others keep their
signatures): the most that analysing only what the scope solver reaches could save, before the
cost of finding that out; and once more walking also the untraced bodies the solver reads
(solver_read), the bound of a two-pass design that stays exact, and the summaries of the files
holding none of those (the bound of one that drops whole files). The last line models the wall on
`--cores` idle cores: the pool's phases shared, the rest serial. The default tree is
transformers' models/ (see check_speed.py). structural_bounds.py takes the same bounds, and a
function memo's, from a single summary pass.
"""

from __future__ import annotations

import argparse
import ast
import cProfile
import io
import pickle
import pstats
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from graphmend_bot import engine
from graphmend_bot.analysis.files import SourceFile, discover, read_source
from graphmend_bot.analysis.function import FunctionAnalyzer
from graphmend_bot.analysis.model import ModuleSummary
from graphmend_bot.analysis.prefilter import FileScan, relevant_modules, scan_source
from graphmend_bot.analysis.scope import Program, _TensorFlow
from graphmend_bot.analysis.summary import summarize_module
from graphmend_bot.analysis.untraced_callers import called_name, callee_names
from graphmend_bot.config import Config, load_config
from graphmend_bot.engine import Workspace, summarize_source
from graphmend_bot.findings import FileError
from graphmend_bot.gc_pause import collector_paused
from graphmend_bot.report import render_json

T = TypeVar("T")
ROWS: list[tuple[str, float, str]] = []


def phase(name: str, action: Callable[[], T], note: Callable[[T], str] = lambda _: "",
          profile: bool = False) -> T:
    profiler = cProfile.Profile() if profile else None
    start = time.process_time()
    if profiler is not None:
        profiler.enable()
    value = action()
    if profiler is not None:
        profiler.disable()
    ROWS.append((name, time.process_time() - start, note(value)))
    if profiler is not None:
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(25)
        print(out.getvalue())
    return value


def import_seconds() -> float:
    """Wall time of `import graphmend_bot.cli` in a fresh interpreter (the CLI's start-up), best of 3."""
    runs = []
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import graphmend_bot.cli"], check=True)
        runs.append(time.perf_counter() - start)
    return min(runs)


@contextmanager
def walking_only(traced: set[tuple[str, str]]) -> Iterator[None]:
    """FunctionAnalyzer walks the bodies of `traced` functions only (module, qualname), for the bound."""
    run = FunctionAnalyzer.run
    walking: list[str] = []  # the module being summarised

    def run_traced(analyzer: FunctionAnalyzer) -> None:
        if (walking[-1], analyzer.summary.qualname) in traced:
            run(analyzer)

    def summarize(source: str, path: str, module: str, *rest: bool) -> ModuleSummary:
        walking.append(module)
        return summarize_module(source, path, module, *rest)

    FunctionAnalyzer.run = run_traced  # type: ignore[method-assign, assignment]
    engine.summarize_module = summarize  # type: ignore[assignment]
    try:
        yield
    finally:
        FunctionAnalyzer.run = run  # type: ignore[method-assign]
        engine.summarize_module = summarize_module


def solver_read(summaries: list[ModuleSummary], traced: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """Untraced functions whose bodies the solver still reads (so a two-pass design walks them
    too): attribute writes (hierarchy.AttributeTypes), calls by a traced callee's name
    (untraced_callers.py, caller_arguments.py), and the functions holding a compile target."""
    names = callee_names(traced)
    read: set[tuple[str, str]] = set()
    for summary in summaries:
        holders = {target.in_function for target in summary.compile_targets}
        for qualname, function in summary.functions.items():
            if function.attribute_writes or qualname in holders or any(
                called_name(site.ref) in names for site in function.calls
            ):
                read.add((summary.module, qualname))
    return read - traced


def timed_summary(source: str, source_file: SourceFile, seconds: dict[str, float]) -> ModuleSummary | FileError:
    start = time.process_time()
    outcome = summarize_source(source, source_file)
    seconds[source_file.module] = time.process_time() - start
    return outcome


def scan_all(files: list[SourceFile]) -> list[FileScan]:
    return [scan_source(read_source(f.path), f.module, f.is_package) for f in files]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=None)
    parser.add_argument("--config", type=Path, default=None)
    parser.add_argument("--cprofile", choices=("summaries", "scope"), default=None)
    parser.add_argument("--cores", type=int, default=2,
                        help="the cores of the serial/parallel model printed last (default: 2)")
    parser.add_argument("--traced-bound", action="store_true",
                        help="time the summaries again, walking only the traced functions' bodies")
    args = parser.parse_args()
    if args.tree is None:
        sys.path.insert(0, str(Path(__file__).parent))
        from check_speed import default_tree

        args.tree = default_tree()
    tree = str(args.tree)
    config = load_config(args.config, start=args.tree) if args.config else Config()

    ROWS.append(("python + import graphmend_bot.cli (wall)", import_seconds(), ""))
    files, _ = phase("discover files", lambda: discover([tree], config.exclude), lambda r: f"{len(r[0])} files")
    scans = phase("prefilter: read + scan text of every file", lambda: scan_all(files))
    configured = [entry.split(":", 1)[0] for entry in config.entry_points]
    relevant = phase("prefilter: import closure", lambda: relevant_modules(
        scans, [s.module for s in scans if any(p == s.module or p.startswith(f"{s.module}.") for p in configured)]))
    wanted = [f for f in files if f.module in relevant]
    sources = phase("read relevant files", lambda: [read_source(f.path) for f in wanted],
                    lambda r: f"{len(r)} files, {sum(s.count(chr(10)) for s in r)} lines")
    # Each tree is dropped at once, as the workers do (keeping them all makes the collector crawl).
    with collector_paused():
        phase("  ast.parse alone", lambda: [ast.parse(s, f.path) and None for s, f in zip(sources, wanted)])
    file_seconds: dict[str, float] = {}  # module -> CPU seconds of its summary (the whole-file bound below)
    outcomes = phase("summaries (ast.parse included)",
                     lambda: [timed_summary(s, f, file_seconds) for s, f in zip(sources, wanted)],
                     profile=args.cprofile == "summaries")
    summaries = [o for o in outcomes if isinstance(o, ModuleSummary)]
    errors = [o for o in outcomes if isinstance(o, FileError)]
    shipped = phase("pickle summaries (each worker)", lambda: [pickle.dumps(s) for s in summaries],
                    lambda r: f"{sum(map(len, r)) // 1024} KiB")
    with collector_paused():  # as engine.Workspace does
        summaries = phase("unpickle summaries (parent)", lambda: [pickle.loads(b) for b in shipped])

    traced: set[tuple[str, str]] = set()

    def scope() -> int:
        summarised = {summary.path for summary in summaries}
        unread = [(f.path, scan.imports) for f, scan in zip(files, scans) if f.path not in summarised]
        program = Program(summaries, config.entry_points, unread_imports=unread)  # as engine.Workspace does
        reached = phase("  traced functions (scope walk)", program.traced_functions, lambda r: f"{len(r)} functions")
        traced.update(reached)
        solver = phase("  call targets + attribute types", lambda: _TensorFlow(program, traced))
        phase("  tensor-flow fixpoint", solver.solve)
        # The solver above is the one traced_drafts would build: the passes reuse it, as in the CLI.
        found = phase("  the drafts that stand + the passes after them", lambda: program.drafts_of(solver))
        phase("  unproven parameters (caller_arguments.py)", lambda: program.unproven_parameters(
            {(t.module.module, t.function.qualname) for t in found if t.draft.deps.params}))
        return len(found)

    with collector_paused():  # as engine.Workspace.result does
        phase("scope + tensor flow (traced_drafts, all of it)", scope, lambda n: f"{n} findings",
              profile=args.cprofile == "scope")
    if args.traced_bound:
        with walking_only(traced):
            phase("summaries, traced bodies only (a bound)", lambda: [summarize_source(s, f) for s, f in zip(sources, wanted)],
                  lambda _: f"{sum(len(s.functions) for s in summaries)} functions, {len(traced)} traced")
        read = traced | solver_read(summaries, traced)
        with walking_only(read):
            phase("summaries, traced + solver-read bodies (a bound)",
                  lambda: [summarize_source(s, f) for s, f in zip(sources, wanted)], lambda _: f"{len(read)} walked")
        # Whole files: a first pass that dropped every file holding no function the solver walks
        # would save at most their summaries.
        walked = {module for module, _ in read}
        dropped = [module for module in file_seconds if module not in walked]
        ROWS.append(("summaries of files holding no such function", sum(file_seconds[m] for m in dropped),
                     f"{len(dropped)} files; {sum(file_seconds[m] for m in file_seconds if m not in {t[0] for t in traced}):.2f} s "
                     "in the files holding no traced function"))

    result = Workspace([tree], config).result()
    phase("render json", lambda: render_json(result), lambda r: f"{len(r) // 1024} KiB")

    command = [str(Path(sys.executable).parent / "graphmend"), "check", "--exit-zero", "--output-format", "json", tree]
    if args.config:
        command[2:2] = ["--config", str(args.config)]
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, check=False)
    ROWS.append(("graphmend check, the CLI (wall)", time.perf_counter() - start, f"{len(errors)} file errors"))

    print(f"tree: {tree}")
    for name, seconds, note in ROWS:
        print(f"{name:<52} {seconds:7.2f} s  {note}")
    print("(CPU seconds of this process unless marked wall; the indented rows are parts of the row "
          "after them; summaries, parsing and scope run with the cyclic "
          "GC paused, as in the CLI)")
    print(cores_model(args.cores))


def cores_model(cores: int) -> str:
    """The check's wall on `cores` idle cores, from the CPU rows: the pool's phase (scan, summaries,
    pickling in the workers, unpickling in the parent's result thread) is shared by every process;
    start-up, discovery, the import closure, the solve and the report run in the parent alone."""
    seconds = {name: value for name, value, _ in ROWS}
    shared = sum(seconds[name] for name in ("prefilter: read + scan text of every file", "summaries (ast.parse included)",
                                            "pickle summaries (each worker)", "unpickle summaries (parent)"))
    serial = sum(seconds[name] for name in ("python + import graphmend_bot.cli (wall)", "discover files",
                                            "prefilter: import closure", "scope + tensor flow (traced_drafts, all of it)",
                                            "render json"))
    wall = shared / cores + serial
    return (f"model on {cores} cores: pool phase {shared:.2f} s CPU / {cores} = {shared / cores:.2f} s, serial "
            f"{serial:.2f} s ({100 * serial / wall:.0f}% of {wall:.2f} s); the solve alone "
            f"{100 * seconds['scope + tensor flow (traced_drafts, all of it)'] / wall:.0f}%")


if __name__ == "__main__":
    main()
