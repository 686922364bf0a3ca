"""Calling an nn.Module of the tree held in an annotated parameter runs its forward (analysis/
instance_forwards.py), measured against TorchDynamo (torch 2.13): `net(x)` with `net: Base`, where
`Base`, a base or an in-tree subclass defines forward, returns that forward's tensor, so `if y[0] > 0:` on
it breaks (GB0170) and graphmend reports it. Near misses trace and stay quiet: a forward returning
a list of Python ints, and a class whose own `__call__` (which decides what runs) returns one."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch")

from sample_modules import agreed_break_lines, line_of

HEAD = """from typing import Optional

import torch
from torch import nn


"""

SUBCLASS_FORWARD = """class Base(nn.Module):
    pass


class Impl(Base):
    def forward(self, x):
        return RESULT
"""

INHERITED_FORWARD = """class Base(nn.Module):
    def forward(self, x):
        return RESULT


class Impl(Base):
    pass
"""

OWN_CALL = """class Base(nn.Module):
    def __call__(self, x):
        return [x.shape[0], 2]

    def forward(self, x):
        return x * 2


class Impl(Base):
    pass
"""

MODEL = """

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.ext = Impl()

    def extract(self, x, ANNOTATED):
        return net(x)

    def forward(self, x):
        y = self.extract(x, self.ext)
        if y[0] > 0:
            return x + 1
        return x - 1
"""

ANNOTATIONS = ["net: Base", "net: Optional[Base] = None", "net: Impl"]


@pytest.mark.parametrize("annotation", ANNOTATIONS)
@pytest.mark.parametrize("classes", [SUBCLASS_FORWARD, INHERITED_FORWARD], ids=["subclass_forward", "inherited_forward"])
def test_a_module_called_through_an_annotated_parameter_returns_its_forwards_tensor(
        classes: str, annotation: str, tmp_path: Path) -> None:
    source = HEAD + classes.replace("RESULT", "x * 2") + MODEL.replace("ANNOTATED", annotation)
    assert agreed_break_lines(source, tmp_path) == {line_of(source, "if y[0] > 0:")}


@pytest.mark.parametrize("annotation", ANNOTATIONS)
@pytest.mark.parametrize("classes", [SUBCLASS_FORWARD.replace("RESULT", "[x.shape[0], 2]"), OWN_CALL],
                         ids=["forward_returns_ints", "own_call_returns_ints"])
def test_a_module_returning_python_values_stays_quiet(classes: str, annotation: str, tmp_path: Path) -> None:
    source = HEAD + classes + MODEL.replace("ANNOTATED", annotation)
    assert agreed_break_lines(source, tmp_path) == set()
