"""Executed-line false positives of a wild run, counted by cause: did Dynamo trace the line?

A false positive is a finding on a statement the eager calls ran where Dynamo reported no break.
The recorded truth (corpus_results.json) holds the break statements and the executed ones, not the
statements Dynamo traced, so it cannot say why a finding is false. `record` reruns each unit's calls
under Dynamo with its `trace_source` log on (ground_truth.dynamo_breaks(traced=...)) and saves the
statements Dynamo traced; `count` then puts each false positive in one class:

  traced         Dynamo traced the statement and did not break there: the rule is wrong there, or
                 right only in a mode the truth did not run (split by whether the finding names one);
  eager only     the statement ran, but only eagerly: Dynamo never compiled that code (a frame it
                 skipped, code after a break it could not resume from, a function only an eager caller
                 runs). The construct may break when compiled; graphmend's reach or attribution
                 claimed code Dynamo does not reach;
  not recorded   the unit has no traced record (not run, or a call failed).

The test half is counted by class and rule code only: its lines are never printed.

Usage (in the corpus environment, after setup_env.sh):
  python benchmarks/wild/fp_causes.py record [--lib NAME ...] [--half dev|test] --out traced.json
  python benchmarks/wild/fp_causes.py count --traced traced.json [--results corpus_results.json]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))  # ground_truth.py

import hf_corpus  # noqa: E402
from split import DEV, HALVES, TEST, half  # noqa: E402

RESULTS = os.path.join(HERE, "corpus_results.json")
HF_PYTHON = os.environ.get("WILD_HF_PYTHON", ".venv-wild-hf/bin/python")
TIMEOUT_S = 1800

TRACED, EAGER_ONLY, NOT_RECORDED = "traced", "eager only", "not recorded"


def traced_statements(name: str) -> dict[str, Any]:
    """Run every call of unit `name` under Dynamo; the statements it traced, as "path": [first lines]
    (the harness's statement keys), and the calls that failed."""
    import torch
    from ground_truth import Tree, dynamo_breaks
    from harness import StatementKeys, _calls, _load_spec, _package_dir

    spec = _load_spec(name)
    package_dir = _package_dir(importlib.import_module(spec.PACKAGE))
    tree, keys = Tree([package_dir]), StatementKeys(package_dir)
    statements: set[tuple[str, int]] = set()
    failed: list[str] = []
    for call_name, build in _calls(spec):
        traced: dict[str, set[int]] = {}
        try:
            torch.manual_seed(0)
            fn, args, kwargs = build()
            dynamo_breaks(fn, args, kwargs, tree, traced=traced)
        except Exception as error:  # one raising call must not lose the others
            failed.append(f"{call_name}: {type(error).__name__}")
        for path, lines in traced.items():
            statements.update(keys.key(path, line) for line in lines)
    files: dict[str, list[int]] = {}
    for path, line in sorted(statements):
        files.setdefault(path, []).append(line)
    return {"traced": files, "failed": failed}


def record(names: list[str], out: str, hf_python: str) -> None:
    """Each unit in its own process (an HF family in transformers' environment), merged into `out`."""
    saved: dict[str, Any] = {}
    if os.path.exists(out):
        with open(out, encoding="utf-8") as handle:
            saved = json.load(handle)
    for name in names:
        python = hf_python if hf_corpus.is_unit(name) else sys.executable
        with tempfile.TemporaryDirectory() as folder:
            part = os.path.join(folder, "unit.json")
            command = [python, os.path.abspath(__file__), "worker", name, "--out", part]
            with contextlib.suppress(subprocess.TimeoutExpired):
                subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S)
            if os.path.exists(part):
                with open(part, encoding="utf-8") as handle:
                    saved[name] = json.load(handle)
            else:
                saved[name] = {"traced": {}, "failed": ["the worker crashed or timed out"]}
        print(f"{name}: {sum(map(len, saved[name]['traced'].values()))} statements traced, "
              f"{len(saved[name]['failed'])} calls failed", flush=True)
        with open(out + ".part", "w", encoding="utf-8") as handle:
            json.dump(saved, handle, indent=0, sort_keys=True)
        os.replace(out + ".part", out)


def classify(unit: dict[str, Any], traced: dict[str, Any] | None) -> list[tuple[str, str, bool]]:
    """(class, rule code, names a mode) for each executed false positive of `unit` (declared scope)."""
    from graphmend_bot.analysis.modes import modes_named

    statements = {(path, line) for path, lines in (traced or {}).get("traced", {}).items() for line in lines}
    out = []
    for fp in unit.get("false_positives", []):
        path, line = fp["where"].rsplit(":", 1)
        code = fp["note"].split()[0]
        if traced is None or _lost_calls(unit, traced):
            cause = NOT_RECORDED
        else:
            cause = TRACED if (path, int(line)) in statements else EAGER_ONLY
        out.append((cause, code, bool(modes_named(fp["note"]))))
    return out


def _lost_calls(unit: dict[str, Any], traced: dict[str, Any]) -> bool:
    """Whether a call that ran when the truth was recorded failed in the traced record."""
    ran = {call["name"] for call in unit.get("calls", []) if call.get("error") is None}
    return any(failure.split(":", 1)[0] in ran for failure in traced.get("failed", []))


def count(results: str, traced_path: str) -> str:
    with open(results, encoding="utf-8") as handle:
        units = json.load(handle)
    with open(traced_path, encoding="utf-8") as handle:
        traced = json.load(handle)
    lines = []
    for which in (DEV, TEST):
        causes: Counter[str] = Counter()
        codes: Counter[tuple[str, str]] = Counter()
        for unit in units:
            if half(unit["name"]) != which:
                continue
            for cause, code, mode in classify(unit, traced.get(unit["name"])):
                label = f"{cause}, mode named" if cause == TRACED and mode else cause
                causes[label] += 1
                codes[(label, code)] += 1
        total = sum(causes.values())
        lines.append(f"{which} half: {total} executed false positives (declared scope)")
        for label, n in causes.most_common():
            by_code = ", ".join(f"{code} {m}" for (lab, code), m in codes.most_common() if lab == label)
            lines.append(f"  {label}: {n} ({by_code})")
    return "\n".join(lines)


def units_with_false_positives(results: str, which: str | None) -> list[str]:
    with open(results, encoding="utf-8") as handle:
        units = json.load(handle)
    return [u["name"] for u in units if u.get("false_positives") and (which is None or half(u["name"]) == which)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="rerun units under Dynamo and save the statements it traced")
    rec.add_argument("--lib", action="append", help="a unit (repeatable); default: every unit with a false positive")
    rec.add_argument("--half", choices=HALVES)
    rec.add_argument("--results", default=RESULTS)
    rec.add_argument("--out", required=True)
    rec.add_argument("--hf-python", default=HF_PYTHON)
    work = sub.add_parser("worker")
    work.add_argument("name")
    work.add_argument("--out", required=True)
    cnt = sub.add_parser("count", help="count a run's false positives by cause")
    cnt.add_argument("--traced", required=True)
    cnt.add_argument("--results", default=RESULTS)
    args = parser.parse_args(argv)
    if args.command == "worker":
        result = traced_statements(args.name)
        with open(args.out, "w", encoding="utf-8") as handle:
            json.dump(result, handle)
        return 0
    if args.command == "record":
        record(args.lib or units_with_false_positives(args.results, args.half), args.out, args.hf_python)
        return 0
    print(count(args.results, args.traced))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
