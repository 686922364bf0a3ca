"""`.item()` / `.tolist()` on a value from outside the tree (itemX, issue 27): the solver finds no
tensor for the result of a call with no callee in the tree, nor for an attribute of an object no
class of the tree builds, yet only a tensor, a NumPy value or an object whose class defines `item`
has the method (value_sources.opaque_source). Each sample is measured with Dynamo (torch 2.13) and
graphmend must agree line for line: near misses are NumPy values folded to constants and objects
of the tree's own classes."""

from __future__ import annotations

from pathlib import Path

from sample_modules import agreed_break_lines, line_of

HEADER = """\
import functools
import operator
import numpy as np
import torch
from torch import nn


class Box:
    def item(self):
        return 3


class Holder:
    def __init__(self):
        self.v = Box()


def constant():
    return np.float64(2.0)


def reduced(x):
    return functools.reduce(operator.add, [x.sum(), x.mean()])


def boxed():
    return Box()


def read(v):
    return v.item()


def read_near(v):
    return v.item()

"""


def _agree(body: str, tmp_path: Path) -> set[int]:
    return agreed_break_lines(HEADER + body, tmp_path)


def _line(body: str, text: str) -> int:
    return line_of(HEADER + body, text)


OUTSIDE = """
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.dist = torch.distributions.Normal(torch.tensor(0.0), torch.tensor(1.0))
        self.reduce = torch.sum

    def forward(self, x):
        x = x + 1
        a = functools.reduce(operator.add, [x.sum(), x.mean()]).item()
        b = self.dist.log_prob(x.sum()).item()
        c = self.dist.loc.item()
        d = self.reduce(x).item()
        e = getattr(torch, "sum")(x).item()
        f = functools.reduce(operator.add, [x, x]).tolist()
        g = np.mean(x.numpy()).item()
        h = reduced(x).item()
        i = read(functools.reduce(operator.add, [x.sum(), x.mean()]))
        return x + a + b + c + d + e + f[0] + g + h + i
"""


def test_item_on_values_from_outside_the_tree_breaks(tmp_path: Path) -> None:
    # each is a tensor (a NumPy value of a tensor's data for `g`; one a helper of the tree returns
    # for `h`, or is given for `i`, breaking inside `read`): each breaks (GB0124, GB0109, GB0033)
    assert _agree(OUTSIDE, tmp_path) == {
        _line(OUTSIDE, "a = functools"), _line(OUTSIDE, "b = self.dist"), _line(OUTSIDE, "c = self.dist"),
        _line(OUTSIDE, "d = self.reduce"), _line(OUTSIDE, 'e = getattr'), _line(OUTSIDE, "f = functools"),
        _line(OUTSIDE, "g = np.mean"), _line(OUTSIDE, "h = reduced"), _line(OUTSIDE, "    return v.item()"),
    }


NEAR = """
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.holder = Holder()
        self.scale = np.float64(2.0)

    def forward(self, x):
        x = x + 1
        a = np.array([1.0]).item()
        b = np.sqrt(2.0).item()
        c = self.holder.v.item()
        d = constant().item()
        e = self.scale.item()
        f = boxed().item()
        g = read_near(Box()) + read_near(np.float32(2.0))
        return x + a + b + c + d + e + f + g
"""


def test_item_near_misses_numpy_constants_and_tree_objects(tmp_path: Path) -> None:
    # NumPy values of Python constants fold; an attribute of the tree's object and the result of
    # the tree's own function keep what the solver says (a Box, a NumPy float constant), and so
    # does a parameter given a Box or a NumPy constant
    assert _agree(NEAR, tmp_path) == set()


SUBCLASS = """
class Boxed(torch.Tensor):
    pass


class Model(nn.Module):
    def forward(self, x):
        x = x + 1
        a = Boxed(x.sum()).item()
        b = Box().item()
        return x + a + b
"""


def test_item_on_a_tensor_subclass_of_the_tree_breaks(tmp_path: Path) -> None:
    # review25: the tree-class exclusion took `Boxed(...)` for a tree object; a torch.Tensor
    # subclass's object is a tensor, and `.item()` on it breaks (GB0124); the plain Box still traces
    assert _agree(SUBCLASS, tmp_path) == {_line(SUBCLASS, "a = Boxed")}
