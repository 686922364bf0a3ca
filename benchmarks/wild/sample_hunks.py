"""Draw a seeded sample of the hunks graphmend offers on the wild libraries (HUNKS.md, issue 16).

First write one diff per library (each library alone; the machine is shared):

    SP=/work/wt/wild/.venv-wild/lib/python3.11/site-packages
    PYTHONPATH=$PWD /work/wt/wild/.venv-wild/bin/python -m graphmend_bot.cli check --unsafe-fixes \\
        --diff --exit-zero --config benchmarks/wild/configs/<lib>.yml $SP/<package> > DIR/<lib>.diff

then `python benchmarks/wild/sample_hunks.py DIR --seed 16 --size 30`. Hunks are taken in
(library, diff) order, drawn with `random.Random(seed).sample`, and printed by library and file.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path


def hunks(directory: Path) -> list[tuple[str, str, str, list[str]]]:
    found: list[tuple[str, str, str, list[str]]] = []
    for diff in sorted(directory.glob("*.diff")):
        path = ""
        for line in diff.read_text(encoding="utf-8").splitlines():
            if line.startswith("+++ "):
                path = line[4:].split("site-packages/")[-1].split("\t")[0]
            elif line.startswith("@@"):
                found.append((diff.stem, path, line, []))
            elif found and found[-1][0] == diff.stem and not line.startswith(("--- ", "diff ")):
                found[-1][3].append(line)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--size", type=int, default=30)
    args = parser.parse_args()
    offered = hunks(args.directory)
    libraries = sorted({lib for lib, *_ in offered})
    print("hunks", len(offered), {lib: sum(h[0] == lib for h in offered) for lib in libraries})
    drawn = sorted(random.Random(args.seed).sample(offered, min(args.size, len(offered))), key=lambda h: (h[0], h[1]))
    for number, (lib, path, header, body) in enumerate(drawn, 1):
        print(f"### {number} {lib} {path} {header}")
        print("\n".join(line for line in body if line.startswith(("+", "-"))))


if __name__ == "__main__":
    main()
