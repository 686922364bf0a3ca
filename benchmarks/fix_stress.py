"""Stress `graphmend check --fix --unsafe-fixes` on big real trees, in temporary copies.

Trees: the running interpreter's standard library and the installed transformers package (4.52.4).
For each: copy it, run the CLI with --fix --unsafe-fixes twice, and check: no traceback or
internal error, every file that parsed before still parses, the second run changes nothing.
Prints counts and times.

    .venv/bin/python benchmarks/fix_stress.py            # both trees
    .venv/bin/python benchmarks/fix_stress.py stdlib     # or: transformers

`imports` checks that a fixed package still imports: with the interpreter given by `--python`
(one where the release under test and torch==2.13.0 are installed), the package is copied, fixed
with `--fix` and, in a second copy, with `--fix --unsafe-fixes`; then every changed module is
imported in a subprocess with the fixed copy first on sys.path. A module that fails there but
imports from an unchanged copy is a failure (one that fails both ways lacks an optional
dependency, and is counted apart).

    .venv/bin/python benchmarks/fix_stress.py imports --python /path/to/venv/bin/python [--package transformers]
"""

from __future__ import annotations

import ast
import hashlib
import json
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
import warnings
from pathlib import Path

IGNORED = shutil.ignore_patterns("__pycache__", "site-packages", "*.pyc")


def tree_root(name: str) -> Path:
    if name == "stdlib":
        return Path(sysconfig.get_paths()["stdlib"])
    if name == "transformers":
        import transformers

        return Path(transformers.__file__).parent
    raise SystemExit(f"unknown tree {name!r}: choose stdlib or transformers")


def snapshot(root: Path) -> dict[Path, str]:
    return {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*.py")) if p.is_file()}


def parses(path: Path) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ast.parse(path.read_bytes())
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False
    return True


def run_fix(root: Path) -> tuple[float, subprocess.CompletedProcess[str]]:
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "graphmend_bot.cli", "check", str(root), "--fix", "--unsafe-fixes", "--exit-zero"],
        capture_output=True, text=True, check=False,
    )
    return time.perf_counter() - start, result


def write_config(root: Path, name: str, defer: bool) -> None:
    lines = ['entry-points: ["*:*"]'] if name == "stdlib" else []
    if defer:
        lines.append("io-strategy: defer")
    if lines:
        (root / ".graphmend.yml").write_text("\n".join(lines) + "\n", encoding="utf-8")


def stress(name: str, defer: bool) -> bool:
    source = tree_root(name)
    with tempfile.TemporaryDirectory(prefix=f"graphmend-stress-{name}-") as temp:
        root = Path(temp) / source.name
        shutil.copytree(source, root, ignore=IGNORED, symlinks=True)
        write_config(root, name, defer)
        before = snapshot(root)
        parsed_before = {p for p in before if parses(p)}
        first_time, first = run_fix(root)
        after = snapshot(root)
        changed = [p for p in before if after.get(p) != before[p]]
        broken = sorted(p for p in parsed_before if p in changed and not parses(p))
        second_time, second = run_fix(root)
        again = snapshot(root)
        not_idempotent = sorted(p for p in after if again.get(p) != after[p])
        output = first.stdout + first.stderr + second.stdout + second.stderr
        tracebacks = output.count("Traceback")
        internal = [line for line in output.splitlines() if "internal error" in line]
        print(f"== {name}: {source}" + (" (io-strategy defer)" if defer else ""))
        print(f"files {len(before)}, parsed before {len(parsed_before)}, rewritten {len(changed)}")
        print(f"first --fix {first_time:.1f} s (exit {first.returncode}): {first.stderr.strip().splitlines()[-1:]}")
        print(f"second --fix {second_time:.1f} s (exit {second.returncode}): {second.stderr.strip().splitlines()[-1:]}")
        print(f"tracebacks {tracebacks}, internal errors {len(internal)}, no longer parse {len(broken)}, "
              f"changed by the second run {len(not_idempotent)}")
        for line in internal[:10]:
            print("  internal:", line)
        for path in broken[:10]:
            print("  broken:", path.relative_to(root))
        for path in not_idempotent[:10]:
            print("  not idempotent:", path.relative_to(root))
        ok = first.returncode in (0, 1) and second.returncode in (0, 1)
        return ok and not (tracebacks or internal or broken or not_idempotent)


