"""Do graphmend's rewrites hold on real libraries? A calls-per-rewrite check (issue 16).

For each library: copy its installed package, apply `graphmend check --fix` (and
`--unsafe-fixes` with `--unsafe`) to the copy, then run the benchmark's calls (libs/<lib>.py)
against the original and against the copy, each in its own process, with the same seeds:

- eager outputs and gradients, compared bit for bit (every tensor reachable from the result, and
  the gradients of its summed floating tensors with respect to the module's parameters and the
  arguments that require grad; NaN equals NaN); the original runs twice, and a call whose two
  original runs differ is counted as nondeterministic, not as a change the rewrite made
  (`--no-control` skips that run);
- calls that raise with the rewrite where the original did not;
- Dynamo's breaks inside the package (benchmarks/ground_truth.py), before and after, listed as
  removed / left / new in the JSON (a call Dynamo cannot explain on either side, for example an
  internal Dynamo error, is left out of both counts and listed as `unexplained_calls`);
- which rewritten functions the calls run (a rewrite no call runs is not checked by this run).
  The calls are the benchmark's own (`call_<name>` in libs/<lib>.py) and the small ones written so
  that a rewritten function the benchmark's calls miss runs too (`rewrite_call_<name>`); breaks are
  counted for each set apart, so the benchmark's figures stay comparable;
- the applied fixes split by Finding.frequency (every call / rare branch).

    cd <worktree> && PYTHONPATH=$PWD /work/wt/wild/.venv-wild/bin/python \\
        benchmarks/wild/rewrite_check.py --lib torchdiffeq --lib monai [--unsafe] [--json out.json]
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import difflib
import functools
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from harness import _calls, _describe, _load_spec, config_path, lib_names  # noqa: E402

REWRITE_CALL = "rewrite:"  # the name prefix of a call written for a rewrite, not one of the benchmark's


def _reachable(value: Any, depth: int = 0) -> list[Any]:
    """Every tensor reachable from a value (containers, dataclasses, model outputs), in a fixed order."""
    import torch

    if depth > 6:
        return []
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, dict):
        return [t for key in sorted(value, key=str) for t in _reachable(value[key], depth + 1)]
    if isinstance(value, list | tuple):
        return [t for item in value for t in _reachable(item, depth + 1)]
    if hasattr(value, "__dict__") and not isinstance(value, type | torch.nn.Module):
        return [t for key in sorted(vars(value)) for t in _reachable(vars(value)[key], depth + 1)]
    return []


def _tensors(value: Any) -> list[Any]:
    return [t.detach() for t in _reachable(value)]


def _gradients(fn: Any, args: Any, kwargs: Any, output: Any) -> list[Any]:
    """Gradients of the call's summed floating outputs with respect to its leaves: the parameters of
    the module it calls (or whose method it is) and the tensor arguments that require grad. A leaf
    the output does not reach gets an empty tensor, so a rewrite that cuts or adds a path shows."""
    import torch

    module = fn if isinstance(fn, torch.nn.Module) else getattr(fn, "__self__", None)
    leaves = [p for _, p in sorted(module.named_parameters())] if isinstance(module, torch.nn.Module) else []
    leaves += [t for t in _reachable((args, kwargs)) if t.requires_grad and t.is_leaf]
    leaves = [leaf for leaf in leaves if leaf.requires_grad]
    outputs = [t for t in _reachable(output) if t.requires_grad and t.is_floating_point()]
    if not leaves or not outputs:
        return []
    loss = torch.stack([t.sum().double() for t in outputs]).sum()
    grads = torch.autograd.grad(loss, leaves, allow_unused=True)
    return [g.detach() if g is not None else torch.empty(0) for g in grads]


def _clear_caches(package: str) -> None:
    """Empty every `functools.lru_cache`/`cache` of the package's loaded modules' functions: the
    earlier runs of a call filled them, and a cache hit runs none of the function's lines."""
    for module_name, module in list(sys.modules.items()):
        if module is None or not (module_name == package or module_name.startswith(package + ".")):
            continue
        for value in list(vars(module).values()):
            if isinstance(value, functools._lru_cache_wrapper):
                value.cache_clear()


