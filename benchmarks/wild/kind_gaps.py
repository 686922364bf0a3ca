"""Which values graphmend knows are tensors, measured against the values the eager calls held.

A signal independent of breaks: most rules fire only on a value graphmend infers to be a tensor,
so a local that holds a tensor at runtime but whose kind graphmend never solves to one is a finding
lost before any rule looks (kind recall), and a local solved to a tensor that never held one is a
finding waiting to be false (kind precision).

For a dev unit (split.py: the test half's functions are not read), in the corpus's environment:
  runtime  every recorded call of libs/<lib>.py runs eagerly under a tracer that samples, for the
           package's frames, what each local holds (tensor, None, Python scalar, nn.Module, other)
           at executed lines and at return;
  static   `graphmend check`'s analysis in this process, default scope (the library's config
           without declared entry points): every load of a local name in a traced function, its
           Kind solved by the scope's tensor flow (`_TensorFlow.holds`).
Compared per (function, local name) the analysis loaded and the calls bound. A gap is classified
by how the function binds the name (parameter, return of an in-tree helper, attribute of self,
container element, loop variable, tuple unpacking, torch function, ...).

  PYTHONPATH=$PWD /work/venvs/corpus-wild/bin/python benchmarks/wild/kind_gaps.py --lib NAME [--lib ...] \
      [--json FILE] [--show N]
"""

from __future__ import annotations

import argparse
import ast
import importlib
import json
import os
import sys
import tempfile
import warnings
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402
from harness import _calls, _load_spec, _package_dir, library_config  # noqa: E402
from miss_causes import module_name  # noqa: E402
from split import DEV, corpus_names, half  # noqa: E402

FunctionKey = tuple[str, str]  # (module, qualname) as graphmend names it
SAMPLES_PER_CODE = 400  # line events sampled per code object and call: loops repeat the same locals


# ---- runtime ---------------------------------------------------------------------------------
def _value_kind(value: Any) -> str:
    if isinstance(value, torch.Tensor):
        return "tensor"
    if value is None:
        return "none"
    if isinstance(value, (bool, int, float, complex)):
        return "scalar"
    if isinstance(value, torch.nn.Module):
        return "module"
    return "other"


def runtime_kinds(package_dir: str, calls: list[tuple[str, Any]]) -> dict[FunctionKey, dict[str, set[str]]]:
    """(module, qualname) -> local name -> the kinds of value it held in the eager calls."""
    base = os.path.dirname(package_dir)
    inside: dict[CodeType, FunctionKey | None] = {}
    held: dict[FunctionKey, dict[str, set[str]]] = {}
    samples: Counter[CodeType] = Counter()

    def record(frame: FrameType, key: FunctionKey) -> None:
        names = held.setdefault(key, {})
        for name, value in frame.f_locals.items():
            names.setdefault(name, set()).add(_value_kind(value))

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        code = frame.f_code
        key = inside.get(code)
        if key is not None and (event == "return" or samples[code] < SAMPLES_PER_CODE):
            samples[code] += 1
            record(frame, key)
        return local

    def global_(frame: FrameType, event: str, arg: Any) -> Any:
        code = frame.f_code
        if code not in inside:
            path = os.path.realpath(code.co_filename)
            inside[code] = None
            if path.startswith(package_dir + os.sep) and path.endswith(".py") and code.co_name != "<module>":
                qualname = code.co_qualname.replace(".<locals>", "")
                if "<" not in qualname:  # comprehensions and lambdas are not graphmend's functions
                    inside[code] = (module_name(os.path.relpath(path, base), package_dir), qualname)
        return local if inside[code] is not None else None

    for _, build in calls:
        try:
            torch.manual_seed(0)
            fn, args, kwargs = build()
            samples.clear()
            with torch.no_grad(), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                sys.settrace(global_)
                try:
                    fn(*args, **kwargs)
                finally:
                    sys.settrace(None)
        except Exception:  # one raising call must not lose the others (run.py reports it)
            continue
    return held


