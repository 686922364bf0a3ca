"""Spellings of the registry families behind the test half's "no rule" misses, measured.

Each case is a small module in benchmarks/spellings/ (the probe format of docs/coverage.md: modules
named `Probe...`, each compiled on its own, and `inputs()`), written the way libraries spell a construct: in a helper, a
method, through `self.attr`, a loop variable, a comprehension, a property, a module-level
constant... and near misses Dynamo traces. For each file this prints the lines TorchDynamo on the
pinned torch breaks at (id and reason, from `explain` plus the graph_breaks log) beside the
lines `graphmend check` reports, so a miss or a false positive reads off one row:

    PYTHONPATH=$PWD .venv/bin/python benchmarks/spelling_matrix.py [NAME_SUBSTRING ...]

Columns: file:line, Dynamo's break (gb id, reason) or `-`, graphmend's findings (code, gb id) or
`-`, and a verdict: `ok` (both or neither), `MISS` (Dynamo only), `FP` (graphmend only).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SPELLINGS = REPO / "benchmarks" / "spellings"
sys.path.insert(0, str(REPO))

import torch  # noqa: E402

from graphmend_bot.census.dynamo import Tree, explain_breaks  # noqa: E402
from graphmend_bot.config import Config  # noqa: E402
from graphmend_bot.engine import check  # noqa: E402


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(f"gm_spelling_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def dynamo_breaks(path: Path) -> dict[int, set[str]]:
    """line -> {"GBnnnn reason"} of the breaks Dynamo meets in `path`'s modules on `inputs()`: each
    class whose name starts with `Probe` is compiled on its own, so one case's break does not
    change what Dynamo sees in the next (a resumed frame takes the values bound before it)."""
    module = _load(path)
    here = str(path.resolve())
    found: dict[int, set[str]] = {}
    for name in sorted(n for n in vars(module) if n.startswith("Probe")):
        torch._dynamo.reset()
        explained = explain_breaks(getattr(module, name)(), tuple(module.inputs()), {}, Tree([str(path)]))
        for b in explained.breaks:
            if b.location and b.location[0] == here:
                found.setdefault(b.location[1], set()).add(f"{b.gb_id or '?'} {b.reason}")
    return found


def main(argv: list[str]) -> int:
    paths = sorted(p for p in SPELLINGS.glob("*.py") if not argv or any(a in p.stem for a in argv))
    result = check([str(p) for p in paths], Config(), jobs=1)
    reported: dict[tuple[str, int], set[str]] = {}
    for finding in result.findings:
        reported.setdefault((Path(finding.path).name, finding.location.row), set()).add(
            f"{finding.code} {finding.gb_id}"
        )
    tally = {"ok": 0, "MISS": 0, "FP": 0}
    for path in paths:
        try:
            breaks = dynamo_breaks(path)
        except Exception as error:  # a case that raises (in eager too): say so, measure the rest
            print(f"== {path.name}: raised {type(error).__name__}: {str(error)[:100]}")
            continue
        lines = sorted(set(breaks) | {row for name, row in reported if name == path.name})
        print(f"== {path.name}: {'no break' if not breaks else ''}")
        for line in lines:
            dynamo = "; ".join(sorted(breaks.get(line, ()))) or "-"
            ours = ", ".join(sorted(reported.get((path.name, line), ()))) or "-"
            verdict = "ok" if (dynamo == "-") == (ours == "-") else ("MISS" if ours == "-" else "FP")
            tally[verdict] += 1
            text = path.read_text().splitlines()[line - 1].strip()[:70]
            print(f"  {verdict:4} {line:3} {text:72} | dynamo: {dynamo[:60]:60} | graphmend: {ours}")
    print("tally:", tally)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
