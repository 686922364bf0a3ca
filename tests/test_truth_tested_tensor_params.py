"""A None-defaulted parameter annotated a tensor (`scale: Optional[Tensor] = None`, `bias: Tensor =
None`, opacus' `state_init: Optional[Union[Tensor, Tuple[Tensor, Tensor]]] = None`) whose truth the
body tests bare (`if scale:`, `state_init or (None, None)`) is read as an unannotated one is
(narrowing.optional_parameter_evidence): the test means "given", since a tensor's truth raises
unless it has one element, so no tensor is assumed there; a caller that passes a tensor still makes
it one. Measured on torch 2.13: left at its default, Dynamo traces the test on None without a break;
given a one-element tensor, it breaks there (GB0170) and graphmend reports it. A parameter with no
None default (`scale: Tensor`) keeps its annotation."""

from __future__ import annotations

from pathlib import Path

import pytest
from sample_modules import dynamo_breaks, graphmend_findings, line_of

SOURCE = """\
from typing import Optional, Tuple, Union

import torch
from torch import Tensor


class Block(torch.nn.Module):
    def forward(self, input: Tensor, state: {annotation}):
        {test}
            return input * 2
        return input + 1


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()

    def forward(self, x):
        return self.block({arguments})
"""

TESTS = ("if state:", "if not state:", "if (state or (None, None))[0] is None:")
OPTIONAL = ("Optional[Tensor] = None", "Tensor = None", "Tensor | None = None",
            "Optional[Union[Tensor, Tuple[Tensor, Tensor]]] = None")


def _source(annotation: str, test: str, arguments: str) -> str:
    return SOURCE.format(annotation=annotation, test=test, arguments=arguments)


@pytest.mark.parametrize("annotation", OPTIONAL)
@pytest.mark.parametrize("test", TESTS)
def test_the_default_none_tested_bare_is_no_break(annotation: str, test: str, tmp_path: Path) -> None:
    source = _source(annotation, test, "x")
    assert dynamo_breaks(source, tmp_path) == set()
    assert graphmend_findings(source, tmp_path) == set()


@pytest.mark.parametrize("annotation", (*OPTIONAL[:1], OPTIONAL[-1], "Tensor"))
def test_a_caller_passing_a_tensor_still_breaks_there(annotation: str, tmp_path: Path) -> None:
    source = _source(annotation, TESTS[0], "x, x[:1]")
    line = line_of(source, TESTS[0])
    assert dynamo_breaks(source, tmp_path) == {(line, "GB0170")}
    assert graphmend_findings(source, tmp_path) == {(line, "GM101", "GB0170")}
