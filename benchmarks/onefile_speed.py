"""Time a one-file check and a one-file review in a repository holding transformers, cold and warm.

A check of one file analyses its whole project (graphmend_bot/project.py), so these are the cases
the summary cache (graphmend_bot/analysis/summary_cache.py) is for: pre-commit passing one changed
file, and `graphmend review` of a pull request changing one file. The script copies the installed
transformers package (4.52.4 in benchmarks) into a temporary git repository and runs, as
subprocesses, each timed in wall seconds and CPU seconds (the process and its workers):

  check FILE   --no-cache                   every file summarised again (no cache at all)
  check FILE   cold                         an empty cache: summarises and stores every file
  check FILE   warm                         nothing changed since: the project's result is cached
  check FILE   warm, FILE edited            FILE summarised again; the edit (a new helper nothing
                                            calls) is one the last solve cannot have consulted, so
                                            its result is reused (analysis/incremental.py)
  check FILE   warm, `print` in forward     an edit of traced code (a `print` first in the
                                            `--traced` class's forward): it changes only what the
                                            file's findings are, so they alone are made again
                                            (analysis/redraft.py)
  review       --no-cache                   FILE edited, reviewed against HEAD with no cache
  review       warm                         the same, the cache written by `check .` on HEAD (what
                                            a default-branch run saves for pull requests)
  review       warm, `print` in forward     the `print` edit instead, reviewed the same way
  review       warm, `.item()` in forward   a new break first in `--item-in`'s forward (a function
                                            that did not break): the solve is kept when no
                                            consequence pass asked whether it or a traced caller
                                            breaks (redraft.py)
  check FILE   warm, `.item()` in forward   the same edit checked, from HEAD's own state (the cache
                                            made again by `check .`: a solve leaves its state behind)

Usage:

    .venv/bin/python benchmarks/onefile_speed.py [--package PATH] [--file models/llama/modeling_llama.py]
        [--traced LlamaModel]
"""

from __future__ import annotations

import argparse
import ast
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

EDIT = '''

def _graphmend_benchmark_helper(x, limit):
    if x.min() < -limit:
        print("out of range")
    return x
'''


def with_print_in_forward(text: str, class_name: str) -> str:
    """`text` with `print(...)` as the first statement of `class_name.forward` (after its docstring)."""
    return with_first_in_forward(text, class_name, lambda _: 'print("graphmend benchmark")')


def with_item_in_forward(text: str, class_name: str) -> str:
    """`text` with an `.item()` of forward's first tensor parameter as the first statement of
    `class_name.forward`: a new break in a function that may not have broken before."""
    return with_first_in_forward(text, class_name, lambda param: f"graphmend_scale = {param}.sum().item()")


def with_first_in_forward(text: str, class_name: str, statement: Callable[[str], str]) -> str:
    """`text` with `statement(forward's first parameter after self)` first in `class_name.forward`."""
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            forward = next(f for f in node.body if isinstance(f, ast.FunctionDef) and f.name == "forward")
            body = forward.body
            first = body[1] if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) else body[0]
            lines = text.splitlines(keepends=True)
            lines.insert(first.lineno - 1, " " * first.col_offset + statement(forward.args.args[1].arg) + "\n")
            return "".join(lines)
    sys.exit(f"no class {class_name} with a forward in the file")


def default_package() -> Path:
    try:
        import transformers
    except ImportError:
        sys.exit("transformers is not installed: pip install transformers==4.52.4, or pass --package")
    return Path(transformers.__file__).parent


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com", *args], cwd=repo,
                   check=True, capture_output=True)


