"""Do findings that name a mode break in that mode? Dynamo's answer for the wild benchmark's set-apart findings.

The benchmark's truth runs every call in eval mode and float32, so a finding whose message says it
breaks only in training mode, in float16, under autocast or with grad enabled (graphmend_bot/analysis/modes.py)
is set apart, neither confirmed nor refuted (harness.py, "named a mode"). This script builds the same
calls in the named mode (`module.train()`; the module and its floating inputs cast to the first dtype
named; the call under `torch.autocast("cpu", dtype=torch.bfloat16)`; with grad enabled), runs `torch._dynamo.explain`
as the truth does (benchmarks/ground_truth.py), and says for each such finding whether Dynamo broke
on its statement there. A call that raises in that mode confirms nothing and is reported.

Usage, with a saved run that counted them (run.py --json) and the Python of the unit's environment:
  /work/venvs/corpus-hf/bin/python benchmarks/wild/mode_confirm.py RUN.json --half dev
The test half's findings are counted, not printed (as run.py does), unless --show-test-lines.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Callable
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]  # benchmarks/, for ground_truth

import torch  # noqa: E402
from ground_truth import Tree, dynamo_breaks  # noqa: E402
from harness import DECLARED_SCOPE, LibraryReport, StatementKeys, _calls, _load_spec  # noqa: E402
from split import HALVES, TEST, half  # noqa: E402

from graphmend_bot.analysis.modes import (  # noqa: E402
    AUTOCAST,
    GRAD_ENABLED,
    ON_CUDA,
    TRAINING,
    dtypes_named,
    flag_named,
    modes_named,
)

Call = tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]


def mode_findings(report: LibraryReport) -> dict[tuple[str, ...], list[str]]:
    """The unit's set-apart findings (declared scope), by the modes their message names."""
    named = set(report.scopes.get(DECLARED_SCOPE, {}).get("mode_named", []))
    grouped: dict[tuple[str, ...], list[str]] = {}
    for line in report.false_positives:
        modes = tuple(modes_named(line.note))
        if line.where in named and modes:
            grouped.setdefault(modes, []).append(line.where)
    return grouped


def in_modes(call: Call, modes: tuple[str, ...]) -> Call:
    """The call set up to run in `modes`."""
    fn, args, kwargs = call
    flags = [flag for mode in modes if (flag := flag_named(mode))]
    if flags:  # an attribute of some object the call builds inside: no general way to turn it on
        raise ValueError(f"a flag mode ({', '.join(flags)}) is not set by this script; its tests measure it")
    if ON_CUDA in modes:  # the truth and this script run on CPU
        raise ValueError(f"{ON_CUDA!r} needs a CUDA device, which this script does not use")
    module = fn if isinstance(fn, torch.nn.Module) else getattr(fn, "__self__", None)
    dtypes = [name for mode in modes for name in dtypes_named(mode)]
    if TRAINING in modes or dtypes:
        if not isinstance(module, torch.nn.Module):
            raise ValueError(f"{fn!r} is no module or method of one: its mode cannot be set")
        if TRAINING in modes:
            module.train()
        if dtypes:
            dtype = getattr(torch, dtypes[0])
            module.to(dtype)
            args = tuple(_cast(a, dtype) for a in args)
            kwargs = {k: _cast(v, dtype) for k, v in kwargs.items()}
    if AUTOCAST in modes:
        inner = fn

        def fn(*a: Any, **k: Any) -> Any:
            with torch.autocast("cpu", dtype=torch.bfloat16):
                return inner(*a, **k)

    return fn, args, kwargs


def explain_in_modes(call: Call, modes: tuple[str, ...], tree: Tree) -> Any:
    """Dynamo's breaks for the call set up in `modes` (with grad enabled around it for GRAD_ENABLED:
    the truth runs under `torch.no_grad()`)."""
    return dynamo_breaks(*in_modes(call, modes), tree, no_grad=GRAD_ENABLED not in modes)


def _cast(value: Any, dtype: torch.dtype) -> Any:
    return value.to(dtype) if isinstance(value, torch.Tensor) and value.is_floating_point() else value


def confirm(report: LibraryReport, groups: dict[tuple[str, ...], list[str]]) -> list[tuple[str, str, str]]:
    """(statement, modes, verdict) for each statement of `groups` (the modes to run in -> statements):
    "broke", "no break" or the error of every call in that mode."""
    spec = _load_spec(report.name)
    package_dir = str(report.truth["package_dir"])
    tree, keys = Tree([package_dir]), StatementKeys(package_dir)
    verdicts = []
    for modes, statements in groups.items():
        broke: set[str] = set()
        errors: list[str] = []
        for call_name, build in _calls(spec):
            try:
                torch.manual_seed(0)
                explained = explain_in_modes(build(), modes, tree)
            except Exception as error:  # a call that cannot run in this mode confirms nothing
                errors.append(f"{call_name}: {type(error).__name__}: {str(error).strip()[:120]}")
                continue
            broke.update("{}:{}".format(*keys.key(*b.location)) for b in explained.breaks if b.location)
        for where in statements:
            verdict = "broke" if where in broke else ("no break" if len(errors) < len(_calls(spec)) else "; ".join(errors))
            verdicts.append((where, ", ".join(modes), verdict))
    return verdicts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", help="a saved run (run.py --json) that counted the mode-named findings")
    parser.add_argument("--half", choices=HALVES, help="only this half's units")
    parser.add_argument("--lib", action="append", help="only this unit (repeatable)")
    parser.add_argument("--show-test-lines", action="store_true", help="print the test half's lines too")
    parser.add_argument(
        "--also", nargs=3, action="append", default=[], metavar=("UNIT", "STATEMENT", "MODE"),
        help="also run UNIT in MODE (as modes.py spells it) and say whether Dynamo breaks on STATEMENT "
        "(path:line as the run prints it): a finding whose message names no mode",
    )
    args = parser.parse_args(argv)
    for _, _, mode in args.also:
        if not modes_named(f"finding ({mode})"):
            parser.error(f"--also: {mode!r} is no mode modes.py writes (e.g. {TRAINING!r}, 'in float16', {AUTOCAST!r})")
    with open(args.run, encoding="utf-8") as handle:
        reports = [LibraryReport.from_json(item) for item in json.load(handle)]
    chosen = [r for r in reports if (args.half is None or half(r.name) == args.half) and (not args.lib or r.name in args.lib)]
    total = confirmed = 0
    for report in chosen:
        groups = mode_findings(report)
        for unit, where, mode in args.also:
            if unit == report.name:
                groups.setdefault((mode,), []).append(where)
        if not groups:
            continue
        with contextlib.redirect_stdout(sys.stderr):  # the models' own prints
            verdicts = confirm(report, groups)
        for where, modes, verdict in verdicts:
            if half(report.name) != TEST or args.show_test_lines:  # the test half is counted, not read
                print(f"{report.name:<34} {where:<70} ({modes}): {verdict}")
            total += 1
            confirmed += verdict == "broke"
    print(f"Dynamo broke in the named mode on {confirmed} of {total} statements")
    return 0


if __name__ == "__main__":
    sys.exit(main())
