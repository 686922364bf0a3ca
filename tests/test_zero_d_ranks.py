"""0-d integer tensors used as an index, by spellings tensor_rank.py must see through, measured with
Dynamo on torch 2.13 (GB0033 "Data dependent operator": the index is read back with
`aten._local_scalar_dense`): a full reduction spelled as a torch function of one tensor
(`torch.count_nonzero(x)`, `torch.sum(x > 0)`, `torch.argmax(x)`), and true division of a 0-d tensor
(`torch.bucketize(x.mean() / 2, edges)`, `(x.sum() / 3).long()` as a size). Near misses that trace:
a reduction keeping its dim (a 1-d index gathers), a 0-d quotient as a fill value."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.sample_modules import dynamo_breaks, graphmend_findings

SAMPLE = '''
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        edges = torch.tensor([0.0, 0.5, 1.0])
        {body}
'''

BREAKING = {
    "count_nonzero": "i = torch.count_nonzero(x)\n        return x[i - 1] * 2",
    "sum_of_mask": "return x[torch.sum(x > 0) - 1] * 2",
    "argmax_function": "return x[torch.argmax(x)] * 2",
    "bucketize_quotient": "i = torch.bucketize(x.mean() / 2, edges)\n        return edges[i] * 2",
    "div_method": "i = torch.bucketize(x.mean().div(2), edges)\n        return edges[i] * 2",
    "quotient_as_size": "return x.view(-1, (x.sum() / 3).long()) * 2",
}

TRACING = {
    "kept_dim": "return x[torch.argmax(x, dim=0, keepdim=True)] * 2",
    "quotient_fill": "return torch.full((3,), x.sum() / 2) + x",
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
