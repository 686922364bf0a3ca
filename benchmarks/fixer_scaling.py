"""How `graphmend check --diff` scales with the graph breaks in one `forward` (issue 25.4).

Two generated models, each one `forward` with N breaks: `io` (N `print` lines in a row, which share
one guard) and `mixed` (a `print`, an `.item()`, an `if` on a tensor and a ternary on a tensor, in
turn, each followed by an ordinary line). Prints the wall time of the CLI for each N, and whether the
fixer's per-file limit stopped it (`fixes skipped`).

    .venv/bin/python benchmarks/fixer_scaling.py                 # io and mixed, N = 250 500 1000
    .venv/bin/python benchmarks/fixer_scaling.py io 250 500 1000
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

HEADER = ["import torch", "from torch import nn", "", "", "class M(nn.Module):", "    def forward(self, x):"]


def io_model(n: int) -> str:
    return "\n".join([*HEADER, *(f"        print('step {i}', x.shape)" for i in range(n)), "        return x", ""])


def mixed_model(n: int) -> str:
    body = []
    for i in range(n):
        body += [
            [f"        print('step {i}', x.shape)", "        x = x + 1"],
            [f"        v{i} = x.sum().item()", f"        x = x * v{i}"],
            [f"        if x.sum() > {i}:", "            x = x * 2"],
            [f"        y{i} = x.max() if x.sum() > 0 else x.min()", f"        x = x + y{i}"],
        ][i % 4]
    return "\n".join([*HEADER, *body, "        return x", ""])


MODELS = {"io": io_model, "mixed": mixed_model}


def main(argv: list[str]) -> None:
    kinds = [a for a in argv if a in MODELS] or list(MODELS)
    sizes = [int(a) for a in argv if a.isdigit()] or [250, 500, 1000]
    with tempfile.TemporaryDirectory() as scratch:
        for kind in kinds:
            for n in sizes:
                path = Path(scratch) / f"{kind}{n}.py"
                path.write_text(MODELS[kind](n))
                start = time.perf_counter()
                done = subprocess.run([sys.executable, "-m", "graphmend_bot.cli", "check", "--diff", "--unsafe-fixes",
                                       str(path)], capture_output=True, text=True, check=False)
                seconds = time.perf_counter() - start
                summary = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "?"
                skipped = " (fixes skipped: the per-file limit)" if "fixes skipped" in done.stderr else ""
                print(f"{kind:5} N={n:5}: {seconds:7.1f} s  {summary}{skipped}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
