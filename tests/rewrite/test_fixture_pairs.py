"""Fixture pairs for every transformation: tests/fixtures/rewrite/<transformation>/<case>.in.py -> .out.py.

For each case: `--fix` produces exactly the .out.py, the output parses, a second `--fix` changes
nothing, both versions give bit-identical eager outputs (and the same prints, warnings and log
messages) on several seeds, and Dynamo counts fewer graph breaks after the rewrite. Adding a case
is adding two files (see fixture_support for the optional `# fixture:` directive).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from fixture_support import (
    SEEDS,
    assert_identical,
    break_count,
    build_entry,
    case_id,
    expected_path,
    fix_source,
    fixture_cases,
    load_module,
    run_eager,
)

CASES = fixture_cases()


def test_every_case_has_an_expected_output() -> None:
    assert CASES, "no fixture pairs found"
    missing = [case_id(c) for c in CASES if not expected_path(c).is_file()]
    assert not missing, f"cases without a .out.py: {missing}"


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_fix_matches_expected_parses_and_is_idempotent(case: Path, tmp_path: Path) -> None:
    source = case.read_text(encoding="utf-8")
    expected = expected_path(case).read_text(encoding="utf-8")
    fixed = fix_source(source, tmp_path)
    assert fixed == expected
    ast.parse(fixed)
    assert fix_source(fixed, tmp_path) == fixed, "a second --fix changed the file"


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_rewrite_keeps_eager_outputs_and_removes_breaks(case: Path, tmp_path: Path) -> None:
    stem = case.name.removesuffix(".in.py")
    before_module = load_module(case, tmp_path, f"fixture_{case.parent.name}_{stem}_before")
    after_module = load_module(expected_path(case), tmp_path, f"fixture_{case.parent.name}_{stem}_after")
    before, after = build_entry(before_module), build_entry(after_module)
    for seed in SEEDS:
        original = run_eager(before, before_module.make_inputs(seed))
        rewritten = run_eager(after, after_module.make_inputs(seed))
        assert_identical(original.output, rewritten.output, f"seed {seed}")
        assert rewritten.stdout == original.stdout
        assert rewritten.warnings == original.warnings
        assert rewritten.logs == original.logs
    if source_changed(case):
        inputs = before_module.make_inputs(0)
        assert break_count(after, inputs) < break_count(before, inputs)


def source_changed(case: Path) -> bool:
    return case.read_text(encoding="utf-8") != expected_path(case).read_text(encoding="utf-8")
