"""A None-defaulted parameter annotated a tensor OR a collection (`Optional[Union[Tensor,
Tuple[Tensor, Tensor]]]`, opacus' `DPRNNBase.forward(state_init=...)`) whose truth the body tests
bare (`state_init or (None, None)`) is the collection or None there, as an unannotated one is
(narrowing.optional_parameter_evidence): a tensor's truth raises unless it has one element. With
the default, Dynamo (torch 2.13) traces the `or` on None without a break; a caller that passes a
one-element tensor still breaks there (GB0170) and graphmend still reports it. A plain tensor
annotation (`Optional[Tensor]`) keeps its hint."""

from __future__ import annotations

from pathlib import Path

import pytest

from sample_modules import dynamo_breaks, graphmend_findings, line_of

SOURCE = """\
from typing import Optional, Tuple, Union

import torch
from torch import Tensor


class RNN(torch.nn.Module):
    def forward(self, input: Tensor, state_init: {annotation} = None):
        state = state_init or (None, None)
        if state[0] is None:
            return input * 2
        return input + state[0]


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = RNN()

    def forward(self, x):
        return self.rnn({arguments})
"""

UNIONS = ("Optional[Union[Tensor, Tuple[Tensor, Tensor]]]", "Union[Tensor, tuple[Tensor, Tensor], None]",
          "Tensor | list[Tensor] | None")


@pytest.mark.parametrize("annotation", UNIONS)
def test_the_default_none_tested_bare_is_no_break(annotation: str, tmp_path: Path) -> None:
    source = SOURCE.format(annotation=annotation, arguments="x")
    assert dynamo_breaks(source, tmp_path) == set()
    assert graphmend_findings(source, tmp_path) == set()


@pytest.mark.parametrize("annotation", (UNIONS[0], "Optional[Tensor]"))
def test_a_caller_passing_a_tensor_still_breaks_there(annotation: str, tmp_path: Path) -> None:
    source = SOURCE.format(annotation=annotation, arguments="x, x[:1]")
    line = line_of(source, "state_init or")
    assert dynamo_breaks(source, tmp_path) == {(line, "GB0170")}
    assert graphmend_findings(source, tmp_path) == {(line, "GM103", "GB0170")}
