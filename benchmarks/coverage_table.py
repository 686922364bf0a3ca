"""Write docs/coverage.md from torch's graph-break registry: for every id, the rules that report it
(each with the probes in tests/coverage_probes/ that Dynamo breaks with exactly that id), or why
none does (benchmarks/coverage_reasons.py).

    python benchmarks/coverage_table.py           # (re)write docs/coverage.md
    python benchmarks/coverage_table.py --check   # exit 1 when docs/coverage.md is out of date

The registry is torch/_dynamo/graph_break_registry.json of the installed torch (the pinned 2.13.0);
torch is not imported. tests/test_coverage.py keeps the file in step and runs every probe.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from coverage_reasons import CATEGORIES, REASONS, category_by_keywords, placements  # noqa: E402

from graphmend_bot.rules import RULES, Rule  # noqa: E402

COVERAGE_MD = REPO / "docs" / "coverage.md"
PROBES = REPO / "tests" / "coverage_probes"
Registry = dict[str, list[dict[str, Any]]]

_MARK = re.compile(r"#\s*graph-break:\s*(?P<gb>GB\d{4})\s+(?P<code>GM\d{3}|-)\s*$")
# The line a category's keyword assignment stands for, in the table's reason column.
_BY_KEYWORD = {
    "internal": "Dynamo's hint: likely a Dynamo bug",
    "eager-error": "Dynamo's hint: raises in eager too",
    "hop": "a higher-order operator's arguments",
    "object-model": "a C slot Dynamo's model of the type lacks",
    "config": "the setting the entry names",
}


@dataclass(frozen=True)
class Mark:
    """`# graph-break: GB0170 GM101` on a probe's line: Dynamo breaks there with that id, and that
    rule reports it (`-`: no rule does yet)."""

    line: int
    gb_id: str
    code: str

    @classmethod
    def parse(cls, line: int, text: str) -> Mark | None:
        match = _MARK.search(text)
        return cls(line, match["gb"], match["code"]) if match else None


def probe_marks(path: Path) -> list[Mark]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [mark for row, text in enumerate(lines, start=1) if (mark := Mark.parse(row, text))]


def registry_path() -> Path:
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("torch is not installed: the registry is torch/_dynamo/graph_break_registry.json")
    return Path(next(iter(spec.submodule_search_locations))) / "_dynamo" / "graph_break_registry.json"


def load_registry() -> Registry:
    with registry_path().open(encoding="utf-8") as file:
        registry: Registry = json.load(file)
    return registry


def torch_version() -> str:
    return importlib.metadata.version("torch").split("+")[0]


@dataclass
class Coverage:
    """Where each id of the registry lands."""

    rules: dict[str, list[Rule]]  # id -> the rules that report it
    probes: dict[tuple[str, str], list[str]]  # (id, rule code) -> probe file names
    left: dict[str, list[str]]  # construct -> ids
    reasons: dict[str, list[tuple[str, str]]]  # category -> [(id, reason)]


def classify(registry: Registry) -> Coverage:
    rules: dict[str, list[Rule]] = {}
    for rule in RULES:
        for gb_id in rule.gb_ids:
            rules.setdefault(gb_id, []).append(rule)
    probes: dict[tuple[str, str], list[str]] = {}
    for path in sorted(PROBES.glob("gb*.py")):
        for mark in probe_marks(path):
            names = probes.setdefault((mark.gb_id, mark.code), [])
            if path.name not in names:
                names.append(path.name)
    constructs = placements()
    left: dict[str, list[str]] = {}
    reasons: dict[str, list[tuple[str, str]]] = {category: [] for category in CATEGORIES}
    unplaced = []
    for gb_id, entries in registry.items():
        if gb_id in rules:
            continue
        if gb_id in constructs:
            left.setdefault(constructs[gb_id], []).append(gb_id)
        elif gb_id in REASONS:
            category, reason = REASONS[gb_id]
            reasons[category].append((gb_id, reason))
        elif (category := category_by_keywords(entries)) is not None:
            reasons[category].append((gb_id, _BY_KEYWORD[category]))
        else:
            unplaced.append(gb_id)
    if unplaced:
        raise SystemExit(f"ids with no rule, no construct and no reason: {', '.join(unplaced)} "
                         "(place each in benchmarks/coverage_reasons.py)")
    return Coverage(rules, probes, left, reasons)


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _gb_type(registry: Registry, gb_id: str) -> str:
    return _cell(registry[gb_id][0]["Gb_type"])


def render(registry: Registry) -> str:
    coverage = classify(registry)
    with_rule = sorted(gb for gb in registry if gb in coverage.rules)
    n_left = sum(len(ids) for ids in coverage.left.values())
    n_reason = sum(len(ids) for ids in coverage.reasons.values())
    out = [
        "# Graph-break registry coverage",
        "",
        f"Generated by `python benchmarks/coverage_table.py` from `torch/_dynamo/graph_break_registry.json` "
        f"of torch {torch_version()}; `tests/test_coverage.py` fails when it is out of date. Every id of the "
        "registry is listed once: with the rules that report it, each with a probe Dynamo breaks with "
        "exactly that id; as a construct in user source no rule reports yet (the roadmap); or with the "
        "reason it cannot be seen in source. An id with a rule is covered for the constructs that rule "
        "names (`graphmend rule CODE`): the same id can come from others, as GB0007 comes from any "
        "function Dynamo skips.",
        "",
        "| ids | count |",
        "|---|---|",
        f"| with a rule | {len(with_rule)} |",
        f"| with a reason | {n_reason} |",
        f"| left: a construct in source, no rule yet | {n_left} |",
        f"| total | {len(registry)} |",
        "",
        "## Adding a probe",
        "",
        "A probe is `tests/coverage_probes/<gb id lowercase>_<slug>.py` (`gb0170_tensor_bool_in_if.py`): a "
        "module docstring that starts with the id and its Gb_type, `class Probe(torch.nn.Module)` whose "
        "`forward` hits the construct, and `def inputs()` returning its positional arguments. Each line where "
        "Dynamo breaks ends with `# graph-break: GB0170 GM101`: the registry id, then the rule that must "
        "report that line with that id (`-` when no rule does yet). Every break Dynamo reports in the file "
        "is marked. A probe importing `fakedep` is checked with `dependencies: [fakedep]` "
        "(tests/fixtures/dependency/site). Then run `python benchmarks/coverage_table.py` and "
        "`pytest tests/test_coverage.py`. A rule whose findings carry ids besides `gb_id` and "
        "`python_bool_gb_id` lists them in `other_gb_ids`; each needs a probe.",
        "",
        "## Ids with a rule",
        "",
        "| id | Gb_type | rules | probes |",
        "|---|---|---|---|",
    ]
    for gb_id in with_rule:
        codes = ", ".join(rule.code for rule in coverage.rules[gb_id])
        probes = ", ".join(f"`{name}`" for rule in coverage.rules[gb_id]
                           for name in coverage.probes.get((gb_id, rule.code), []))
        out.append(f"| {gb_id} | {_gb_type(registry, gb_id)} | {codes} | {probes or 'none'} |")
    out += ["", "## Left: constructs in source that no rule reports yet", ""]
    for construct in sorted(coverage.left, key=lambda c: -len(coverage.left[c])):
        out.append(f"### {construct} ({len(coverage.left[construct])})")
        out.append("")
        for gb_id in sorted(coverage.left[construct]):
            probes = ", ".join(f"`{name}`" for name in coverage.probes.get((gb_id, "-"), []))
            out.append(f"- {gb_id} {_gb_type(registry, gb_id)}" + (f" (probe: {probes})" if probes else ""))
        out.append("")
    out += ["## Ids that cannot be seen in source", ""]
    for category, meaning in CATEGORIES.items():
        rows = sorted(coverage.reasons[category])
        if not rows:
            continue
        out += [f"### {category} ({len(rows)})", "", meaning[:1].upper() + meaning[1:] + ".", "",
                "| id | Gb_type | reason |", "|---|---|---|"]
        out += [f"| {gb_id} | {_gb_type(registry, gb_id)} | {_cell(reason)} |" for gb_id, reason in rows]
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when docs/coverage.md is out of date")
    args = parser.parse_args(argv)
    text = render(load_registry())
    if args.check:
        current = COVERAGE_MD.read_text(encoding="utf-8") if COVERAGE_MD.exists() else ""
        if current != text:
            print("docs/coverage.md is out of date: run `python benchmarks/coverage_table.py`", file=sys.stderr)
            return 1
        return 0
    COVERAGE_MD.write_text(text, encoding="utf-8")
    print(f"wrote {COVERAGE_MD.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