def run_worker(name: str, out: str, package_root: str) -> None:
    """Run every call of `name` here (the package as imported from sys.path) and save the results."""
    import torch
    from ground_truth import Tree, dynamo_breaks, executed_lines

    spec = _load_spec(name)
    package_dir = os.path.dirname(__import__(spec.PACKAGE).__file__)
    assert os.path.realpath(package_dir).startswith(os.path.realpath(package_root)), package_dir
    tree = Tree([package_dir])
    results: dict[str, Any] = {}
    calls = [*_calls(spec), *((REWRITE_CALL + n, build) for n, build in _calls(spec, "rewrite_call_"))]
    for call_name, build in calls:
        entry: dict[str, Any] = {}
        try:
            torch.manual_seed(0)
            fn, args, kwargs = build()
            with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
                warnings.simplefilter("ignore")
                output = fn(*args, **kwargs)
            entry["tensors"] = _tensors(output)
        except Exception as error:  # a raising call is the measurement, not a crash
            entry["error"] = _describe(error)
        else:
            try:
                entry["gradients"] = _gradients(fn, args, kwargs, output)
            except Exception as error:
                entry["gradient_error"] = _describe(error)
        try:
            torch.manual_seed(0)
            fn, args, kwargs = build()
            explained = dynamo_breaks(fn, args, kwargs, tree)
            entry["breaks"] = sorted({f"{os.path.relpath(b.location[0], package_root)}:{b.location[1]}"
                                      for b in explained.breaks if b.location is not None})
        except Exception as error:
            entry["dynamo_error"] = _describe(error)
        try:  # coverage is eager: a call Dynamo cannot explain still shows which rewritten rows it ran
            torch.manual_seed(0)
            fn, args, kwargs = build()
            _clear_caches(spec.PACKAGE)  # a cached function the call reaches runs, and counts as run
            covered = executed_lines(fn, args, kwargs, tree)
            entry["ran"] = {os.path.relpath(p, package_root): sorted(lines) for p, lines in covered.items()}
        except Exception as error:
            entry["coverage_error"] = _describe(error)
        results[call_name] = entry
    torch.save(results, out)


def _run(name: str, package_root: str, pythonpath: list[str]) -> dict[str, Any]:
    import torch

    with tempfile.TemporaryDirectory() as scratch:
        out = os.path.join(scratch, "results.pt")
        # One hash seed for every run: whisper's kv-cache decoding differs between processes with
        # different seeds (set/dict order), which read as a changed output when the control agreed by chance.
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([*pythonpath, os.environ.get("PYTHONPATH", "")]),
               "PYTHONHASHSEED": "0"}
        done = subprocess.run([sys.executable, __file__, "--worker", name, "--out", out, "--root", package_root],
                              env=env, capture_output=True, text=True, timeout=1800)
        if done.returncode != 0 or not os.path.exists(out):
            raise RuntimeError(f"worker for {name} failed: {done.stderr.strip()[-1500:]}")
        return torch.load(out, weights_only=False)


def _touched_functions(before: str, after: str) -> list[tuple[str, int, int]]:
    """(qualname, first row, last row) in `after` of each function a rewrite changed."""
    changed_rows: set[int] = set()
    matcher = difflib.SequenceMatcher(a=before.splitlines(), b=after.splitlines(), autojunk=False)
    for tag, _, _, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            changed_rows.update(range(j1 + 1, max(j2, j1 + 1) + 1))
    found: list[tuple[str, int, int]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If | ast.Try | ast.ExceptHandler | ast.With):
                # A class defined under `try: import x / except ImportError:` (gpytorch's KeOps
                # fallback) or an `if` is still a function a rewrite can touch.
                visit(child, prefix)
                continue
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                name = f"{prefix}{child.name}"
                if isinstance(child, ast.ClassDef):
                    visit(child, name + ".")
                    continue
                # A rewrite may add a decorator (`@torch.compiler.disable`): its row belongs to the function.
                first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                last = child.end_lineno or child.lineno
                if any(first <= row <= last for row in changed_rows):
                    inner = len(found)
                    visit(child, name + ".")
                    if len(found) == inner:  # the innermost function holds the change
                        found.append((name, first, last))

    visit(ast.parse(after), "")
    return found


def _unchanged_rows(before: str, after: str) -> dict[int, int]:
    """Row in `after` -> the same row in `before`, for the rows a rewrite left as they were."""
    matcher = difflib.SequenceMatcher(a=before.splitlines(), b=after.splitlines(), autojunk=False)
    return {j + 1 + k: i + 1 + k for tag, i, i2, j, _ in matcher.get_opcodes() if tag == "equal"
            for k in range(i2 - i)}


