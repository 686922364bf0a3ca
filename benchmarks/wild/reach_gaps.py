"""The reach of graphmend's scope measured without misses: package functions the eager calls ran
that graphmend does not treat as traced code, per unit and scope.

A break statement missed because its function is not reached shows only where a break happens to
be; every function a call ran is one Dynamo traced (or skipped by its own rules), so the ones the
scope walk does not reach are the edges it lacks, whether or not they break. Read on the dev half
only (split.py): it lists functions by name.

  .venv-wild/bin/python benchmarks/wild/reach_gaps.py --from-json benchmarks/wild/corpus_results.json [--lib NAME ...]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from harness import config_path, library_config
from miss_causes import enclosing_function, module_name, traced_functions
from split import DEV, half

FunctionKey = tuple[str, str]  # (module, qualname)


def executed_functions(truth: dict[str, Any]) -> set[FunctionKey]:
    """(module, qualname) of every function holding a line the eager calls ran."""
    base = os.path.dirname(truth["package_dir"])
    found: set[FunctionKey] = set()
    for path, lines in truth["ran"].items():
        for function in {enclosing_function(os.path.join(base, path), line) for line in lines}:
            if function is not None:
                found.add((module_name(path, truth["package_dir"]), function))
    return found


def unreached(truth: dict[str, Any], configs: dict[str, str]) -> dict[str, set[FunctionKey]]:
    """scope -> the executed functions graphmend does not trace under that scope's config file."""
    executed = executed_functions(truth)
    return {scope: executed - traced_functions(truth["package_dir"], config) for scope, config in configs.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--from-json", required=True, help="a saved run holding the truth (run.py --json)")
    parser.add_argument("--lib", action="append", help="only this unit (repeatable)")
    args = parser.parse_args()
    with open(args.from_json, encoding="utf-8") as handle:
        reports = {report["name"]: report for report in json.load(handle)}
    totals = {"default": 0, "declared": 0}
    for name in args.lib or sorted(n for n in reports if half(n) == DEV):
        truth = reports[name].get("truth")
        if half(name) != DEV or not truth:
            continue  # the test half's functions are not read
        with tempfile.TemporaryDirectory() as folder:
            default = Path(folder, "default.yml")  # JSON is YAML
            default.write_text(json.dumps({**library_config(name), "entry-points": []}), encoding="utf-8")
            gaps = unreached(truth, {"default": str(default), "declared": config_path(name)})
        for scope, functions in gaps.items():
            totals[scope] += len(functions)
        for module, qualname in sorted(gaps["default"] | gaps["declared"]):
            where = ",".join(scope for scope, functions in gaps.items() if (module, qualname) in functions)
            print(f"{name}: {module}:{qualname} not reached ({where})")
    print(f"executed functions not reached: default {totals['default']}, declared {totals['declared']}")


if __name__ == "__main__":
    main()
