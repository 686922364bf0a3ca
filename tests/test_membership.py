"""`v in t` on a tensor (GM302, GB0124): Tensor.__contains__ reads `(v == t).any()` back and Dynamo
skips the frame. Reported only where the container is a tensor by how it is made; each case's
ground truth is measured with `torch._dynamo.explain` on torch 2.13 (a skipped frame makes no graph)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sample_modules import dynamo_breaks, graphmend_findings

CASES = {
    # body of forward(self, x, batch), and whether Dynamo breaks on it (None: not measured here,
    # the elements are compared one by one, no Tensor.__contains__)
    "rebound_tensor": ("x = x + 1\n        if 3 in x:\n            x = x * 2", True),
    "not_in_tensor_method": ("x = x + 1\n        if 3 not in x.flatten():\n            x = x * 2", True),
    "dict_parameter": ("x = x + 1\n        if 'k' in batch:\n            x = x * 2", False),
    "list_of_tensors": (
        "x = x + 1\n        parts = [x, x]\n        if 3 in parts:\n            x = x * 2",
        None,
    ),
    "dict_of_tensors": (
        "x = x + 1\n        d = {'a': x}\n        if 'a' in d:\n            x = x * 2",
        False,
    ),
    # kornia's forward: a dict of tensors from a call of the tree, tested for a text key.
    "text_key_of_a_returned_dict": (
        "x = x + 1\n        params = self.parameters_for(x)\n        if 'a' not in params:\n            x = x * 2",
        False,
    ),
    "attribute_table": ("x = x + 1\n        if 'a' in self.table:\n            x = x * 2", False),
    # torchphysics' `args = args.coordinates` in an isinstance arm: a property returning a dict of
    # tensors, tested for a key that is no text
    "property_dict_in_an_arm": (
        "x = x + 1\n        made = Points(x)\n        if isinstance(batch, Points):\n            batch = batch.coordinates\n"
        "        for key in self.keys:\n            if key in batch:\n                x = x * 2",
        False,
    ),
}


def _source(body: str) -> str:
    return (
        "import torch\n\n\nclass Points:\n    def __init__(self, t):\n        self.t = t\n\n"
        "    @property\n    def coordinates(self):\n        return {'a': self.t + 1}\n\n\n"
        "class Model(torch.nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.table = {'a': torch.ones(1)}\n"
        "        self.keys = ('a',)\n\n"
        "    def parameters_for(self, x):\n        return {'a': x + 1}\n\n"
        f"    def forward(self, x, batch={{'k': 1}}):\n        {body}\n        return x - 1\n"
    )


@pytest.mark.parametrize("case", sorted(CASES))
def test_in_is_reported_only_on_a_tensor_container(tmp_path: Path, case: str) -> None:
    body, breaks = CASES[case]
    source = _source(body)
    row = next(n for n, line in enumerate(source.splitlines(), 1) if " in " in line and "for " not in line)
    if breaks is not None:  # the ground truth: GB0124 on the `in` line, or no break at all
        assert dynamo_breaks(source, tmp_path) == ({(row, "GB0124")} if breaks else set())
    expected = {(row, "GM302", "GB0124")} if breaks else set()
    assert graphmend_findings(source, tmp_path) == expected