def _in_original(where: str, original_rows: dict[str, dict[int, int]]) -> str:
    path, _, row = where.rpartition(":")
    rows = original_rows.get(path)
    if rows is None or not row.isdigit():
        return where
    original = rows.get(int(row))
    return f"{path}:{original}" if original is not None else f"{where} (rewritten line)"


def _same(a: list[Any], b: list[Any]) -> bool:
    import torch

    if len(a) != len(b):
        return False
    for x, y in zip(a, b, strict=True):
        if x.shape != y.shape or x.dtype != y.dtype:
            return False
        if x.is_floating_point() or x.is_complex():
            if not torch.equal(torch.nan_to_num(x, nan=0.0), torch.nan_to_num(y, nan=0.0)) or not torch.equal(
                x.isnan(), y.isnan()
            ):
                return False
        elif not torch.equal(x, y):
            return False
    return True


def _unexplained(original: dict[str, Any], rewritten: dict[str, Any]) -> list[str]:
    """Calls Dynamo could not explain on one side or both: they have no break count there, so their
    breaks are compared on neither (a Dynamo crash on the original is not 0 breaks)."""
    return sorted(call for call in original
                  if "dynamo_error" in original[call] or "dynamo_error" in rewritten.get(call, {}))


def _agrees(a: dict[str, Any], b: dict[str, Any], key: str, missing: bool = True) -> bool:
    """Whether two runs' `key` tensors are the same; `missing` answers when only one run has them."""
    if key in a and key in b:
        return _same(a[key], b[key])
    return (key not in a and key not in b) or missing


