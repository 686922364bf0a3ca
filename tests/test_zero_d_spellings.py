"""More spellings of a 0-d integer tensor used as an index, measured with Dynamo on torch 2.13 (GB0033
"Data dependent operator": the index is read back with `aten._local_scalar_dense`) against what
`graphmend check` reports (analysis/tensor_rank.py): bindings that keep a 0-d tensor 0-d (`i, j = a,
b` of 0-d ones, `i += 1`, `i = i - 1`, `a if c else b` of two), `squeeze()`/`.float()` of one,
`reshape(())` of anything, the torch functions of 0-d tensors and Python numbers (`torch.round`,
`torch.div(.., rounding_mode=...)`, `torch.add`, `torch.minimum` of two, ...) and the builtin
`max(s, 1)`, and `torch.bucketize`/`torch.searchsorted` of a Python number or a tensor made of one
(the bucket is read from the boundaries, data). Near misses that trace and stay quiet: a tensor made
of a number used as an index on its own (Dynamo knows its value), a 1-d element of an unpacking or an
operand (`torch.add(s, v)`, `torch.maximum(s, v)` with a 1-d `v` broadcast: the index gathers),
`reshape(1)`, `view(1)`, `unsqueeze(0)`, a bucketized 1-d tensor."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.sample_modules import dynamo_breaks, graphmend_findings

SAMPLE = '''
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("edges", torch.tensor([0.0, 0.5, 1.0, 1.5]))

    def forward(self, x):
        {body}
'''

BREAKING = {
    "tuple_unpacking": "i, j = x.argmax(), x.argmin()\n        return x[i] * 2",
    "conditional_expression": "i = x.argmax() if x.shape[0] > 2 else x.argmin()\n        return x[i] * 2",
    "augmented_assignment": "i = x.argmax()\n        i += 1\n        return x[i - 1] * 2",
    "rebound_from_itself": "i = x.argmax()\n        i = i - 1\n        return x[i] * 2",
    "squeeze": "return x[x.argmax().squeeze()] * 2",
    "reshape_empty": "return x[x.sum().reshape(()).long() - 1] * 2",
    "torch_floor": "return x[torch.floor(x.mean()).long()] * 2",
    "torch_round": "return x[torch.round(x.mean()).long()] * 2",
    "torch_div_rounding": "return x[torch.div(x.sum().long(), 2, rounding_mode='floor')] * 2",
    "torch_remainder": "return x[torch.remainder(x.argmax() + 1, 3)] * 2",
    "torch_add": "return x[torch.add(x.argmax(), 1)] * 2",
    "torch_minimum": "return x[torch.minimum(x.argmax(), x.argmin())] * 2",
    "torch_abs": "return x[torch.abs(x.argmax() - 2)] * 2",
    "builtin_max": "return x[max(x.argmax(), 1)] * 2",
    "float_cast": "return self.edges[torch.bucketize(x.argmax().float(), self.edges)] * 2",
    "bucketize_number": "return self.edges[torch.bucketize(0.7, self.edges)] * 2",
    "bucketize_tensor_of_number": "return self.edges[torch.bucketize(torch.tensor(0.7), self.edges)] * 2",
    "searchsorted_number": "return self.edges[torch.searchsorted(self.edges, 0.7)] * 2",
    "searchsorted_tensor_of_number": "return self.edges[torch.searchsorted(self.edges, torch.tensor(0.7))] * 2",
}

TRACING = {
    "tensor_of_number": "return x[torch.tensor(1)] * 2",
    "tensor_of_number_plus_one": "return x[torch.tensor(1) + 1] * 2",
    "unpacked_one_dimensional": "i, j = x.argmax(), x.argmax(0, keepdim=True)\n        return x[j] * 2",
    "rebound_one_dimensional": "i = x.argmax()\n        i = i + x[:1].long()\n        return x[i] * 2",
    "torch_add_broadcast": "return x[torch.add(x.argmax(), x[:2].long())] * 2",
    "torch_maximum_broadcast": "return x[torch.maximum(x.argmax(), x[:2].long())] * 2",
    "reshape_one": "return x[x.sum().reshape(1).long() - 1] * 2",
    "view_one": "return x[x.argmax().view(1)] * 2",
    "unsqueeze": "return x[x.argmax().unsqueeze(0)] * 2",
    "bucketize_one_dimensional": "return self.edges[torch.bucketize(x[:2], self.edges)] * 2",
}


@pytest.mark.parametrize("body", BREAKING.values(), ids=BREAKING.keys())
def test_zero_d_index_breaks_and_is_reported(body: str, tmp_path: Path) -> None:
    source = SAMPLE.format(body=body)
    last = len(source.rstrip("\n").splitlines())
    breaks = dynamo_breaks(source, tmp_path)
    assert breaks == {(last, "GB0033")}
    assert {(line, gb) for line, _, gb in graphmend_findings(source, tmp_path)} == breaks


@pytest.mark.parametrize("body", TRACING.values(), ids=TRACING.keys())
def test_near_miss_traces_and_is_not_reported(body: str, tmp_path: Path) -> None:
    source = SAMPLE.format(body=body)
    assert dynamo_breaks(source, tmp_path) == set()
    assert graphmend_findings(source, tmp_path) == set()


# The dims of `swapaxes`/`swapdims` and the sizes of `torch.tile` given a 0-d tensor computed
# in the frame (GM302's int arguments); Python ints there trace.
ARGUMENTS = '''
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        n = (x > 0).sum() - 1
        {body}
'''

BREAKING_ARGUMENTS = {
    "torch_tile": "return torch.tile(x, (n,)) * 2",
    "torch_swapaxes": "return torch.swapaxes(x.view(1, -1), n - 2, 1) * 2",
    "swapaxes": "return x.view(1, -1).swapaxes(n - 2, 0) * 2",
    "swapdims": "return x.view(1, -1).swapdims(n - 2, 1) * 2",
}

TRACING_ARGUMENTS = {
    "tile_of_a_shape": "return torch.tile(x, (x.shape[0],)) * 2",
    "swapaxes_ints": "return x.view(1, -1).swapaxes(1, 0) * 2",
}


@pytest.mark.parametrize("body", BREAKING_ARGUMENTS.values(), ids=BREAKING_ARGUMENTS.keys())
def test_zero_d_dim_breaks_and_is_reported(body: str, tmp_path: Path) -> None:
    source = ARGUMENTS.format(body=body)
    last = len(source.rstrip("\n").splitlines())
    breaks = dynamo_breaks(source, tmp_path)
    assert breaks == {(last, "GB0033")}
    assert {(line, gb) for line, _, gb in graphmend_findings(source, tmp_path)} == breaks


@pytest.mark.parametrize("body", TRACING_ARGUMENTS.values(), ids=TRACING_ARGUMENTS.keys())
def test_int_dims_trace_and_are_not_reported(body: str, tmp_path: Path) -> None:
    source = ARGUMENTS.format(body=body)
    assert dynamo_breaks(source, tmp_path) == set()
    assert graphmend_findings(source, tmp_path) == set()
