"""How the incremental name check scales with a function that names itself on every row.

A generated table (or a pull request wanting its review to time out) once made
`names_written_only_inside` count the newlines before every occurrence: 36 s for a 1.6 MB file,
4 minutes at twice the size. Prints seconds per size; linear means the ratio stays near 2.
Run: PYTHONPATH=$PWD python benchmarks/name_check_scaling.py
"""

from __future__ import annotations

import time

from graphmend_bot.analysis.incremental import names_written_only_inside

ROW = "    helper_aa = helper_aa + helper_aa + helper_aa + helper_aa + helper_aa + helper_aa\n"


def seconds(rows: int) -> float:
    text = f"def helper_aa():\n    helper_aa = 1\n{ROW * rows}    return 0\n"
    started = time.perf_counter()
    names_written_only_inside({"m.py": {"helper_aa"}}, {"m.py": text})
    return time.perf_counter() - started


def main() -> None:
    previous = None
    for rows in (7_500, 15_000, 30_000):
        took = seconds(rows)
        ratio = f"  x{took / previous:.2f}" if previous else ""
        print(f"{rows:>6} rows ({len(ROW) * rows / 1e6:.1f} MB): {took:.2f} s{ratio}")
        previous = took


if __name__ == "__main__":
    main()
