"""Building an instance of a torch.Tensor subclass of the tree gives a tensor (analysis/
tensor_constructions.py), measured against TorchDynamo (torch 2.13): `y = wrap(x)`, where `wrap`
returns `Labeled(x * 2)`, then `if y[0] > 0:` breaks (GB0170) in the caller, after Dynamo's break
at the construction (GB7312), and graphmend reports both. The subclass's `__new__` makes the
tensor in torch (`super().__new__`, `torch.Tensor._make_subclass`), or an in-tree base's does.
Near miss: a class of the tree that is no tensor, built and indexed the same way, traces."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch")

from sample_modules import dynamo_breaks, graphmend_findings, line_of

HEAD = """import torch
from torch import nn


"""

CLASSES = {
    "super_new": """class Labeled(torch.Tensor):
    @staticmethod
    def __new__(cls, x, labels=None):
        return super().__new__(cls, x)

    def __init__(self, x, labels=None):
        self.labels = labels
""",
    "make_subclass": """class Labeled(torch.Tensor):
    def __new__(cls, x, labels=None):
        return torch.Tensor._make_subclass(cls, x)
""",
    "base_new": """class Base(torch.Tensor):
    @staticmethod
    def __new__(cls, x, labels=None):
        return super().__new__(cls, x)


class Labeled(Base):
    pass
""",
}

NOT_A_TENSOR = """class Labeled:
    def __init__(self, x, labels=None):
        self.labels = labels

    def __getitem__(self, index):
        return 1
"""

MODEL = """

def wrap(x):
    return Labeled(x * 2, labels=["a"])


class Model(nn.Module):
    def forward(self, x):
        y = wrap(x)
        if y[0] > 0:
            return x + 1
        return x - 1
"""


@pytest.mark.parametrize("case", sorted(CLASSES))
def test_a_tensor_subclass_built_in_a_helper_is_a_tensor_in_the_caller(case: str, tmp_path: Path) -> None:
    source = HEAD + CLASSES[case] + MODEL
    breaks = dynamo_breaks(source, tmp_path)
    found = graphmend_findings(source, tmp_path)
    branch = line_of(source, "if y[0] > 0:")
    assert (branch, "GB0170") in breaks
    assert (branch, "GB0170") in {(line, gb) for line, _, gb in found}
    assert {line for line, _ in breaks} == {line for line, _, _ in found}


def test_a_class_that_is_no_tensor_stays_quiet(tmp_path: Path) -> None:
    source = HEAD + NOT_A_TENSOR + MODEL
    assert dynamo_breaks(source, tmp_path) == set()
    assert graphmend_findings(source, tmp_path) == set()
