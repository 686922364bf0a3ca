"""Recall and precision of `graphmend check` against TorchDynamo's own break lines.

Two suites:
  zoo           benchmarks/zoo/: cases written for this benchmark (modules and packages); each
                exposes `case()` -> (callable, args[, kwargs]) and optionally `driver()`, the
                eager program around the compiled code, run for line coverage.
  transformers  the 11 transformers 4.52.4 families of benchmarks/hf_models.py; `check` gets
                the whole installed transformers package as context (cross-module helpers such
                as modeling_rope_utils resolve) and reports only the files the runs touched.

Usage: python benchmarks/detect_accuracy.py [--suite zoo|transformers|all] [--case NAME ...] [-v]
"""

from __future__ import annotations

import argparse
import functools
import importlib
import os
import sys
import time
import types
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ground_truth import Explained, Location, Tree, dynamo_breaks, executed_lines, normalise

from graphmend_bot.engine import check
from graphmend_bot.findings import Finding

ZOO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "zoo")

METHODOLOGY = """\
Methodology
  Ground truth: torch._dynamo.reset(); torch._dynamo.explain(fn)(*args, **kwargs). Every break
  reason is mapped to one line: the innermost frame of its user_stack inside the analysed files.
  Added: the breaks Dynamo logs (graph_breaks artifact) that break_reasons leaves out, mapped the
  same way: a break inside a loop makes Dynamo skip the whole frame (graph_count 0), and a break
  that opens a resumed frame with no tensor op yet is not counted, yet both run eagerly.
  Findings: graphmend_bot.engine.check on the analysed files. Findings on the same line are one
  reported line; it matches a break line when the break lies within its [row, end_row] span.
  Recall    = break lines matched by a reported line / break lines.
  Precision = confirmed / (confirmed + false positives), where a reported line is
    confirmed       when a break line lies in its span,
    false positive  when every line of its span that holds code ran in one eager run of the
                    case (under sys.settrace) and Dynamo did not break there,
    not exercised   otherwise: code of its span never ran on the benchmark input (a branch not
                    taken, or an `and` that short-circuited before its tensor operand, as in
                    `x.dtype == torch.float16 and torch.isinf(x).any()` on FP32 input), so it
                    can be neither confirmed nor refuted; listed apart, left out of precision."""


@dataclass
class Case:
    name: str
    context: list[str]  # paths given to check()
    tree: Tree  # files whose frames count as analysed code
    build: Callable[[], tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any], Callable[[], Any] | None]]


@dataclass(frozen=True)
class Reported:
    path: str
    row: int
    end_row: int
    codes: tuple[str, ...]
    text: str

    def covers(self, location: Location) -> bool:
        return location[0] == self.path and self.row <= location[1] <= self.end_row


@dataclass
class Outcome:
    name: str
    breaks: set[Location] = field(default_factory=set)
    log_only: set[Location] = field(default_factory=set)  # break lines only the graph_breaks log has
    unmapped: list[str] = field(default_factory=list)
    found: set[Location] = field(default_factory=set)
    confirmed: list[Reported] = field(default_factory=list)
    false_positives: list[Reported] = field(default_factory=list)
    not_exercised: list[Reported] = field(default_factory=list)
    graph_breaks: int = 0
    seconds: float = 0.0

    @property
    def missed(self) -> set[Location]:
        return self.breaks - self.found

    @property
    def recall(self) -> float:
        total = len(self.breaks) + len(self.unmapped)
        return len(self.found) / total if total else 1.0

    @property
    def precision(self) -> float:
        judged = len(self.confirmed) + len(self.false_positives)
        return len(self.confirmed) / judged if judged else 1.0


def unwrap(fn: Any) -> Any:
    """The eager callable behind torch.compile(fn) / torch.compile(model) / @torch.compile."""
    while True:
        inner = getattr(fn, "_orig_mod", None) or getattr(fn, "_torchdynamo_orig_callable", None)
        if inner is None or inner is fn:
            return fn
        fn = inner


def reported_lines(findings: Iterable[Finding]) -> list[Reported]:
    by_line: dict[tuple[str, int], list[Finding]] = {}
    for finding in findings:
        by_line.setdefault((normalise(finding.path), finding.location.row), []).append(finding)
    return [
        Reported(
            path,
            row,
            max(f.end_location.row for f in group),
            tuple(sorted({f.code for f in group})),
            group[0].source_line.strip(),
        )
        for (path, row), group in sorted(by_line.items())
    ]


