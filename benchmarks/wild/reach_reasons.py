"""Why the default scope does not reach the functions of the misses it does not trace, counted.

miss_causes.py files a miss at default scope as "found through declared entry points" (a declared
root reaches its function, the default roots do not) or "function not reached" (no root does).
This breaks both down by the reason graphmend's default (`scope: auto`) walk stops short of the
function, decided by code from the scope the check settled on and the package's public API
(public_api.py), so that the test half can be counted without a person reading a line:

  model scope: the package compiles something itself   auto kept the model scope (knows_its_roots):
                                                       no public callable is a root
  model scope: no public roots                         auto kept the model scope for another reason
                                                       (a loose tree, no public callable)
  public callable the SCOPE scope leaves out (KIND)    the function is public and exported but no
                                                       root (SCOPE, the scope in force: public-api
                                                       or library, a builder; a lone file's
                                                       tensor-api, no tensor in its signature); KIND:
                                                       a function, a method of an nn.Module or of
                                                       another class, and whether the library scope
                                                       roots it
  reached only from public callables the SCOPE ...     some public callable reaches it through known
                                                       edges, and none of those is a root
  private, no public callable reaches it               a part of its module or name starts with `_`,
                                                       and no public callable reaches it through a
                                                       call edge graphmend has
  public name not exported, none reaches it            the same for a function with a public name
                                                       that its package does not export
  not summarised                                       the prefilter left its file out

The last two say in brackets why public_callables leaves the function out (a private or test
module, a private top-level name, a module whose `__all__` leaves it out), and the model scope's
which case of knows_its_roots holds (code of its own or only what it is handed, and whether the
package exports nn.Modules).

A function this checkout's default scope now traces is counted as reached (the run in the json
was made by an older one). Under the model scope each reason also says whether the public callables, had they been roots,
reach the function (what the library scope would change). Only counts are printed: the test
half's lines and files are never shown (split.py).

  .venv-wild/bin/python benchmarks/wild/reach_reasons.py --from-json benchmarks/wild/corpus_results.json --half test
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from harness import library_config
from miss_causes import FOUND_DECLARED, NOT_REACHED, enclosing_function, module_name
from split import half

FunctionKey = tuple[str, str]


def default_program(name: str, package_dir: str) -> Any:
    """The scope.Program `graphmend check` builds for the unit at default scope (no entry points)."""
    from graphmend_bot.analysis.scope import Program
    from graphmend_bot.config import load_config
    from graphmend_bot.engine import Workspace

    with tempfile.TemporaryDirectory() as folder:
        config = Path(folder, "default.yml")  # JSON is YAML
        config.write_text(json.dumps({**library_config(name), "entry-points": []}), encoding="utf-8")
        workspace = Workspace([package_dir], load_config(config), jobs=1)
    return Program(
        workspace.summaries.values(),
        workspace.config.entry_points,
        workspace.dependency_summaries,
        workspace.scope,
    )


def reason(program: Any, fid: FunctionKey, public_reach: set[FunctionKey]) -> str:
    """Why the default walk does not reach `fid` (module docstring)."""
    if fid not in program._functions:
        return "not summarised"
    if fid in program.traced_functions():
        return "reached by this checkout's default scope"
    if program.scope == "model":
        why = "model scope: no public roots"
        if program.knows_its_roots():
            why = "model scope: the package compiles something itself" + _compiles_what(program)
        return f"{why} ({'public callables reach it' if fid in public_reach else 'no public callable reaches it'})"
    if fid in program.public_callables():
        return f"public callable the {program.scope} scope leaves out ({_root_kind(program, fid)})"
    if fid in public_reach:
        return f"reached only from public callables the {program.scope} scope leaves out"
    if any(
        part.startswith("_") and not part.startswith("__")
        for part in (*fid[0].split("."), *fid[1].split("."))
    ):
        return f"private, no public callable reaches it [{_unexported_why(program, fid)}]"
    return f"public name not exported, none reaches it [{_unexported_why(program, fid)}]"


def _unexported_why(program: Any, fid: FunctionKey) -> str:
    """Why public_api.public_callables leaves the function out: where it lies (a private or test
    module, a loose one), or what its module's exports do with its top-level name."""
    from graphmend_bot.analysis.public_api import (
        exported_names,
        is_package_module,
        is_public_module,
        is_test_module,
    )

    module, qualname = fid
    summary = program.modules[module]
    if is_test_module(module):
        return "a test module"
    if not is_public_module(module, is_package_module(summary)):
        return "a loose module" if "." not in module and not is_package_module(summary) else "a private module"
    top = qualname.split(".")[0]
    function = program.function(fid)
    where = "a method" if function.class_qualname is not None else "a function"
    if "<locals>" in qualname or (function.class_qualname is None and "." in qualname):
        where = "a nested function"
    if top.startswith("_"):
        return f"{where} under a private name"
    if top not in set(exported_names(summary)):
        return f"{where}, its module's __all__ leaves it out" if summary.exports is not None else f"{where}, not exported"
    name = qualname.rsplit(".", 1)[-1]
    if name.startswith("__") and name.endswith("__"):
        return f"{where} of an exported name, a dunder ({name})"
    if name.startswith("_"):
        return f"{where} of an exported name, private"
    if any("property" in d or d.endswith((".setter", ".getter")) for d in function.decorators):
        return f"{where} of an exported name, a property"
    return f"{where} of an exported name, under a class not exported or nested"


