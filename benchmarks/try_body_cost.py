"""A long `try` body against the same statements under an `if`: CPU seconds of `graphmend check`.

Whether a break at a row of a try body ends the frame (skipped_frames.FrameSkips.ends_frame) is
asked at every call site in it; a scan of the body's row ranges per site made it quadratic (9.2 s
against 1.6 s for 16,000 statements at d5c9d0d9, 1.9 s after the set lookup). Prints both times,
the best of `--runs` runs each. Usage:

    .venv/bin/python benchmarks/try_body_cost.py [--statements 8000] [--runs 2]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from graphmend_bot.config import Config
from graphmend_bot.engine import check


def source(header: str, footer: str, statements: int) -> str:
    body = "\n".join(f"            y = self.f(x) + {i}" for i in range(statements))
    return (
        "import torch\n\n\nclass M(torch.nn.Module):\n    def f(self, x):\n        return x + 1\n\n"
        f"    def forward(self, x):\n        {header}\n{body}\n{footer}        return x\n"
    )


def seconds(text: str, path: Path, runs: int) -> float:
    path.write_text(text)
    best = float("inf")
    for _ in range(runs):
        start = time.process_time()
        result = check([str(path)], Config(), jobs=1)
        best = min(best, time.process_time() - start)
        if result.errors:
            sys.exit(f"check failed: {result.errors}")
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--statements", type=int, default=8000)
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        in_if = seconds(source("if x is not None:", "", args.statements), Path(folder) / "in_if.py", args.runs)
        in_try = seconds(
            source("try:", "        except ValueError:\n            pass\n", args.statements),
            Path(folder) / "in_try.py", args.runs,
        )
    print(f"{args.statements} statements: under an if {in_if:.2f} s CPU, in a try body {in_try:.2f} s CPU "
          f"({in_try / in_if:.2f}x)")


if __name__ == "__main__":
    main()
