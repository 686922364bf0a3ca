"""Census cost and recall: test suites run plain, with a whole census, and in pull-request mode.

For each suite: CPU time (user + system of the pytest child: the steady figure on a shared machine)
and wall time of the plain run and of the censused runs (median of `--repeat` runs), their ratios,
the calls explained, and census recall of the ground truth's break lines:

- the bundled transformers suite (benchmarks/census/test_transformers_tiny.py): ground truth is
  `torch._dynamo.explain` plus the graph_breaks log on each model's own call (ground_truth.py);
- `--wild LIB` (repeatable; `--wild all`): the wild benchmark's census suite for LIB (one test per
  benchmark call, as benchmarks/wild/census_run.py writes it, rooted at the installed package with
  its declared entry points); ground truth is harness.py's (each call explained from a clean cache,
  matched by statement). Run it with the wild environment's interpreter;
- `--suite PATH --root DIR` (any project's tests, e.g. a library's own test file the benchmark does
  not use): no benchmark ground truth, so recall is of the whole census's break lines.

`--changed PATH` (relative to the root; `hottest`: the file with most break lines in the whole
census) adds a pull-request mode run (`--graphmend-census-changed-since`): only calls reaching that
file are explained; its recall is that of the partial census completed with the whole one
(graphmend_bot/census/reuse.py), as the review does with the default branch's census.

    .venv/bin/python benchmarks/census_overhead.py                                 # the bundled suite
    .venv-wild/bin/python benchmarks/census_overhead.py --wild all --changed hottest
    .venv-wild/bin/python benchmarks/census_overhead.py --suite DIR/test_x.py --root DIR --cwd DIR
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
BUNDLED = HERE / "census" / "test_transformers_tiny.py"
BASE_COMMIT = "b" * 40  # the whole census stands for the base branch's, the pull-request run for the head
HEAD_COMMIT = "a" * 40

Key = tuple[str, int]


@dataclass
class Suite:
    name: str
    target: str  # what pytest is given
    cwd: Path
    root: str  # the census root
    entries: list[str] = field(default_factory=list)
    truth: Callable[[], set[Key]] | None = None  # the benchmark's break lines, as keys
    key: Callable[[str, int], Key] = lambda path, line: (path, line)  # a census break (root-relative) as a key
    env: dict[str, str] = field(default_factory=dict)


@dataclass
class Timing:
    wall: float
    cpu: float


def run(suite: Suite, extra: list[str]) -> Timing:
    """One pytest run; `extra`: the census's options (none: the plain run)."""
    command = [sys.executable, "-m", "pytest", suite.target, "-q", "-p", "no:cacheprovider", "--no-header",
               "--rootdir", str(suite.cwd), *extra]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=suite.cwd, capture_output=True, text=True, check=False,
                          env={**os.environ, **suite.env})
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        sys.exit(f"pytest failed to run ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return Timing(elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))


def median(runs: list[Timing]) -> Timing:
    return Timing(statistics.median(t.wall for t in runs), statistics.median(t.cpu for t in runs))


def census_options(suite: Suite, file: Path, commit: str) -> list[str]:
    return ["--graphmend-census", f"--graphmend-census-file={file}", f"--graphmend-census-root={suite.root}",
            f"--graphmend-census-commit={commit}", *(f"--graphmend-census-entry={entry}" for entry in suite.entries)]


def recorded(suite: Suite, census: Any) -> set[Key]:
    return {suite.key(record.path, record.line) for record in census.breaks}


def hottest(census: Any) -> str:
    counts = Counter(record.path for record in census.breaks)
    return counts.most_common(1)[0][0] if counts else next(iter(sorted(census.executed)), "")


def measure(suite: Suite, repeat: int, changed: str | None) -> dict[str, Any]:
    from graphmend_bot.census.record import load_census

    result: dict[str, Any] = {"suite": suite.name}
    with tempfile.TemporaryDirectory() as scratch:
        whole_file, partial_file = Path(scratch) / "whole.json", Path(scratch) / "partial.json"
        plain = median([run(suite, []) for _ in range(repeat)])
        whole = median([run(suite, census_options(suite, whole_file, BASE_COMMIT)) for _ in range(repeat)])
        base = load_census(whole_file)
        result.update(plain=plain.__dict__, whole=whole.__dict__, whole_calls=len(base.calls))
        found = recorded(suite, base)
        truth = suite.truth() if suite.truth is not None else None
        reference = truth if truth is not None else found
        result.update(reference="ground truth" if truth is not None else "whole census", lines=len(reference),
                      whole_found=len(reference & found), whole_missed=sorted(map(str, reference - found)))
        if changed is not None:
            from graphmend_bot.census.reuse import complete_partial

            path = hottest(base) if changed == "hottest" else changed
            options = [*census_options(suite, partial_file, HEAD_COMMIT),
                       f"--graphmend-census-changed-since={BASE_COMMIT}", f"--graphmend-census-changed={path}"]
            pull = median([run(suite, options) for _ in range(repeat)])
            partial = load_census(partial_file)
            completed = complete_partial(base, partial)
            result.update(changed=path, pr=pull.__dict__, pr_calls=len(partial.calls),
                          pr_found=len(reference & recorded(suite, completed)))
    return result


def report(result: dict[str, Any]) -> str:
    plain, whole = Timing(**result["plain"]), Timing(**result["whole"])
    lines = [f"== {result['suite']}",
             f"  plain            CPU {plain.cpu:7.1f} s   wall {plain.wall:7.1f} s",
             f"  whole census     CPU {whole.cpu:7.1f} s ({whole.cpu / plain.cpu:.2f}x)   wall {whole.wall:7.1f} s "
             f"({whole.wall / plain.wall:.2f}x)   {result['whole_calls']} call(s) explained   recall "
             f"{result['whole_found']}/{result['lines']} ({result['reference']})"]
    if "pr" in result:
        pull = Timing(**result["pr"])
        lines.append(f"  changed {result['changed']}: CPU {pull.cpu:7.1f} s ({pull.cpu / plain.cpu:.2f}x)   wall "
                     f"{pull.wall:7.1f} s ({pull.wall / plain.wall:.2f}x)   {result['pr_calls']} call(s) explained"
                     f"   recall {result['pr_found']}/{result['lines']} (completed with the whole census)")
    lines += [f"  whole census missed {key}" for key in result["whole_missed"]]
    return "\n".join(lines)


# -- the suites --------------------------------------------------------------------------------------
def bundled_suite() -> Suite:
    import transformers

    root = str(Path(transformers.__file__).resolve().parent)

    def truth() -> set[Key]:
        sys.path.insert(0, str(HERE))
        sys.path.insert(0, str(HERE / "census"))
        from ground_truth import Tree, dynamo_breaks
        from hf_models import MODELS
        from test_transformers_tiny import FAMILIES

        lines: set[Key] = set()
        for family in FAMILIES:
            model, args, kwargs = MODELS[family]()
            explained = dynamo_breaks(model, args, kwargs, Tree([root]))
            lines |= {(Path(path).relative_to(root).as_posix(), line) for path, line in explained.lines}
        return lines

    return Suite("transformers (bundled)", str(BUNDLED), Path.cwd(), root, truth=truth)


def wild_suite(name: str, folder: Path) -> Suite:
    """The wild benchmark's census suite for `name`, written into `folder`."""
    sys.path.insert(0, str(HERE))
    sys.path.insert(0, str(HERE / "wild"))
    import importlib

    import torch
    from census_run import write_tests
    from ground_truth import Tree, dynamo_breaks
    from harness import StatementKeys, _calls, _load_spec, entry_points

    spec = _load_spec(name)
    package_dir = os.path.dirname(importlib.import_module(spec.PACKAGE).__file__)
    keys = StatementKeys(package_dir)
    calls = _calls(spec)

    def truth() -> set[Key]:
        """harness.py's ground truth: each call explained from a clean cache, lines as statements."""
        found: set[Key] = set()
        for _, build in calls:
            torch.manual_seed(0)
            fn, args, kwargs = build()
            explained = dynamo_breaks(fn, args, kwargs, Tree([package_dir]))
            found |= {keys.key(path, line) for path, line in explained.lines}
        return found

    test_file = write_tests(name, [call for call, _ in calls], str(folder))
    return Suite(f"wild: {name}", test_file, folder, package_dir, entry_points(name), truth,
                 key=lambda path, line: keys.key(os.path.join(package_dir, path), line))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suite", help="a pytest target (default, with no --wild: the bundled suite)")
    parser.add_argument("--cwd", default=".", help="where to run pytest (with --suite)")
    parser.add_argument("--root", help="census root (with --suite)")
    parser.add_argument("--entry", action="append", default=[], help="census entry point (with --suite)")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                        help="environment for the pytest runs (with --suite)")
    parser.add_argument("--wild", action="append", default=[], metavar="LIB", help="a wild census suite, or all")
    parser.add_argument("--changed", help="add a pull-request mode run that changed this file (or: hottest)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each kind; the median is reported")
    parser.add_argument("--json", metavar="FILE", help="save the results as JSON")
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as folder:
        suites: list[Suite] = []
        if args.wild:
            sys.path.insert(0, str(HERE / "wild"))
            from harness import lib_names

            names = lib_names() if "all" in args.wild else args.wild
            for name in names:
                (Path(folder) / name).mkdir()
                suites.append(wild_suite(name, Path(folder) / name))
        if args.suite:
            env = dict(item.partition("=")[::2] for item in args.env)
            suites.append(Suite(args.suite, args.suite, Path(args.cwd).resolve(), args.root or args.cwd, args.entry,
                                env=env))
        if not suites:
            suites.append(bundled_suite())
        for suite in suites:
            print(f"... {suite.name}", file=sys.stderr, flush=True)
            results.append(measure(suite, args.repeat, args.changed))
            print(report(results[-1]), flush=True)
    if len(results) > 1:
        print(totals(results))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return 0


def totals(results: list[dict[str, Any]]) -> str:
    def total(kind: str, field_name: str) -> float:
        return sum(result[kind][field_name] for result in results if kind in result)

    plain_cpu, plain_wall = total("plain", "cpu"), total("plain", "wall")
    lines = [f"== all {len(results)} suites: plain CPU {plain_cpu:.1f} s, wall {plain_wall:.1f} s",
             f"  whole census: CPU {total('whole', 'cpu') / plain_cpu:.2f}x, wall {total('whole', 'wall') / plain_wall:.2f}x,"
             f" recall {sum(r['whole_found'] for r in results)}/{sum(r['lines'] for r in results)}"]
    with_pr = [r for r in results if "pr" in r]
    if with_pr:
        pr_plain_cpu = sum(r["plain"]["cpu"] for r in with_pr)
        pr_plain_wall = sum(r["plain"]["wall"] for r in with_pr)
        lines.append(f"  pull-request mode: CPU {total('pr', 'cpu') / pr_plain_cpu:.2f}x, wall "
                     f"{total('pr', 'wall') / pr_plain_wall:.2f}x, recall {sum(r['pr_found'] for r in with_pr)}/"
                     f"{sum(r['lines'] for r in with_pr)}")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
