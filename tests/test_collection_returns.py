"""A comprehension over a call's result in a frame Dynamo skips (GM611, analysis/collection_returns.py).

transformers' `output_capturing.py` wrapper iterates `capturable_flags = _CAN_RECORD_REGISTRY.get(self)`
(a dict subclass's `get(model) -> dict`) in `{... for k in capturable_flags}` before a `try` that
calls the breaking forward with no operation before it: Dynamo skips the whole frame, compiles the
comprehension as a frame of its own (Python 3.11) and cannot step the `dict_keyiterator` it is
handed (GB4347). Measured here with Dynamo next to `graphmend check`: the callee's return annotation
(`-> dict`, `-> list[str]`, `-> typing.Set[str]`) or its `return` of a dict display makes the local a collection; the near
miss, a callee annotated `-> tuple` returning a tuple, traces (a tuple iterator steps), and neither
reports it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from sample_modules import dynamo_breaks, graphmend_findings, line_of

pytestmark = pytest.mark.skipif(sys.version_info >= (3, 12), reason="3.12 inlines comprehensions (PEP 709)")

CALLED_COLLECTIONS = '''import typing

import torch


class Registry(dict):
    def get(self, model) -> dict:
        return super().get(type(model).__name__) or {}


class Plain:
    def flags(self):
        return {"hidden": 1, "attn": 2}

    def pairs(self) -> tuple:
        return ("hidden", "attn")

    def unknown(self):
        return REGISTRY.get(self)


REGISTRY = Registry()
REGISTRY["Model"] = {"hidden": 1, "attn": 2}
PLAIN = Plain()


def listed(model) -> list[str]:
    return list(REGISTRY.get(model))


def members(model) -> typing.Set[str]:
    return set(REGISTRY.get(model))


def run(x):
    x = x * 2
    print("running")
    return x + 1


class ByAnnotation(torch.nn.Module):
    def forward(self, x):
        flags = REGISTRY.get(self)
        recorded = {k: x for k in flags}
        try:
            out = run(x)
        finally:
            recorded.clear()
        return out


class ByReturn(torch.nn.Module):
    def forward(self, x):
        built = PLAIN.flags()
        seen = [x for k in built.items()]
        try:
            out = run(x)
        finally:
            seen.clear()
        return out


class ByListAnnotation(torch.nn.Module):
    def forward(self, x):
        names = listed(self)
        kept = [x for k in names]
        try:
            out = run(x)
        finally:
            kept.clear()
        return out


class ByTypingSet(torch.nn.Module):
    def forward(self, x):
        named = members(self)
        held = {k: x for k in named}
        try:
            out = run(x)
        finally:
            held.clear()
        return out


class ByTuple(torch.nn.Module):
    def forward(self, x):
        fixed = PLAIN.pairs()
        tupled = [x for k in fixed]
        try:
            out = run(x)
        finally:
            tupled.clear()
        return out


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.parts = torch.nn.ModuleList([ByAnnotation(), ByReturn(), ByListAnnotation(), ByTypingSet(), ByTuple()])

    def forward(self, x):
        return [part(x) for part in self.parts]
'''


def test_a_comprehension_over_a_call_returning_a_collection_breaks_where_graphmend_reports(tmp_path: Path) -> None:
    breaks = dynamo_breaks(CALLED_COLLECTIONS, tmp_path)
    found = graphmend_findings(CALLED_COLLECTIONS, tmp_path)
    expected = {line_of(CALLED_COLLECTIONS, text) for text in
                ("recorded = {k: x for k in flags}", "seen = [x for k in built.items()]", "kept = [x for k in names]", "held = {k: x for k in named}")}
    assert {line for line, gb in breaks if gb == "GB4347"} == expected
    assert {line for line, code, _ in found if code == "GM611"} == expected
    tupled = line_of(CALLED_COLLECTIONS, "tupled = [x for k in fixed]")  # a tuple's iterator steps: traced
    assert tupled not in {line for line, _ in breaks} and tupled not in {line for line, _, _ in found}
    assert {line for line, _ in breaks} == {line for line, _, _ in found}
