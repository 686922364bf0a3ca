"""`self.layer(x)` on a submodule built from a torch.nn class: its result, and every index of it,
is a tensor when torch annotates the class's forward `-> Tensor` (review4: `y[0, 0].item()` on
`y = self.l(x)` was missed). The table is generated from the pinned torch and must stay in step."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("torch")

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from sample_modules import dynamo_breaks, graphmend_findings
from torch_layer_returns import build

from graphmend_bot.analysis.torch_layers import LayerResult, layer_result
from graphmend_bot.vocabulary.torch_layer_returns import TENSOR_LAYERS, TUPLE_LAYERS


def test_table_is_the_pinned_torchs() -> None:
    _, tensors, tuples = build()
    assert (set(tensors), tuples) == (TENSOR_LAYERS, TUPLE_LAYERS), "run benchmarks/torch_layer_returns.py"
    assert {"Linear", "Conv2d", "LayerNorm"} <= TENSOR_LAYERS
    assert not {"LSTM", "Sequential", "Identity", "MaxPool2d"} & TENSOR_LAYERS.union(TUPLE_LAYERS)


def test_every_class_must_agree() -> None:
    assert layer_result(["torch.nn.Linear", "torch.nn.Conv1d"]) == LayerResult(True, None)
    assert layer_result(["torch.nn.Linear", "torch.nn.LSTM"]) is None  # one class the table does not know
    assert layer_result(["torch.nn.Linear", "mypackage.Linear"]) is None
    assert layer_result(["torch.nn.MultiheadAttention"]) == LayerResult(False, (True, False))
    mixed = layer_result(["torch.nn.Linear", "torch.nn.MultiheadAttention"])
    assert mixed is not None and not mixed.element(None) and mixed.element(0) and not mixed.element(1)


INDEXED_LAYER_OUTPUTS = textwrap.dedent("""\
    import torch
    from torch import nn


    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(3, 3)
            self.norm = nn.LayerNorm(3)

        def forward(self, x):
            y = self.proj(x)
            a = y[0].item()
            z = self.norm(x)
            if z[1] > 0:
                x = x + 1
            b = (y * 2)[2].item()
            return x * a * b
""")


def test_indexing_a_layers_output_is_reported_where_dynamo_breaks(tmp_path: Path) -> None:
    broke = {line for line, _ in dynamo_breaks(INDEXED_LAYER_OUTPUTS, tmp_path)}
    assert broke == {13, 15, 17}
    assert {line for line, _, _ in graphmend_findings(INDEXED_LAYER_OUTPUTS, tmp_path)} == broke


NOT_TENSORS = textwrap.dedent("""\
    import torch
    from torch import nn


    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.same = nn.Identity()
            self.attention = nn.MultiheadAttention(3, 1)
            self.steps = 2

        def forward(self, x):
            steps = self.same(self.steps)
            if steps > 1:
                x = x * 2
            q = x.view(1, 1, 3)
            out = self.attention(q, q, q, need_weights=False)
            if out[1]:
                x = x + 1
            return x + out[0].view(3)
""")


def test_identity_and_a_tuples_python_elements_are_not_tensors(tmp_path: Path) -> None:
    """nn.Identity returns its argument (an int here); MultiheadAttention's second element is None
    without weights: Dynamo breaks on neither, and neither is reported."""
    assert dynamo_breaks(NOT_TENSORS, tmp_path) == set()
    assert graphmend_findings(NOT_TENSORS, tmp_path) == set()
