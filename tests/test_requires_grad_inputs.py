"""GM701 on `requires_grad_()` follows Dynamo's `method_requires_grad_` (torch/_dynamo/variables/tensor.py):
a call that leaves the flag as it is traces, one that changes a graph input's flag breaks with GB0125
whether the input is used again or not, and one on a tensor the graph built breaks (GB8985) only when
that tensor leaves the graph. Each case's truth is measured here with the census's Dynamo mapping on
a `Model` whose forward gets `x` (which requires grad or not, as the case says) and a tuple of two
such tensors; graphmend must report exactly the lines Dynamo breaks at."""

from __future__ import annotations

from pathlib import Path

import pytest
from sample_modules import dynamo_breaks, graphmend_findings

torch = pytest.importorskip("torch")

# forward(self, x, pair)'s body, the input's requires_grad, and whether Dynamo breaks at `# mark`
CASES = {
    # an nn.Parameter requires grad already: turning it on changes nothing
    "parameter_on": ("for p in self.parameters():\n            p.requires_grad_()  # mark", False, False),
    "parameter_weight_on": ("self.lin.weight.requires_grad_(True)  # mark", False, False),
    "parameter_off": ("for p in self.parameters():\n            p.requires_grad_(False)  # mark", False, True),
    # a graph input: changing its flag breaks, read again or not, under no_grad or not
    "argument_on_unused": ("x.requires_grad_()  # mark", False, True),
    "argument_on_already": ("x.requires_grad_()  # mark", True, False),
    "argument_off": ("x.requires_grad_(False)  # mark", True, True),
    "argument_off_not_needed": ("x.requires_grad_(False)  # mark", False, False),
    "loop_element_off": (
        "for index, item in enumerate(pair):\n            if index == 0:\n"
        "                item.requires_grad_(False)  # mark", True, True),
    # a tensor the graph built: breaks only when it leaves the graph; off is a no-op
    "intermediate_returned": ("z = x * 3\n        z.requires_grad_()  # mark\n        return self.lin(x) + z", False, True),
    "intermediate_unused": ("z = x * 3\n        z.requires_grad_()  # mark", False, False),
    "intermediate_off": ("z = x * 3\n        z.requires_grad_(False)  # mark\n        return z", False, False),
}


def _source(body: str) -> str:
    return (
        "import torch\n\n\n"
        "class Model(torch.nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.lin = torch.nn.Linear(3, 3)\n\n"
        f"    def forward(self, x, pair):\n        y = self.lin(x)\n        {body}\n        return y * 2\n"
    )


def _dynamo_breaks(source: str, tmp_path: Path, needs_grad: bool) -> set[tuple[int, str]]:
    x = torch.ones(2, 3, requires_grad=needs_grad)
    pair = (torch.ones(3, requires_grad=needs_grad), torch.ones(3, requires_grad=needs_grad))
    return dynamo_breaks(source, tmp_path, (x, pair))


@pytest.mark.parametrize("case", sorted(CASES))
def test_requires_grad_is_reported_where_dynamo_breaks(tmp_path: Path, case: str) -> None:
    body, needs_grad, breaks = CASES[case]
    source = _source(body)
    row = next(n for n, line in enumerate(source.splitlines(), 1) if line.endswith("# mark"))
    at_mark = {gb for line, gb in _dynamo_breaks(source, tmp_path, needs_grad) if line == row}
    assert bool(at_mark) == breaks
    reported = {gb for line, code, gb in graphmend_findings(source, tmp_path) if line == row and code == "GM701"}
    if breaks:
        assert reported == at_mark
    else:
        # an argument's flag is the caller's: a change that breaks when the input is as the message
        # says is reported; a parameter's or a built tensor's only where it breaks
        assert bool(reported) == (case in ("argument_on_already", "argument_off_not_needed")), reported
