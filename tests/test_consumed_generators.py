"""A generator expression that `sum`, `any`, `all`, `set`, `dict` or `functools.reduce` consumes, a
call of whose elements breaks: Dynamo steps the generator inside the trace and cannot rebuild it to
resume at the consuming call, which breaks too, on its line (GM666; analysis/consumed_generators.py):
"Generator reconstruction with mutations" (GB8335) over a list. Each spelling is measured with Dynamo
beside graphmend's findings, near misses included: the builtins that resume (`list`, `tuple`, `min`,
...), a generator over `range` or a dict iterator (an nn.ModuleList, a dict view: it breaks with
GB0091 only on some spellings, when the result is returned, and is not reported), a filter on the
elements' type, a call in an arm, and nothing breaking in the callee."""

from __future__ import annotations

import sys

import pytest
from sample_modules import dynamo_breaks, graphmend_findings

SAMPLE = """
import functools

import torch
from torch import nn


def noisy(t):
    print("hi")
    return t + 1


def quiet(t):
    return t + 1


class Layer(nn.Module):
    def forward(self, x):
        return noisy(x)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([Layer(), Layer()])
        self.heads = nn.ModuleDict({"a": Layer(), "b": Layer()})

    def forward(self, x):
        x = x + 1
        xs = [x, x * 2]
        parts = {"a": x, "b": x * 2}
        out = {comp}
        return x
"""
PRINT_LINE = SAMPLE.splitlines().index('    print("hi")') + 1
LINE = SAMPLE.splitlines().index("        out = {comp}") + 1

OVER_A_LIST = {
    "sum": "sum(noisy(v) for v in xs)",
    "sum with a start": "sum((noisy(v) for v in xs), x)",
    "any": "any(noisy(v) is None for v in xs)",
    "all": "all(noisy(v) is not None for v in xs)",
    "set": "set(noisy(v) for v in xs)",
    "dict": "dict((i, noisy(v)) for i, v in enumerate(xs))",
    "reduce": "functools.reduce(lambda a, b: a + b, (noisy(v) for v in xs))",
    "filtered": "sum(noisy(v) for v in xs if v is not None)",
    "nested in the element": "sum(quiet(noisy(v)) for v in xs)",
    "spanning lines": "sum(\n            noisy(v)\n            for v in xs\n        )",
}
NOT_REPORTED_OVER_A_DICT_ITERATOR = {
    "module list": "sum(layer(x) for layer in self.layers)",
    "module list, any": "any(layer(x) is None for layer in self.layers)",
    "module dict values": "sum(head(x) for head in self.heads.values())",
    "module dict items": "dict((k, head(x)) for k, head in self.heads.items())",
    "dict view": "sum(noisy(v) for v in parts.values())",
}
RESUMING = {
    "list": "list(noisy(v) for v in xs)",
    "tuple": "tuple(noisy(v) for v in xs)",
    "frozenset": "frozenset(noisy(v) for v in xs)",
    "min": "min(noisy(v).sum() for v in xs)",
    "max": "max(layer(x).sum() for layer in self.layers)",
    "next": "next(noisy(v) for v in xs)",
    "join": "'-'.join(str(noisy(v).shape) for v in xs)",
    "a list comprehension": "sum([noisy(v) for v in xs])",
    "a list of the generator": "sum(list(layer(x) for layer in self.layers))",
    "range": "sum(noisy(v) for v in range(2))",
}

pytestmark = pytest.mark.skipif(sys.version_info >= (3, 12), reason="measured on Python 3.11")


@pytest.mark.parametrize("name", sorted(OVER_A_LIST))
def test_a_consumed_generator_over_a_list_breaks_at_the_consuming_call(name, tmp_path) -> None:
    source = SAMPLE.replace("{comp}", OVER_A_LIST[name])
    assert dynamo_breaks(source, tmp_path) == {(PRINT_LINE, "GB0059"), (LINE, "GB8335")}
    assert graphmend_findings(source, tmp_path) == {(PRINT_LINE, "GM401", "GB0059"), (LINE, "GM666", "GB8335")}


@pytest.mark.parametrize("name", sorted(NOT_REPORTED_OVER_A_DICT_ITERATOR))
def test_a_consumed_generator_over_a_dict_iterator_is_not_reported(name, tmp_path) -> None:
    source = SAMPLE.replace("{comp}", NOT_REPORTED_OVER_A_DICT_ITERATOR[name])
    assert dynamo_breaks(source, tmp_path) == {(PRINT_LINE, "GB0059")}
    assert graphmend_findings(source, tmp_path) == {(PRINT_LINE, "GM401", "GB0059")}


@pytest.mark.parametrize("name", sorted(RESUMING))
def test_builtins_that_resume(name, tmp_path) -> None:
    source = SAMPLE.replace("{comp}", RESUMING[name])
    assert dynamo_breaks(source, tmp_path) == {(PRINT_LINE, "GB0059")}
    assert graphmend_findings(source, tmp_path) == {(PRINT_LINE, "GM401", "GB0059")}


@pytest.mark.parametrize("comp", [
    "sum(quiet(v) for v in xs)",  # nothing breaks in the callee
    "sum(noisy(v) if v is None else v for v in xs)",  # the call in an arm that does not run
    "sum(noisy(v) for v in xs if isinstance(v, int))",  # a filter on the type keeps none
])
def test_nothing_breaks_at_the_consuming_call(comp, tmp_path) -> None:
    source = SAMPLE.replace("{comp}", comp)
    assert dynamo_breaks(source, tmp_path) == set()
    # noisy and Layer.forward are no roots: reached from nowhere Dynamo runs, they report nothing
    assert not {finding for finding in graphmend_findings(source, tmp_path) if finding[0] == LINE}
