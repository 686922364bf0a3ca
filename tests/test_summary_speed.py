"""The summaries' shortcuts answer exactly what the plain reading does (benchmarks/same_findings.py
proves it finding-for-finding on transformers; these pin the forms)."""

from __future__ import annotations

import ast

import pytest

from graphmend_bot.vocabulary.dotted_names import dotted_name


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("a", "a"),
        ("a.b", "a.b"),
        ("a.b.c.d", "a.b.c.d"),
        ("a().b", None),
        ("a[0].b.c", None),
        ("a.b().c.d", None),
        ("(a + b).c", None),
        ("1", None),
        ("f(x)", None),
    ],
)
def test_dotted_name_reads_chains_of_attributes_on_a_name(source: str, expected: str | None) -> None:
    assert dotted_name(ast.parse(source, mode="eval").body) == expected