@functools.cache
def code_lines(path: str) -> frozenset[int]:
    """Lines of a file that hold bytecode (what a line tracer can report)."""
    with open(path, "rb") as handle:
        code = compile(handle.read(), path, "exec", dont_inherit=True)
    lines: set[int] = set()
    stack = [code]
    while stack:
        current = stack.pop()
        lines.update(line for _, _, line in current.co_lines() if line is not None)
        stack.extend(c for c in current.co_consts if isinstance(c, types.CodeType))
    return frozenset(lines)


def _exercised(line: Reported, ran: set[int]) -> bool:
    span = [r for r in range(line.row, line.end_row + 1) if r in code_lines(line.path)]
    return bool(span) and all(r in ran for r in span)


def judge(
    name: str, explained: Explained, ran: dict[str, set[int]], reported: Sequence[Reported]
) -> Outcome:
    outcome = Outcome(name, breaks=explained.lines, graph_breaks=explained.graph_break_count)
    outcome.unmapped = [b.reason for b in explained.unmapped]
    outcome.log_only = {b.location for b in explained.breaks if b.source == "log" and b.location is not None}
    for line in reported:
        hits = {b for b in outcome.breaks if line.covers(b)}
        if hits:
            outcome.found |= hits
            outcome.confirmed.append(line)
        elif _exercised(line, ran.get(line.path, set())):
            outcome.false_positives.append(line)
        else:
            outcome.not_exercised.append(line)
    return outcome


# ---- the zoo -----------------------------------------------------------------------------
def zoo_cases(names: Sequence[str] = ()) -> list[Case]:
    cases: list[Case] = []
    if ZOO not in sys.path:
        sys.path.insert(0, ZOO)
    for entry in sorted(os.listdir(ZOO)):
        path = os.path.join(ZOO, entry)
        if entry.startswith(("_", ".")):
            continue
        if os.path.isdir(path) and os.path.exists(os.path.join(path, "__init__.py")):
            module = entry
        elif entry.endswith(".py"):
            module = entry[:-3]
        else:
            continue
        if names and module not in names:
            continue
        cases.append(Case(module, [path], Tree([path]), _zoo_builder(module)))
    return cases


def _zoo_builder(module_name: str) -> Callable[[], Any]:
    def build() -> tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any], Callable[[], Any] | None]:
        module = importlib.import_module(module_name)
        torch.manual_seed(0)
        made = module.case()
        fn, args = made[0], made[1]
        kwargs = made[2] if len(made) > 2 else {}
        return unwrap(fn), tuple(args), dict(kwargs), getattr(module, "driver", None)

    return build


def run_zoo(names: Sequence[str]) -> list[Outcome]:
    outcomes = []
    for case in zoo_cases(names):
        start = time.perf_counter()
        fn, args, kwargs, driver = case.build()
        explained = dynamo_breaks(fn, args, kwargs, case.tree)
        if driver is not None:
            ran = executed_lines(driver, (), {}, case.tree, no_grad=False)
        else:
            ran = executed_lines(fn, args, kwargs, case.tree)
        result = check(case.context, jobs=1)
        outcome = judge(case.name, explained, ran, reported_lines(result.findings))
        outcome.seconds = time.perf_counter() - start
        outcomes.append(outcome)
    return outcomes


# ---- transformers ------------------------------------------------------------------------
def run_transformers(names: Sequence[str]) -> tuple[list[Outcome], Outcome]:
    import transformers
    from hf_models import MODELS

    base = os.path.dirname(os.path.abspath(transformers.__file__))
    tree = Tree([base])
    # Only transformers' own messages are silenced (the logger calls still run, and break).
    transformers.logging.set_verbosity_error()
    runs: list[tuple[str, Explained, dict[str, set[int]], float]] = []
    for name in names or list(MODELS):
        start = time.perf_counter()
        model, args, kwargs = MODELS[name]()
        explained = dynamo_breaks(model, args, kwargs, tree)
        ran = executed_lines(model, args, kwargs, tree)
        runs.append((name, explained, ran, time.perf_counter() - start))
    touched = sorted({path for _, _, ran, _ in runs for path in ran})
    start = time.perf_counter()
    result = check([base], only=[os.path.relpath(p) for p in touched])
    check_seconds = time.perf_counter() - start
    reported = reported_lines(result.findings)
    outcomes = []
    for name, explained, ran, seconds in runs:
        mine = [r for r in reported if r.path in ran]
        outcome = judge(name, explained, ran, mine)
        outcome.seconds = seconds
        outcomes.append(outcome)
    # The union over all runs: a shared file (modeling_utils.py) is judged once.
    union = Explained(0, sum(o.graph_breaks for o in outcomes))
    for _, explained, _, _ in runs:
        union.breaks.extend(explained.breaks)
    all_ran: dict[str, set[int]] = {}
    for _, _, ran, _ in runs:
        for path, lines in ran.items():
            all_ran.setdefault(path, set()).update(lines)
    total = judge("total", union, all_ran, reported)
    total.seconds = check_seconds
    return outcomes, total


