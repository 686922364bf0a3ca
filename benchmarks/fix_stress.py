"""Stress `graphmend check --fix --unsafe-fixes` on big real trees, in temporary copies.

Trees: the running interpreter's standard library and the installed transformers package (4.52.4).
For each: copy it, run the CLI with --fix --unsafe-fixes twice, and check: no traceback or
internal error, every file that parsed before still parses, the second run changes nothing.
Prints counts and times.

    .venv/bin/python benchmarks/fix_stress.py            # both trees
    .venv/bin/python benchmarks/fix_stress.py stdlib     # or: transformers
"""

from __future__ import annotations

import ast
import hashlib
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


def main(argv: list[str]) -> int:
    defer = "--defer" in argv
    names = [a for a in argv if a != "--defer"] or ["stdlib", "transformers"]
    results = [stress(name, defer) for name in names]
    print("OK" if all(results) else "FAILED")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
