"""Time the serial solve of `graphmend check` alone: what runs after the summaries, with one core idle.

The tree's summaries are made once (with the pool, as the CLI does) and kept in a pickle, then
the solve as engine.Workspace._result runs it (Program, public_api_reach, traced_drafts,
unproven_parameters, the findings) runs `--runs` times in this process, in CPU seconds, which a
shared machine disturbs less than wall time; the minimum is printed with a digest of the findings.
Run the same pickle against another checkout to compare two versions in one window (the digest
must match; set PYTHONHASHSEED=0 on both sides, the findings' sets are ordered by it). Usage:

    PYTHONHASHSEED=0 .venv/bin/python benchmarks/solve_speed.py [--tree PATH] --summaries FILE [--runs 3]

The pickle is written when FILE does not exist, and read otherwise (it is only valid for the
checkout that wrote it and those with the same summary model). Run from outside a checkout with
PYTHONPATH=OTHER to time another one: from inside, the current directory's package is imported.
"""

from __future__ import annotations

import argparse
import hashlib
import pickle
import sys
import time
from pathlib import Path

from graphmend_bot.analysis.scope import Program
from graphmend_bot.config import Config
from graphmend_bot.engine import Workspace, _finding
from graphmend_bot.findings import Finding
from graphmend_bot.gc_pause import collector_paused


def save_summaries(tree: str, path: Path) -> None:
    with collector_paused():
        workspace = Workspace([tree], Config(), whole_result=True)
        unread = [(p, scan.imports) for p, scan in workspace._scans.items() if p not in workspace.summaries]
        path.write_bytes(
            pickle.dumps(
                (list(workspace.summaries.values()), workspace.config.entry_points, workspace.scope, unread),
                protocol=5,
            )
        )


def solve(summaries: list, entry_points: list[str], scope: str, unread: list) -> list[Finding]:
    """As engine.Workspace._result, less the file errors and warnings."""
    program = Program(summaries, entry_points, [], scope, unread_imports=unread)
    reached = program.public_api_reach()
    standing = program.traced_drafts()
    unproven = program.unproven_parameters(
        {(t.module.module, t.function.qualname) for t in standing if t.draft.deps.params}
    )
    findings = [
        _finding(
            t.module,
            t.function,
            t.draft,
            reached.get((t.module.module, t.function.qualname), ""),
            unproven.get((t.module.module, t.function.qualname), ()),
        )
        for t in standing
    ]
    return sorted(findings, key=lambda f: f.sort_key)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=None)
    parser.add_argument("--summaries", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if not args.summaries.exists():
        if args.tree is None:
            sys.path.insert(0, str(Path(__file__).parent))
            from check_speed import default_tree

            args.tree = default_tree()
        save_summaries(str(args.tree), args.summaries)
    with collector_paused():
        loaded = pickle.loads(args.summaries.read_bytes())
    seconds: list[float] = []
    for _ in range(args.runs):
        with collector_paused():  # as engine.Workspace.result does
            start = time.process_time()
            findings = solve(*loaded)
            seconds.append(time.process_time() - start)
    digest = hashlib.sha256(repr(findings).encode()).hexdigest()[:16]
    print(
        f"serial solve: {min(seconds):.3f} s CPU (min of {' '.join(f'{s:.3f}' for s in seconds)}), "
        f"{len(findings)} findings, digest {digest}"
    )


if __name__ == "__main__":
    main()