# ---- static ----------------------------------------------------------------------------------
def static_kinds(package_dir: str, config: str) -> tuple[dict[FunctionKey, dict[str, bool]], set[FunctionKey]]:
    """(module, qualname) -> loaded local name -> whether its solved kind is a tensor at some load,
    for the traced functions; and the traced functions."""
    from graphmend_bot import engine
    from graphmend_bot.analysis import function_expressions
    from graphmend_bot.analysis.scope import Program, _TensorFlow
    from graphmend_bot.config import load_config

    current: list[str] = [""]
    loads: dict[FunctionKey, dict[str, dict[int, Any]]] = {}
    summarize = engine.summarize_module
    expr = function_expressions.ExpressionEvaluator.expr

    def summarize_noting(source: str, path: str, module: str, *args: Any, **kwargs: Any) -> Any:
        current[0] = module
        return summarize(source, path, module, *args, **kwargs)

    def expr_noting(self: Any, node: ast.expr | None, env: Any) -> Any:
        kind = expr(self, node, env)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in env:
            kinds = loads.setdefault((current[0], self.summary.qualname), {}).setdefault(node.id, {})
            kinds.setdefault(id(kind), kind)
        return kind

    engine.summarize_module = summarize_noting  # type: ignore[assignment]
    function_expressions.ExpressionEvaluator.expr = expr_noting  # type: ignore[method-assign]
    try:
        workspace = engine.Workspace([package_dir], load_config(Path(config)), jobs=1)
    finally:
        engine.summarize_module = summarize
        function_expressions.ExpressionEvaluator.expr = expr  # type: ignore[method-assign]
    program = Program(workspace.summaries.values(), workspace.config.entry_points, workspace.dependency_summaries,
                      workspace.scope)
    traced = set(program.traced_functions())
    solver = _TensorFlow(program, traced)
    solver.solve()
    solved = {
        fid: {name: any(solver.holds(fid, kind) for kind in kinds.values()) for name, kinds in names.items()}
        for fid, names in loads.items() if fid in traced
    }
    return solved, traced


# ---- where a local's value comes from ----------------------------------------------------------
def _functions(tree: ast.Module) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    def visit(node: ast.AST, prefix: list[str]) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names = [*prefix, child.name]
                if not isinstance(child, ast.ClassDef):
                    yield ".".join(names), child
                yield from visit(child, names)

    yield from visit(tree, [])


def _call_source(call: ast.Call, in_tree: set[str]) -> str:
    func = call.func
    root = func
    while isinstance(root, (ast.Attribute, ast.Call, ast.Subscript)):
        root = root.func if isinstance(root, ast.Call) else root.value
    if isinstance(func, ast.Name):
        return "in-tree helper" if func.id in in_tree else "call of a name (import/builtin/class)"
    if isinstance(root, ast.Name) and root.id in {"torch", "F", "nn", "np", "numpy", "math"}:
        return f"{'torch' if root.id in {'torch', 'F', 'nn'} else root.id} function"
    if isinstance(root, ast.Name) and root.id == "self":
        return "self.method / submodule call" if isinstance(func, ast.Attribute) and func.value is root else "self.attr.method call"
    if isinstance(func, ast.Attribute):
        return "method of a value"
    return "other call"


def _value_source(value: ast.expr | None, in_tree: set[str]) -> str:
    if isinstance(value, ast.Call):
        return _call_source(value, in_tree)
    if isinstance(value, ast.Attribute):
        return "attribute of self" if isinstance(value.value, ast.Name) and value.value.id == "self" else "attribute of a value"
    if isinstance(value, ast.Subscript):
        return "container element"
    if isinstance(value, ast.Name):
        return "copy of a local"
    if isinstance(value, (ast.IfExp, ast.BoolOp)):
        return "conditional expression"
    return "expression"


def binding_sources(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str, in_tree: set[str]) -> list[str]:
    """How `function` binds `name` (each binding statement's source, in order; a parameter first)."""
    sources: list[str] = []
    args = function.args
    for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg):
        if arg is not None and arg.arg == name:
            sources.append("annotated parameter" if arg.annotation is not None else "parameter, no annotation")
    for node in ast.walk(function):
        if node is not function and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue  # a nested def's own names: ast.walk still enters it, harmless for counting
        if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)) and _binds(node.target, name):
            sources.append("loop variable")
        elif isinstance(node, ast.withitem) and node.optional_vars is not None and _binds(node.optional_vars, name):
            sources.append("with target")
        elif isinstance(node, ast.Assign) and any(_binds(t, name) for t in node.targets):
            unpacked = any(isinstance(t, (ast.Tuple, ast.List)) and _binds(t, name) for t in node.targets)
            source = _value_source(node.value, in_tree)
            sources.append(f"tuple unpacking of {source}" if unpacked else source)
        elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and _binds(node.target, name) and node.value is not None:
            sources.append(_value_source(node.value, in_tree))
        elif isinstance(node, ast.AugAssign) and _binds(node.target, name):
            sources.append("augmented assignment")
    return sources or ["free name (closure or global)"]


def _binds(target: ast.AST, name: str) -> bool:
    if isinstance(target, ast.Name):
        return target.id == name
    if isinstance(target, (ast.Tuple, ast.List)):
        return any(_binds(e, name) for e in target.elts)
    if isinstance(target, ast.Starred):
        return _binds(target.value, name)
    return False


def classify(source: list[str]) -> str:
    """One class per gap: a parameter never rebound is the parameter; otherwise the first binding
    that is not the parameter (what the value is where it is used, in most functions)."""
    rebound = [s for s in source if "parameter" not in s]
    return rebound[0] if rebound else source[0]


