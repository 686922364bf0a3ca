"""What trusting the CLI's summary cache adds to a warm check (analysis/cache_trust.py, review14 #1).

A warm `graphmend check` reads one scan entry per file and the project's result: this times the
per-run folder check (ownership, `git ls-files`, the user's key) and the HMAC check of every entry
the cache holds, as `SummaryCache._load` does it. Usage, in a project checked once before (its
`.graphmend_cache` filled by this checkout):

    PYTHONPATH=$PWD .venv/bin/python benchmarks/cache_trust_cost.py PROJECT_ROOT [--runs 20]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from graphmend_bot.analysis.cache_trust import project_cache, user_key
from graphmend_bot.analysis.summary_cache import CACHE_DIR_NAME, SummaryCache


def timed(action: Callable[[], object], runs: int) -> str:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return f"median {statistics.median(times) * 1e3:.1f} ms, min {min(times) * 1e3:.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    key = user_key()
    if key is None:
        raise SystemExit("no signing key")
    folder = args.root / CACHE_DIR_NAME  # what a warm run reads: the scans and the result, no summary
    entries = [path.read_bytes() for kind in ("scan", "result") for path in folder.glob(f"{kind}/*/*.json")]

    def verify_all() -> None:
        for data in entries:
            signature, _, payload = data.partition(b"\n")
            SummaryCache._signature(key, payload) == signature  # noqa: B015 (the cost is the point)

    print(
        f"the folder check (owner, git ls-files, key): {timed(lambda: project_cache(args.root, print), args.runs)}"
    )
    size = sum(map(len, entries)) // 1024
    print(f"HMAC of all {len(entries)} entries ({size} KiB): {timed(verify_all, args.runs)}")


if __name__ == "__main__":
    main()
