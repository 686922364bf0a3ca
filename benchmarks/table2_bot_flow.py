"""Table 2 through the bot's own flow (`verify_table2.py --bot-flow`): fix set, measurement, decision.

1. A git repository stands for the user's project: a copy of the installed transformers, the
   factories of benchmarks/hf_models.py, and a `.graphmend.yml` whose `verify` section names the
   11 models as entry points (CPU settings), with `deprecation-notices: guard` (transformers'
   own convention, `deprecate_kwarg`). Its first commit is the base.
2. The fix pull request's content: `bot_fix_set(["."], config, "verified")`, the function the bot
   calls for `fixes: verified` (and the approval's recompute calls on the base), made into a plan
   with `plan_fix` and committed as the head.
3. The measurement: `graphmend approve measure` itself, in a subprocess as the workflow runs it
   (no token in its environment), which runs `graphmend verify --against BASE` on the checkout.
4. The decision: the approval's own `decide` on that report. The rewrite check (`with_rewrite_check`)
   needs GitHub; the head is by construction the recomputed rewrite (the same function made it),
   and tests/github/test_github_verified_reach.py covers the recompute against the fake GitHub.
5. Narrowing (github/fixes/narrowing.py), when the decision is COMMENT only because some rewritten
   lines never ran: the fixes holding those lines (`unproven_fixes` on the report's coverage) are
   dropped from the fix (`narrow`, as the bot does on its next run and the approval's recompute
   does with the recorded exclusions), the narrowed head is committed on the base, measured again
   and decided again. tests/github/test_github_narrowing.py covers it against the fake GitHub.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from graphmend_bot.config import load_config
from graphmend_bot.github.approval.verdict import COMMENT, decide
from graphmend_bot.github.fixes.fix_pr import plan_fix
from graphmend_bot.github.fixes.fix_set import bot_fix_set
from graphmend_bot.github.fixes.narrowing import Change, Narrowed, narrow, uncovered_lines, unproven_fixes

TABLE2_BREAKS, TABLE2_TARGET = 47, 42  # issue 11: verified fixes remove at least 42 of the 47


def build_repository(repo: Path, benchmarks: Path, names: list[str], settings: dict[str, Any]) -> str:
    """The base commit: transformers, hf_models.py and the verify configuration; returns its SHA."""
    import transformers

    installed = Path(transformers.__file__).parent
    shutil.copytree(installed, repo / "transformers", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(benchmarks / "hf_models.py", repo / "hf_models.py")
    verify = {**settings, "entry-points": [f"hf_models:{name}" for name in names]}
    # transformers skips its own deprecation notices under compile (utils/deprecation.py,
    # `deprecate_kwarg`): its maintainers' choice, declared as they would declare it.
    config = {"deprecation-notices": "guard", "verify": verify}
    (repo / ".graphmend.yml").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    _git(repo, "init", "-q", "-b", "main")
    return _commit(repo, "base: transformers with the Table 2 entry points")


def commit_fix(repo: Path) -> tuple[str, str, list[Change]]:
    """The fix pull request's head as the bot computes it; (SHA, the fix set's note, its changes)."""
    config = load_config(repo / ".graphmend.yml")
    with contextlib.chdir(repo):  # as the bot and the recompute run it: from the repository root, on "."
        fix_set = bot_fix_set(["."], config, "verified")
    triples = [(os.path.relpath(os.path.abspath(repo / c.path), repo).replace(os.sep, "/"), c.before, c.after)
               for c in fix_set.changes]
    return _commit_changes(repo, triples, "GraphMend: verified fixes"), fix_set.note, triples


def commit_narrowed(repo: Path, base: str, changes: list[Change], report: dict[str, Any]) -> tuple[str, Narrowed]:
    """The fix without its unproven fixes, committed on the base: (SHA, what was dropped)."""
    narrowed = narrow(changes, unproven_fixes(changes, uncovered_lines(report)))
    _git(repo, "checkout", "-q", "-b", "narrowed", base)
    return _commit_changes(repo, narrowed.changes, "GraphMend: verified fixes, unproven ones dropped"), narrowed


def _commit_changes(repo: Path, changes: list[Change], message: str) -> str:
    for file in plan_fix(changes, [], repo, None, verified=True).files:
        (repo / file.path).write_bytes(file.content)
    return _commit(repo, message)


def measure(repo: Path, base: str, head: str, report: Path) -> tuple[int, str]:
    """`graphmend approve measure` as the verify workflow runs it, but outside the sandbox: the code is
    this benchmark's own, and its dependencies live in this venv, which the sandbox user may not be
    able to read; (exit status, its stderr tail)."""
    env = {name: value for name, value in os.environ.items() if not name.startswith(("GITHUB_", "GH_"))}
    done = subprocess.run(
        [sys.executable, "-I", "-m", "graphmend_bot.cli", "approve", "measure", "--checkout", str(repo),
         "--head-sha", head, "--base-sha", base, "--report", str(report), "--no-sandbox"],
        cwd=repo.parent, env=env, capture_output=True, text=True, check=False)
    return done.returncode, "\n".join(done.stderr.strip().splitlines()[-5:])


def run(work: Path, benchmarks: Path, names: list[str], settings: dict[str, Any]) -> dict[str, Any]:
    repo = work / "repo"
    repo.mkdir(parents=True)
    base = build_repository(repo, benchmarks, names, settings)
    start = time.perf_counter()
    head, note, changes = commit_fix(repo)
    print(f"fix set (bot_fix_set, fixes: verified): {len(changes)} file(s) changed in "
          f"{time.perf_counter() - start:.0f} s; {note}", flush=True)
    print("rewritten lines per file:\n" + _git(repo, "diff", "--stat", base, head), flush=True)
    report = measure_and_decide(repo, base, head, work / "verify.json")
    if not report or decide(report).event != COMMENT or decide(report).reasons:
        return report
    head, narrowed = commit_narrowed(repo, base, changes, report)
    print(f"\nnarrowing: {len(narrowed.dropped)} unproven fix(es) dropped (they stay review suggestions): "
          + ", ".join(narrowed.dropped), flush=True)
    print("rewritten lines per file:\n" + _git(repo, "diff", "--stat", base, head), flush=True)
    return {"first": report, "narrowed": measure_and_decide(repo, base, head, work / "verify-narrowed.json"),
            "dropped": narrowed.dropped}


def measure_and_decide(repo: Path, base: str, head: str, report_file: Path) -> dict[str, Any]:
    start = time.perf_counter()
    status, tail = measure(repo, base, head, report_file)
    print(f"graphmend approve measure: exit {status} in {time.perf_counter() - start:.0f} s", flush=True)
    if not report_file.is_file():
        print(f"no report: {tail}")
        return {}
    report: dict[str, Any] = json.loads(report_file.read_text(encoding="utf-8"))
    print_report(report)
    return report


def print_report(report: dict[str, Any]) -> None:
    entries = [e for e in report.get("entry_points") or [] if isinstance(e, dict)]
    print("\nmodel                breaks  eager bit-identical  compiled policy  lines run  cold   steady")
    before_total = after_total = 0
    colds, steadies = [], []
    for entry in entries:
        original, rewritten = entry.get("original") or {}, entry.get("rewritten") or {}
        before, after = original.get("graph_break_count"), rewritten.get("graph_break_count")
        if isinstance(before, int) and isinstance(after, int):
            before_total += before
            after_total += after
        rows = (entry.get("equivalence") or {}).get("outputs") or []
        eager = _rule_verdict(rows, "eager-bitwise")  # outputs, and gradients with backward
        compiled = _rule_verdict(rows, "compiled-vs")  # against the fp64 reference (or eager)
        covered = len((entry.get("coverage") or {}).get("covered") or [])
        cold, steady = entry.get("cold_start_speedup"), entry.get("steady_state_speedup")
        colds += [cold] if isinstance(cold, float) else []
        steadies += [steady] if isinstance(steady, float) else []
        print(f"{entry.get('name', '?'):<20} {before}->{after:<4} {eager:<20} {compiled:<16} {covered:<10} "
              f"{_x(cold):<6} {_x(steady)}")
        for reason in entry.get("reasons") or []:
            print(f"    {reason}")
    print(f"\nbreaks: {before_total} -> {after_total} ({before_total - after_total} removed; "
          f"Table 2 target: >= {TABLE2_TARGET} of {TABLE2_BREAKS})")
    if colds and steadies:
        print(f"cold start  (original / rewritten): mean {statistics.mean(colds):.2f}x, "
              f"geomean {statistics.geometric_mean(colds):.2f}x, max {max(colds):.2f}x")
        print(f"steady state (original / rewritten): mean {statistics.mean(steadies):.2f}x, "
              f"geomean {statistics.geometric_mean(steadies):.2f}x, max {max(steadies):.2f}x")
    coverage = report.get("coverage") or {}
    print(f"coverage: {len(coverage.get('covered') or [])} of {coverage.get('rewritten_lines')} rewritten lines "
          "executed by an entry point")
    decision = decide(report)
    print(f"review event (approval's decide): {decision.event}")
    for reason in [*decision.reasons, *decision.unproven]:
        print(f"  - {reason}")


def _rule_verdict(rows: list[dict[str, Any]], rule: str) -> str:
    """pass/FAIL over the output rows judged by a rule whose name contains `rule` (policy.py's names)."""
    judged = [row for row in rows if rule in str(row.get("rule", ""))]
    if not judged:
        return "-"
    return "pass" if all(row.get("passed") is True for row in judged) else "FAIL"


def _x(value: Any) -> str:
    return f"{value:.2f}x" if isinstance(value, float) else "-"


def _commit(repo: Path, message: str) -> str:
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "commit", "-q", "-m", message)
    return _git(repo, "rev-parse", "HEAD").strip()


def _git(repo: Path, *arguments: str) -> str:
    return subprocess.run(["git", *arguments], cwd=repo, capture_output=True, text=True, check=True).stdout