def check_library(name: str, unsafe: bool, worktree: str, with_control: bool = True) -> dict[str, Any]:
    started = time.perf_counter()
    spec = _load_spec(name)
    package_dir = os.path.dirname(__import__(spec.PACKAGE).__file__)
    report: dict[str, Any] = {"library": name}
    with tempfile.TemporaryDirectory() as scratch:
        copy = os.path.join(scratch, os.path.basename(package_dir))
        shutil.copytree(package_dir, copy, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        before_text = {p: p.read_text(encoding="utf-8", errors="replace") for p in Path(copy).rglob("*.py")}
        graphmend = [sys.executable, "-m", "graphmend_bot.cli", "check"]
        env = {**os.environ, "PYTHONPATH": worktree}
        listed = subprocess.run([*graphmend, "--output-format", "json", "--exit-zero", "--config",
                                 config_path(name), copy], capture_output=True, text=True, env=env, timeout=900)
        findings = json.loads(listed.stdout or "[]")
        report["findings"] = {"every-call": sum(f.get("frequency") != "rare-branch" for f in findings),
                              "rare-branch": sum(f.get("frequency") == "rare-branch" for f in findings)}
        fixed = subprocess.run([*graphmend, "--fix", *(["--unsafe-fixes"] if unsafe else []), "--exit-zero",
                                "--output-format", "json", "--config", config_path(name), copy],
                               capture_output=True, text=True, env=env, timeout=1800)
        report["fix_line"] = next((line for line in fixed.stderr.splitlines() if line.startswith("Fixed")),
                                  fixed.stderr.strip()[-300:])
        touched: list[dict[str, Any]] = []
        original_rows: dict[str, dict[int, int]] = {}  # rewritten file -> its row -> the original's row
        for path, before in before_text.items():
            after = path.read_text(encoding="utf-8", errors="replace")
            if after != before:
                relative = os.path.relpath(path, scratch)
                touched += [{"file": relative, "function": qualname, "rows": [first, last]}
                            for qualname, first, last in _touched_functions(before, after)]
                original_rows[relative] = _unchanged_rows(before, after)
        original = _run(name, os.path.dirname(package_dir), [])
        # A control run of the original separates nondeterministic calls from rewrite effects.
        control = _run(name, os.path.dirname(package_dir), []) if with_control else {}
        rewritten = _run(name, scratch, [scratch])
    report["calls"] = {}
    raising = changed = changed_gradients = nondeterministic = 0
    for call_name, old in original.items():
        new = rewritten.get(call_name, {})
        row = {"original_error": old.get("error"), "rewritten_error": new.get("error"),
               "breaks_before": len(old.get("breaks", [])), "breaks_after": len(new.get("breaks", []))}
        for side, entry in (("original", old), ("rewritten", new)):
            for key in ("dynamo_error", "coverage_error"):
                if key in entry:  # breaks or coverage not measured for this call: say so, not 0
                    row[f"{side}_{key}"] = entry[key]
        if new.get("error") and not old.get("error"):
            raising += 1
        again = control.get(call_name, {})
        if not (_agrees(old, again, "tensors") and _agrees(old, again, "gradients")):
            row["nondeterministic"] = True  # the original differs from itself: not a rewrite effect
            nondeterministic += 1
        else:
            if "tensors" in old and "tensors" in new:
                row["identical"] = _same(old["tensors"], new["tensors"])
                changed += not row["identical"]
            if "gradients" in old or "gradients" in new:
                row["identical_gradients"] = _agrees(old, new, "gradients", missing=False)
                changed_gradients += not row["identical_gradients"]
        report["calls"][call_name] = row
    for item in touched:
        rows = range(item["rows"][0], item["rows"][1] + 1)
        item["ran_by"] = sorted(call for call, entry in rewritten.items()
                                if any(line in rows for line in entry.get("ran", {}).get(item["file"], [])))
        item["ran"] = bool(item["ran_by"])
    report["touched_functions"] = touched
    report["touched_ran"] = sum(item["ran"] for item in touched)
    report["touched_ran_by_benchmark"] = sum(any(not c.startswith(REWRITE_CALL) for c in item["ran_by"])
                                             for item in touched)
    report["raising_calls"] = raising
    report["changed_outputs"] = changed
    report["changed_gradients"] = changed_gradients
    report["nondeterministic_calls"] = nondeterministic
    unexplained = _unexplained(original, rewritten)
    report["unexplained_calls"] = unexplained
    for label, of_rewrites in (("", False), ("rewrite_calls_", True)):
        before_breaks = {b for call, entry in original.items() if call.startswith(REWRITE_CALL) == of_rewrites
                         and call not in unexplained for b in entry.get("breaks", [])}
        # Rows below a rewrite move: name each break by its row in the original, where it has one.
        after_breaks = {_in_original(b, original_rows) for call, entry in rewritten.items()
                        if call.startswith(REWRITE_CALL) == of_rewrites and call not in unexplained
                        for b in entry.get("breaks", [])}
        report[f"{label}break_statements_before"] = len(before_breaks)
        report[f"{label}break_statements_after"] = len(after_breaks)
        report[f"{label}breaks_removed"] = sorted(before_breaks - after_breaks)
        report[f"{label}breaks_left"] = sorted(before_breaks & after_breaks)
        report[f"{label}breaks_new"] = sorted(after_breaks - before_breaks)
    report["seconds"] = round(time.perf_counter() - started, 1)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lib", action="append", choices=lib_names())
    parser.add_argument("--unsafe", action="store_true", help="apply --unsafe-fixes as well")
    parser.add_argument("--json", metavar="FILE")
    parser.add_argument("--no-control", action="store_true",
                        help="skip the second run of the original that detects nondeterministic calls")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--root", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        run_worker(args.worker, args.out, args.root)
        return 0
    worktree = str(HERE.parents[1])
    reports = []
    for name in args.lib or lib_names():
        try:
            report = check_library(name, args.unsafe, worktree, with_control=not args.no_control)
        except Exception as error:  # one library's failure is its row, not the run's end
            report = {"library": name, "error": _describe(error)}
        reports.append(report)
        print(_row(report), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(reports, indent=1), encoding="utf-8")
    return 0


def _row(report: dict[str, Any]) -> str:
    if "error" in report:
        return f"{report['library']:24s} error: {report['error']}"
    found = report["findings"]
    return (f"{report['library']:24s} findings every-call {found['every-call']:4d} rare {found['rare-branch']:4d} | "
            f"{report['fix_line']} | touched fns {len(report['touched_functions'])} ran {report['touched_ran']} | "
            f"(by the benchmark's calls {report['touched_ran_by_benchmark']}) | "
            f"raising {report['raising_calls']} changed outputs {report['changed_outputs']} "
            f"gradients {report['changed_gradients']} (nondeterministic {report.get('nondeterministic_calls', 0)}) | "
            f"break stmts {report['break_statements_before']} -> {report['break_statements_after']} "
            f"(rewrite calls {report['rewrite_calls_break_statements_before']} -> "
            f"{report['rewrite_calls_break_statements_after']}; unexplained calls "
            f"{len(report.get('unexplained_calls', []))}) | "
            f"{report['seconds']} s")


if __name__ == "__main__":
    raise SystemExit(main())
