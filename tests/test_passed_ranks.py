"""0-d tensors a helper is handed, used as an index there (analysis/passed_ranks.py), measured with
Dynamo on torch 2.13: `grid[i]` with a 0-d integer tensor `i` reads it back as an int (GB0033,
`aten._local_scalar_dense`) when every caller passes a 0-d one: `x.argmax()`, `x.mean()` through
`torch.bucketize`, `torch.as_tensor(t)` rebinding the parameter (torchcde's `_interpret_t`), by
keyword too. Near misses that trace: a 1-d argument (`argmax(0, keepdim=True)` gathers), a Python
int, and the same helper left to a caller of unknown rank stays unreported."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.sample_modules import dynamo_breaks, graphmend_findings, line_of

HELPER = '''
import torch


def pick(grid, i):
    return grid[i] * 2


class Model(torch.nn.Module):
    def forward(self, x):
        grid = torch.linspace(0, 1, 5)
        {body}
'''

METHOD = '''
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("grid", torch.linspace(0, 1, 5))

    def interpret(self, t):
        t = torch.as_tensor(t, dtype=self.grid.dtype)
        index = torch.bucketize(t.detach(), self.grid).sub(1).clamp(0, 3)
        return t - self.grid[index]

    def forward(self, x):
        return x * self.interpret({argument})
'''

BREAKING = {
    "argmax": HELPER.format(body="return x * pick(grid, x.argmax())"),
    "keyword": HELPER.format(body="return x * pick(grid, i=x.argmax())"),
    "bucketized_mean": HELPER.format(body="return x * pick(grid, torch.bucketize(x.mean(), grid))"),
    "local_then_passed": HELPER.format(body="i = x.argmax()\n        return x * pick(grid, i)"),
    "method_rebinding_parameter": METHOD.format(argument="x.mean()"),
}

TRACING = {
    "kept_dim": HELPER.format(body="return x * pick(grid, x.argmax(0, keepdim=True))"),
    "python_int": HELPER.format(body="return x * pick(grid, 2)"),
    "python_int_local": HELPER.format(body="k = 2\n        return x * pick(grid, k)"),
    "method_one_d": METHOD.format(argument="x[:1] / 3"),
}


@pytest.mark.parametrize("source", BREAKING.values(), ids=BREAKING.keys())
def test_index_handed_a_zero_d_tensor_breaks_and_is_reported(source: str, tmp_path: Path) -> None:
    line = line_of(source, "grid[i]") if "pick" in source else line_of(source, "self.grid[index]")
    assert dynamo_breaks(source, tmp_path) == {(line, "GB0033")}
    assert graphmend_findings(source, tmp_path) == {(line, "GM302", "GB0033")}


@pytest.mark.parametrize("source", TRACING.values(), ids=TRACING.keys())
def test_index_handed_no_zero_d_tensor_traces_and_is_not_reported(source: str, tmp_path: Path) -> None:
    assert dynamo_breaks(source, tmp_path) == set()
    assert graphmend_findings(source, tmp_path) == set()


def test_one_caller_of_unknown_rank_leaves_it_unreported(tmp_path: Path) -> None:
    """A second caller passes its own parameter, whose rank no caller shows: not judged (a miss
    when it is 0-d, never a finding on a 1-d index that gathers)."""
    source = HELPER.format(body="return self.other(grid, x.argmax(0, keepdim=True)) + pick(grid, x.argmax())").replace(
        "    def forward(self, x):",
        "    def other(self, grid, j):\n        return pick(grid, j)\n\n    def forward(self, x):",
    )
    assert graphmend_findings(source, tmp_path) == set()