# ---- printing ----------------------------------------------------------------------------
def _where(location: Location | Reported, base: str) -> str:
    if isinstance(location, Reported):
        return f"{os.path.relpath(location.path, base)}:{location.row} [{','.join(location.codes)}] {location.text[:80]}"
    return f"{os.path.relpath(location[0], base)}:{location[1]}"


def print_suite(title: str, outcomes: list[Outcome], total: Outcome, base: str, verbose: bool) -> None:
    print(f"\n== {title} ==")
    print("(graph breaks: explain's graph_break_count; 'skipped': Dynamo ran the whole frame eagerly)")
    header = f"{'case':<34} {'graph breaks':>12} {'break lines':>11} {'found':>5} {'reported':>8} {'FP':>3} {'not ex.':>7}"
    print(header)
    for o in outcomes:
        reported = len(o.confirmed) + len(o.false_positives) + len(o.not_exercised)
        print(
            f"{o.name:<34} {o.graph_breaks if o.graph_breaks >= 0 else 'skipped':>12} "
            f"{len(o.breaks) + len(o.unmapped):>11} {len(o.found):>5} "
            f"{reported:>8} {len(o.false_positives):>3} {len(o.not_exercised):>7}"
        )
    print(
        f"{title} total: break lines {len(total.breaks) + len(total.unmapped)}, found {len(total.found)}, "
        f"confirmed reported lines {len(total.confirmed)}, false positives {len(total.false_positives)}, "
        f"not exercised {len(total.not_exercised)}"
    )
    print(
        f"  ({len(total.log_only)} of the break lines come only from Dynamo's graph_breaks log: "
        "breaks in frames Dynamo then skipped, or at the start of an empty resumed frame)"
    )
    print(f"{title} recall    {total.recall:.3f}")
    print(f"{title} precision {total.precision:.3f}")
    for label, items in (
        ("missed", sorted(total.missed)),
        ("unmapped break reasons (no frame in the analysed files)", total.unmapped),
        ("false positives", total.false_positives),
    ):
        if items:
            print(f"  {label}:")
            for item in items:
                print(f"    {item if isinstance(item, str) else _where(item, base)}")
    if verbose and total.not_exercised:
        print("  not exercised:")
        for item in total.not_exercised:
            print(f"    {_where(item, base)}")


def merge(name: str, outcomes: list[Outcome]) -> Outcome:
    total = Outcome(name)
    for o in outcomes:
        total.breaks |= o.breaks
        total.log_only |= o.log_only
        total.found |= o.found
        total.unmapped += o.unmapped
        total.confirmed += o.confirmed
        total.false_positives += o.false_positives
        total.not_exercised += o.not_exercised
        total.graph_breaks += o.graph_breaks
    return total


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suite", choices=("zoo", "transformers", "all"), default="all")
    parser.add_argument("--case", action="append", default=[], help="only this case / model (repeatable)")
    parser.add_argument("-v", "--verbose", action="store_true", help="also list not-exercised lines")
    options = parser.parse_args(argv)
    print(METHODOLOGY)
    print(f"\ntorch {torch.__version__}")
    if options.suite in ("zoo", "all"):
        outcomes = run_zoo(options.case)
        if outcomes:
            print_suite("zoo", outcomes, merge("zoo", outcomes), ZOO, options.verbose)
    if options.suite in ("transformers", "all"):
        import transformers
        from hf_models import MODELS

        names = [n for n in options.case if n in MODELS]
        if options.case and not names and options.suite == "transformers":
            print(f"no such model; choose from {', '.join(MODELS)}", file=sys.stderr)
            return 2
        if names or not options.case:
            print(f"transformers {transformers.__version__}")
            outcomes, total = run_transformers(names)
            base = os.path.dirname(os.path.abspath(transformers.__file__))
            print_suite("transformers", outcomes, total, base, options.verbose)
            print(f"(check on the transformers package took {total.seconds:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