# ---- the comparison --------------------------------------------------------------------------
def compare(name: str) -> dict[str, Any]:
    spec = _load_spec(name)
    package_dir = os.path.realpath(_package_dir(importlib.import_module(spec.PACKAGE)))
    with tempfile.TemporaryDirectory() as folder:
        config = Path(folder, "default.yml")  # JSON is YAML
        config.write_text(json.dumps({**library_config(name), "entry-points": []}), encoding="utf-8")
        solved, traced = static_kinds(package_dir, str(config))
    held = runtime_kinds(package_dir, _calls(spec))
    base = os.path.dirname(package_dir)
    trees: dict[str, dict[str, ast.FunctionDef | ast.AsyncFunctionDef]] = {}
    top_level: dict[str, set[str]] = {}

    def function_node(module: str, qualname: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        if module not in trees:
            relative = module.replace(".", os.sep)
            candidates = [os.path.join(base, relative + ".py"), os.path.join(base, relative, "__init__.py"),
                          os.path.join(package_dir, relative + ".py"), os.path.join(package_dir, relative, "__init__.py")]
            path = next((c for c in candidates if os.path.exists(c)), None)
            tree = ast.parse(Path(path).read_text(encoding="utf-8")) if path else ast.Module(body=[], type_ignores=[])
            trees[module] = dict(_functions(tree))
            top_level[module] = {q for q in trees[module] if "." not in q}
        return trees[module].get(qualname)

    missed: list[dict[str, Any]] = []
    wrong: list[dict[str, Any]] = []
    known = compared = mixed = 0
    untraced = 0
    for fid, names in sorted(held.items()):
        if fid not in traced:
            untraced += sum("tensor" in kinds for kinds in names.values())
            continue
        static = solved.get(fid, {})
        node = function_node(*fid)
        for local, kinds in sorted(names.items()):
            if local not in static or local == "self":
                continue  # never loaded by the analysis (or bound only): no rule reads its kind
            compared += 1
            is_tensor, said = "tensor" in kinds, static[local]
            mixed += is_tensor and len(kinds) > 1
            sources = binding_sources(node, local, top_level.get(fid[0], set())) if node is not None else ["?"]
            row = {"function": f"{fid[0]}.{fid[1]}", "name": local, "runtime": sorted(kinds),
                   "class": classify(sources), "bindings": sources}
            if is_tensor and said:
                known += 1
            elif is_tensor:
                missed.append(row)
            elif said:
                wrong.append(row)
    tensors = known + len(missed)
    return {
        "name": name, "compared": compared, "runtime_tensors": tensors, "known": known, "missed": missed,
        "wrong": wrong, "mixed": mixed, "untraced_tensors": untraced,
        "recall": known / tensors if tensors else None,
        "precision": known / (known + len(wrong)) if known + len(wrong) else None,
    }


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lib", action="append", help="a dev unit (repeatable); default: every dev library")
    parser.add_argument("--json", help="write the per-unit rows here")
    parser.add_argument("--show", type=int, default=0, help="print this many gaps per unit")
    args = parser.parse_args()
    names = args.lib or [n for n in corpus_names() if half(n) == DEV and os.path.exists(os.path.join(HERE, "libs", f"{n}.py"))]
    reports = []
    by_class: Counter[str] = Counter()
    wrong_class: Counter[str] = Counter()
    for name in names:
        if half(name) != DEV:
            print(f"{name}: test half, not read")
            continue
        try:
            report = compare(name)
        except Exception as error:  # a library that does not import is reported, not fatal
            print(f"{name}: {type(error).__name__}: {error}")
            continue
        reports.append(report)
        by_class.update(row["class"] for row in report["missed"])
        wrong_class.update(row["class"] for row in report["wrong"])
        print(f"{name}: runtime tensors {report['runtime_tensors']}, known {report['known']} "
              f"(recall {_ratio(report['recall'])}), said tensor never one {len(report['wrong'])} "
              f"(precision {_ratio(report['precision'])}), sometimes-tensor {report['mixed']}, "
              f"tensors in untraced functions {report['untraced_tensors']}", flush=True)
        for row in (report["missed"][: args.show] + report["wrong"][: args.show]) if args.show else []:
            print(f"    {row['function']} {row['name']} {row['runtime']} <- {row['bindings']}")
    known = sum(r["known"] for r in reports)
    tensors = sum(r["runtime_tensors"] for r in reports)
    wrong = sum(len(r["wrong"]) for r in reports)
    print(f"\nall: runtime tensors {tensors}, known {known} (recall {_ratio(known / tensors if tensors else None)}), "
          f"said tensor never one {wrong} (precision {_ratio(known / (known + wrong) if known + wrong else None)})")
    print("missed tensors by source:", *(f"  {n:5d} {c}" for c, n in by_class.most_common()), sep="\n")
    print("said tensor, never one, by source:", *(f"  {n:5d} {c}" for c, n in wrong_class.most_common()), sep="\n")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(reports, handle, indent=1)


if __name__ == "__main__":
    main()
