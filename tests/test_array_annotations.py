"""jaxtyping's and torchtyping's tensor annotations (`Float[Tensor, "b n"]`, `TensorType["b"]`) make
a parameter a tensor, as `x: Tensor` does (parameter_annotations._typed_array), measured against
Dynamo (torch 2.13). The helpers are reached through `*args`, so callers say nothing of them; the
annotations are never evaluated (`from __future__ import annotations`), so neither package is needed."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from graphmend_bot.analysis.parameter_annotations import tensor_param
from tests.sample_modules import dynamo_breaks, graphmend_findings, line_of

SAMPLE = '''\
from __future__ import annotations

import torch
from torch import Tensor, nn


def opaque(*args):
    return args[0]


def jax_float(x: Float[Tensor, "b"], n: int):
    return n if x > 0 else -n  # jaxtyping


def jax_int(i: Int[torch.Tensor, ""], table):
    return table[: int(i)]  # attribute


def torchtyping(t: TensorType["b"]):
    return float(t)  # torchtyping


def near_annotated(n: Annotated[int, "count"], m: Shaped[int, ""]):
    return n if n > m else -n


class Model(nn.Module):
    def forward(self, x):
        s = x.sum()
        jax_float(opaque(s), 2)
        jax_int(opaque(s.long()), x)
        torchtyping(opaque(s))
        near_annotated(opaque(3), opaque(2))
        return x
'''


def test_typed_array_parameters_break_where_dynamo_does(tmp_path: Path) -> None:
    breaks = dynamo_breaks(SAMPLE, tmp_path)
    lines = {line_of(SAMPLE, f"# {mark}") for mark in ("jaxtyping", "attribute", "torchtyping")}
    assert {line for line, _ in breaks} == lines  # the near miss traces
    found = graphmend_findings(SAMPLE, tmp_path)
    assert {(line, gb) for line, _, gb in found} == breaks


@pytest.mark.parametrize("text, expected", [
    ('Float[Tensor, "b n"]', True),
    ('Int[torch.Tensor, ""]', True),
    ('Optional[Bool[torch.Tensor, "b"]]', True),
    ('TensorType["b", "n"]', True),
    ('Float[np.ndarray, "b"]', False),
    ('Annotated[int, "count"]', False),
    ('Float32[Tensor, "*batch"]', True),
    ('Tuple[Tensor, "Cache"]', False),
    ('Interval[Tensor, "b"]', False),
])
def test_annotation_spellings(text: str, expected: bool) -> None:
    assert tensor_param("x", ast.parse(text, mode="eval").body, None, entry=False) is expected
