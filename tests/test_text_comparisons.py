"""`x == 'sum'` on a tensor is a Python bool: Tensor.__eq__ gives up on text (NotImplemented) and
Python falls back to identity, so Dynamo branches on it without a break. A parameter compared with
a text literal (pykan's `if reg_metric == 'edge_forward_spline_n':` in an entry point whose
unannotated parameters are assumed tensors) is no data-dependent branch. Each case's ground truth is
measured with `torch._dynamo.explain` on torch 2.13."""

from __future__ import annotations

from pathlib import Path

import pytest
from sample_modules import dynamo_breaks, graphmend_findings

CASES = {
    # condition of `if` in forward(self, x) on x = torch.ones(3), and whether Dynamo breaks on it
    "equals_text": ("x == 'edge'", False),
    "text_on_the_left": ("'edge' != x", False),
    "formatted_text": ("x == f'{self.name}_n'", False),
    "chained_with_text": ("x != 'a' != 'b'", False),
    "text_or_membership": ("x == 'edge' or x is None", False),
    # a container display: Tensor.__eq__ gives up on a list, tuple, dict or set too, even of numbers
    # (torchphysics' `if coords == {}:` on a dict a caller may pass)
    "equals_empty_dict": ("x == {}", False),
    "equals_dict": ("x != {'a': 1}", False),
    "equals_empty_set": ("x == set()", False),
    "equals_empty_list": ("x == []", False),
    "equals_empty_tuple": ("() != x", False),
    "equals_list_of_numbers": ("x == [1.0, 1.0, 1.0]", False),
    "equals_tuple_of_numbers": ("x != (1.0, 2.0, 1.0)", False),
    # near misses: a number, or an operand that is not text, still reads the tensor's values
    "equals_number": ("x.sum() == 3.0", True),
    "bytes": ("x == b'edge'", True),  # Dynamo breaks here (GB0213), unlike on text
    "text_then_values": ("x == 'edge' or x.sum() > 0", True),
    "ordered_with_text_first": ("x.sum() > 0 == 'a'", True),
}


def _source(condition: str) -> str:
    return (
        "import torch\n\n\nclass Model(torch.nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.name = 'edge'\n\n"
        f"    def forward(self, x):\n        if {condition}:\n            x = x * 2\n        return x - 1\n"
    )


@pytest.mark.parametrize("case", sorted(CASES))
def test_comparison_with_text_is_no_tensor_branch(tmp_path: Path, case: str) -> None:
    condition, breaks = CASES[case]
    source = _source(condition)
    row = next(n for n, line in enumerate(source.splitlines(), 1) if line.strip().startswith("if "))
    assert bool(dynamo_breaks(source, tmp_path)) == breaks
    findings = graphmend_findings(source, tmp_path)
    assert {(line, code) for line, code, _ in findings} == ({(row, "GM101")} if breaks else set())