def _compiles_what(program: Any) -> str:
    """Which of knows_its_roots's cases holds: code of its own (a model zoo exporting nn.Modules)
    or only what it is handed or holds as an attribute (a trainer's `torch.compile(self.model)`),
    and whether it exports nn.Modules."""
    from graphmend_bot.analysis.public_api import compiles_its_own_code, exports_modules

    own = "its own code" if compiles_its_own_code(program) else "only what it is handed"
    return f" [{own}, {'exports' if exports_modules(program) else 'no'} nn.Modules]"


def _root_kind(program: Any, fid: FunctionKey) -> str:
    """What the library scope would make of a public callable the scope leaves out: a function or
    a method, and a library root or a builder (public_api.library_roots leaves builders out)."""
    owner = program.function(fid).class_qualname
    what = "function" if owner is None else (
        "method of an nn.Module" if program.is_module_class(fid[0], owner) else "method of another class")
    return f"{what}, {'library root' if fid in program.library_roots() else 'builder'}"


def unit_reasons(
    report: dict[str, Any], programs: dict[tuple[str, str], tuple[Any, set[FunctionKey]]]
) -> Counter[tuple[str, str]]:
    """(miss cause, reason) -> count, for one unit's misses that its default scope does not trace."""
    counts: Counter[tuple[str, str]] = Counter()
    causes = {
        key: cause
        for key, cause in (report.get("miss_causes") or {}).items()
        if cause in (FOUND_DECLARED, NOT_REACHED)
    }
    truth = report.get("truth")
    if not causes or not truth:
        return counts
    package_dir = truth["package_dir"]
    key = (package_dir, json.dumps(library_config(report["name"]), sort_keys=True))
    if key not in programs:
        program = default_program(report["name"], package_dir)
        programs[key] = program, program._closure(program.public_callables(), program.successors)
    program, public_reach = programs[key]
    base = os.path.dirname(package_dir)
    for where, cause in causes.items():
        path, _, line = where.rpartition(":")
        try:
            function = enclosing_function(os.path.join(base, path), int(line))
        except (OSError, SyntaxError, ValueError) as error:
            counts[(cause, f"unclassified ({type(error).__name__})")] += 1
            continue
        fid = (module_name(path, package_dir), function or "")
        counts[(cause, reason(program, fid, public_reach) if function else "module level")] += 1
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--from-json", required=True, help="a saved run holding the truth and miss causes")
    parser.add_argument("--half", choices=("dev", "test"), default="test")
    args = parser.parse_args()
    with open(args.from_json, encoding="utf-8") as handle:
        reports = [report for report in json.load(handle) if half(report["name"]) == args.half]
    totals: Counter[tuple[str, str]] = Counter()
    programs: dict[tuple[str, str], tuple[Any, set[FunctionKey]]] = {}
    for report in reports:
        totals += unit_reasons(report, programs)
    for cause in (FOUND_DECLARED, NOT_REACHED):
        print(f"{cause}: {sum(n for (c, _), n in totals.items() if c == cause)}")
        for (c, why), count in sorted(totals.items(), key=lambda item: (-item[1], item[0])):
            if c == cause:
                print(f"  {count:3d}  {why}")


if __name__ == "__main__":
    main()
