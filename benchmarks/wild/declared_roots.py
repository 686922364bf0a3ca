"""Declared entry points against default-scope roots, per DEV library of the wild corpus.

For each dev library with declared `entry-points` (configs/<lib>.yml), print the functions those
patterns make roots that `scope: auto` with nothing declared does not: as roots (`not a root`)
and as traced code (`not traced`: no default root reaches it either). These are what a
maintainer has to declare today; a class of them that is general (what users compile from a
library's public API) is a candidate for the default scope.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/wild/declared_roots.py [--lib NAME ...] [--undeclared]

`--undeclared` also prints the other side, the precision side: the roots `auto`'s public-api or
library scope adds that no declared pattern names (counted, and the public ones listed), which a
maintainer did not think users compile.

Reads each library's recorded package directory (corpus_results.json `truth.package_dir`);
test-half libraries are never read (their configs would tune the default scope to them).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))

from split import DEV, half  # noqa: E402

from graphmend_bot.analysis.scope import FunctionId, Program  # noqa: E402
from graphmend_bot.config import Config  # noqa: E402
from graphmend_bot.engine import Workspace  # noqa: E402


def declared_entries(name: str) -> list[str]:
    with open(os.path.join(HERE, "configs", f"{name}.yml"), encoding="utf-8") as handle:
        return list((yaml.safe_load(handle) or {}).get("entry-points") or [])


def package_dirs() -> dict[str, str]:
    with open(os.path.join(HERE, "corpus_results.json"), encoding="utf-8") as handle:
        units = json.load(handle)
    return {u["name"]: u["truth"]["package_dir"] for u in units if u.get("truth")}


def why_not(program: Program, fid: FunctionId) -> str:
    """Why the default scope does not make `fid` a root, in general terms."""
    module, qualname = fid
    if any(part.startswith("_") and not part.startswith("__") for part in qualname.split(".")) or any(
        part.startswith("_") for part in module.split(".")
    ):
        return "private (a wildcard pattern's catch)"
    if qualname.rsplit(".", 1)[-1].startswith("__") and not qualname.endswith(".__call__"):
        return "dunder"
    if fid not in program.public_callables():
        return "public name, not exported"
    if fid not in program.library_roots():
        return "public, builds parameters"
    return "public, no tensor in signature, body or result"


def compare(
    package_dir: str, declared: list[str]
) -> tuple[Program, set[FunctionId], set[FunctionId], set[FunctionId]]:
    """(auto's program, declared roots, those not default roots, those default code never traces)."""
    # The library scope reads every public module: both programs below see the same summaries.
    workspace = Workspace([package_dir], Config(scope="library", entry_points=declared))
    summaries = list(workspace.summaries.values())
    default = Program(summaries, [], workspace.dependency_summaries, "auto")
    bare = Program(summaries, [], workspace.dependency_summaries, "model")
    with_declared = Program(summaries, declared, workspace.dependency_summaries, "model")
    roots = with_declared.model_entry_points() - bare.model_entry_points()
    missing = roots - default.entry_points()
    return default, roots, missing, missing - default.traced_functions()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lib", action="append", help="only these dev libraries")
    parser.add_argument("--undeclared", action="store_true", help="also the default roots nothing declares")
    args = parser.parse_args(argv)
    dirs = package_dirs()
    for name in sorted(args.lib or dirs):
        if half(name) != DEV or not os.path.exists(os.path.join(HERE, "configs", f"{name}.yml")):
            continue
        declared = declared_entries(name)
        if not declared or name not in dirs:
            continue
        program, roots, missing, untraced = compare(dirs[name], declared)
        print(
            f"{name}: auto -> {program.scope}; {len(roots)} declared roots, {len(missing)} not default roots, "
            f"{len(untraced)} of them not traced at default scope"
        )
        reasons = {fid: why_not(program, fid) for fid in missing}
        for reason in sorted(set(reasons.values())):
            print(f"   {reason}: {sum(1 for r in reasons.values() if r == reason)}")
        for fid in sorted(missing):
            if not reasons[fid].startswith(("private", "dunder")):
                state = "not traced" if fid in untraced else "traced"
                print(f"      {state:<10}  {reasons[fid]:<42} {fid[0]}:{fid[1]}")
        if args.undeclared:
            extra = program.scope_roots() - program.model_entry_points() - roots
            print(f"   default roots not declared: {len(extra)}")
            for fid in sorted(extra):
                print(f"      undeclared  {fid[0]}:{fid[1]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
