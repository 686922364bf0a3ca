"""The reasons of docs/coverage.md that are facts about the pinned torch, checked against it."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))

from coverage_reasons import REASONS  # noqa: E402
from coverage_table import load_registry, registry_path  # noqa: E402


def test_ids_said_to_be_unraised_are_in_no_source_of_the_pinned_torch() -> None:
    unraised = sorted(gb_id for gb_id, (category, _) in REASONS.items() if category == "unraised")
    assert unraised
    torch_dir = registry_path().parent.parent
    sources = "\n".join(path.read_text(encoding="utf-8", errors="replace") for path in torch_dir.rglob("*.py"))
    registry = load_registry()
    # As a string literal: "functools.wraps" (GB0187) is in comments and code, never a gb_type.
    raised = [(gb_id, e["Gb_type"]) for gb_id in unraised for e in registry[gb_id]
              if f'"{e["Gb_type"]}"' in sources or f"'{e['Gb_type']}'" in sources]
    assert not raised, f"raised by the pinned torch, so not 'unraised': {raised}"