def timed(repo: Path, *args: str) -> tuple[float, float]:
    """(wall s, CPU s of the command and every worker it started)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "graphmend_bot.cli", *args], cwd=repo, capture_output=True,
                          text=True, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        sys.exit(f"graphmend {' '.join(args)} failed ({done.returncode}): {done.stderr[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--package", type=Path, default=None, help="the transformers package folder to copy")
    parser.add_argument("--file", default="models/llama/modeling_llama.py", help="the file, inside the package")
    parser.add_argument("--traced", default="LlamaModel", help="the class of the file whose forward gets a print")
    parser.add_argument("--item-in", default="LlamaRMSNorm",
                        help="the class of the file whose forward gets an `.item()` (one that did not break)")
    args = parser.parse_args()
    package = args.package or default_package()
    with tempfile.TemporaryDirectory(prefix="graphmend-onefile-") as temporary:
        repo = Path(temporary)
        shutil.copytree(package, repo / "transformers", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        git(repo, "init", "-q")
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "transformers")
        count = sum(1 for _ in (repo / "transformers").rglob("*.py"))
        models = sum(1 for _ in (repo / "transformers" / "models").rglob("*.py"))
        target = repo / "transformers" / args.file
        relative = str(target.relative_to(repo))
        print(f"repository: transformers ({count} Python files; models/ {models}); file: {relative}")
        print(f"{'case':<52}{'wall s':>8}{'CPU s':>8}")
        rows = [
            ("check FILE --no-cache", ("check", "--no-cache", "--exit-zero", relative)),
            ("check FILE, cold cache (computes and stores)", ("check", "--exit-zero", relative)),
            ("check FILE, warm (nothing changed)", ("check", "--exit-zero", relative)),
        ]
        for name, command in rows:
            wall, cpu = timed(repo, *command)
            print(f"{name:<52}{wall:8.2f}{cpu:8.2f}")
        original = target.read_text("utf-8")
        target.write_text(original + EDIT, "utf-8")
        wall, cpu = timed(repo, "check", "--exit-zero", relative)
        print(f"{'check FILE, warm, FILE edited':<52}{wall:8.2f}{cpu:8.2f}")
        printing = with_print_in_forward(original, args.traced)
        target.write_text(printing, "utf-8")
        wall, cpu = timed(repo, "check", "--exit-zero", relative)
        print(f"{f'check FILE, warm, `print` in {args.traced}.forward':<52}{wall:8.2f}{cpu:8.2f}")
        target.write_text(original, "utf-8")
        timed(repo, "check", "--exit-zero", ".")  # HEAD's cache, as a default-branch run saves it
        # Other edits than above: the cache holds no result for these states of the tree.
        for name, text, command in [
            ("review --base HEAD, FILE edited, --no-cache", original + EDIT.replace("out of range", "below the limit"),
             ("review", "--base", "HEAD", "--no-cache", "--exit-zero")),
            ("review --base HEAD, FILE edited, warm (HEAD's cache)", None, ("review", "--base", "HEAD", "--exit-zero")),
            ("review --base HEAD, `print` in forward, warm", printing.replace("graphmend benchmark", "reviewed"),
             ("review", "--base", "HEAD", "--exit-zero")),
            ("review --base HEAD, `.item()` in forward, warm",
             with_item_in_forward(original, args.item_in).replace("graphmend_scale", "graphmend_reviewed"),
             ("review", "--base", "HEAD", "--exit-zero")),
        ]:
            if text is not None:
                target.write_text(text, "utf-8")
            wall, cpu = timed(repo, *command)
            print(f"{name:<52}{wall:8.2f}{cpu:8.2f}")
        # A solve leaves its state for the rows after it, and a cached `check .` keeps that state:
        # this row starts from HEAD's own state, as the rows above do, so that main and a branch compare.
        target.write_text(original, "utf-8")
        shutil.rmtree(repo / os.environ.get("GRAPHMEND_CACHE_DIR", ".graphmend_cache"))
        timed(repo, "check", "--exit-zero", ".")
        target.write_text(with_item_in_forward(original, args.item_in), "utf-8")
        wall, cpu = timed(repo, "check", "--exit-zero", relative)
        print(f"{f'check FILE, warm, `.item()` in {args.item_in}.forward':<52}{wall:8.2f}{cpu:8.2f}")


if __name__ == "__main__":
    main()