# Imports each module named on the command line (after the root put first on sys.path) and prints
# one JSON object: module -> None, or the exception it raised.
IMPORTER = """
import importlib, json, sys
sys.path.insert(0, sys.argv[1])
failures = {}
for name in sys.argv[2:]:
    try:
        importlib.import_module(name)
        failures[name] = None
    except BaseException as error:
        failures[name] = f"{type(error).__name__}: {error}"[:300]
print(json.dumps(failures))
"""


def module_name(root: Path, path: Path) -> str:
    """`transformers.models.bert.modeling_bert` for root/../models/bert/modeling_bert.py."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_modules(python: str, root: Path, names: list[str]) -> dict[str, str | None]:
    """Each of `names` imported from `root`'s parent; a module that fails in the shared process is
    imported again on its own, so one broken module does not fail the ones that import it."""
    def run(batch: list[str]) -> dict[str, str | None]:
        done = subprocess.run([python, "-c", IMPORTER, str(root.parent), *batch], capture_output=True, text=True,
                              check=False, cwd=root.parent)
        try:
            return dict(json.loads(done.stdout.strip().splitlines()[-1]))
        except (ValueError, IndexError):
            return {name: f"the importer died: {done.stderr.strip()[-300:]}" for name in batch}

    results = run(names) if names else {}
    for name in [n for n, error in results.items() if error]:
        results[name] = run([name])[name]
    return results


def located(python: str, package: str) -> tuple[Path, str]:
    done = subprocess.run(
        [python, "-c", f"import {package} as p, os; print(os.path.dirname(p.__file__)); print(p.__version__)"],
        capture_output=True, text=True, check=True,
    )
    folder, version = done.stdout.split()
    return Path(folder), version


def imports(python: str, package: str) -> bool:
    """`--fix` and `--fix --unsafe-fixes` over `package` as `python` has it; every changed module
    must still import."""
    source, version = located(python, package)
    ok = True
    with tempfile.TemporaryDirectory(prefix=f"graphmend-imports-{package}-") as temp:
        for unsafe in (False, True):
            mode = "--fix --unsafe-fixes" if unsafe else "--fix"
            root = Path(temp) / ("unsafe" if unsafe else "safe") / source.name
            shutil.copytree(source, root, ignore=IGNORED, symlinks=True)
            before = snapshot(root)
            start = time.perf_counter()
            fixed = subprocess.run(
                [sys.executable, "-m", "graphmend_bot.cli", "check", str(root), *mode.split(), "--exit-zero"],
                capture_output=True, text=True, check=False,
            )
            seconds = time.perf_counter() - start
            after = snapshot(root)
            names = sorted(module_name(root, p) for p in before if after.get(p) != before[p])
            results = import_modules(python, root, names)
            failing = {name: error for name, error in results.items() if error}
            baseline = import_modules(python, source, sorted(failing))
            broken = {name: error for name, error in failing.items() if not baseline.get(name)}
            print(f"== {package} {version} ({source}), {mode}: {seconds:.0f} s, exit {fixed.returncode}, "
                  f"{fixed.stderr.strip().splitlines()[-1:]}")
            print(f"modules changed {len(names)}, import failures {len(broken)} "
                  f"(and {len(failing) - len(broken)} that fail unchanged too: optional dependencies)")
            for name, error in sorted(broken.items())[:20]:
                print(f"  import failure: {name}: {error}")
            ok = ok and fixed.returncode in (0, 1) and not broken and "Traceback" not in fixed.stderr
    return ok


def main(argv: list[str]) -> int:
    if argv[:1] == ["imports"]:
        python = argv[argv.index("--python") + 1] if "--python" in argv else sys.executable
        package = argv[argv.index("--package") + 1] if "--package" in argv else "transformers"
        ok = imports(python, package)
        print("OK" if ok else "FAILED")
        return 0 if ok else 1
    defer = "--defer" in argv
    names = [a for a in argv if a != "--defer"] or ["stdlib", "transformers"]
    results = [stress(name, defer) for name in names]
    print("OK" if all(results) else "FAILED")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
