"""Items of parameters annotated as sequences of tensors (analysis/tensor_sequences.py), measured
against Dynamo (torch 2.13): the helpers are reached through `*args`, so what callers pass is
unknown and the annotation alone says the loop variable is a tensor."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from graphmend_bot.analysis.tensor_sequences import tensor_sequence
from tests.sample_modules import dynamo_breaks, graphmend_findings, line_of

SAMPLE = '''\
from typing import List, Optional, Sequence, Tuple, Union
import torch
from torch import Tensor, nn


def opaque(*args):
    return args[0]


def helper_zip(x: List[Tensor], y: "List[torch.Tensor]"):
    total = 0
    for x_, y_ in zip(x, y):
        if x_ > y_:  # zip
            total += 1
    return total


def helper_union(xs: Union[Tensor, Sequence[Tensor]]):
    return [float(t) for t in xs]  # union


def helper_tuple(xs: Optional[Tuple[Tensor, ...]]):
    return [int(t) for t in xs]  # tuple


def helper_index(xs: Sequence[Tensor], counts: List[int]):
    first = int(counts[0])
    return first + int(xs[0])  # index


def helper_enum(xs: list[torch.Tensor] | None):
    for i, t in enumerate(xs):
        if t:  # enumerate
            return i
    return -1


def near_ints(xs: List[int], ys: Tuple[float, ...]):
    total = 0
    for x_, y_ in zip(xs, ys):
        if x_ > 0:
            total += int(y_)
    return total


def near_optional(xs: List[Optional[Tensor]]):
    n = 0
    for t in xs:
        if t is None:
            n += 1
    return n


def near_rebound(xs: List[Tensor]):
    xs = [len(x) for x in xs]
    for t in xs:
        if t > 0:
            return t
    return 0


class Model(nn.Module):
    def forward(self, x):
        s = x.sum()
        a = opaque([s, s + 1])
        helper_zip(a, opaque([s * 2, s * 3]))
        helper_union(a)
        helper_tuple(tuple(a))
        helper_enum(a)
        helper_index(a, opaque([1, 2]))
        near_ints(opaque([1, 2]), opaque((1.0, 2.0)))
        near_optional(opaque([s, None]))
        near_rebound(opaque([x, x]))
        return x
'''


def test_items_of_tensor_sequences_break_where_dynamo_does(tmp_path: Path) -> None:
    breaks = dynamo_breaks(SAMPLE, tmp_path)
    lines = {line_of(SAMPLE, f"# {mark}") for mark in ("zip", "union", "tuple", "enumerate", "index")}
    assert {line for line, _ in breaks} == lines  # the near misses trace
    found = graphmend_findings(SAMPLE, tmp_path)
    assert {(line, gb) for line, _, gb in found} == breaks
    assert {code for line, code, _ in found if line == line_of(SAMPLE, "# zip")} == {"GM101"}


@pytest.mark.parametrize("text, expected", [
    ("List[Tensor]", True),
    ("list[torch.Tensor]", True),
    ("'Sequence[Tensor]'", True),
    ("Tuple[Tensor, ...]", True),
    ("Tuple[Tensor, Tensor]", True),
    ("Optional[List[torch.FloatTensor]]", True),
    ("List[Tensor] | Tensor", True),
    ("Union[Tensor, Iterable[Tensor], None]", True),
    ("Tensor", False),
    ("Optional[Tensor]", False),
    ("List[Optional[Tensor]]", False),
    ("Tuple[Tensor, int]", False),
    ("List[int]", False),
    ("Dict[str, Tensor]", False),
    ("List[Tensor] | int", False),
])
def test_annotation_spellings(text: str, expected: bool) -> None:
    assert tensor_sequence(ast.parse(text, mode="eval").body) is expected
