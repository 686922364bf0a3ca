"""`v in t` on a tensor (GM302, GB0124): Tensor.__contains__ reads `(v == t).any()` back and Dynamo
skips the frame. Reported only where the container is a tensor by how it is made; each case's
ground truth is measured with `torch._dynamo.explain` on torch 2.13 (a skipped frame makes no graph)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import torch

from graphmend_bot.config import Config
from graphmend_bot.engine import check

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
    "attribute_table": ("x = x + 1\n        if 'a' in self.table:\n            x = x * 2", False),
}


def _source(body: str) -> str:
    return (
        "import torch\n\n\nclass A(torch.nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.table = {'a': torch.ones(1)}\n\n"
        f"    def forward(self, x, batch):\n        {body}\n        return x - 1\n"
    )


def _breaks(path: Path, name: str) -> bool:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    torch._dynamo.reset()
    result = torch._dynamo.explain(module.A())(torch.ones(3), {"k": 1})
    return bool(result.break_reasons) or result.graph_count != 1


@pytest.mark.parametrize("case", sorted(CASES))
def test_in_is_reported_only_on_a_tensor_container(tmp_path: Path, case: str) -> None:
    body, breaks = CASES[case]
    path = tmp_path / f"membership_{case}.py"
    path.write_text(_source(body), encoding="utf-8")
    if breaks is not None:
        assert _breaks(path, f"membership_{case}") is breaks  # the ground truth
    findings = [f for f in check([str(path)], Config()).findings if "`in` on a tensor" in f.message]
    assert bool(findings) is bool(breaks), [f.message for f in findings]
