"""Where a value's kind comes from when nothing local types it (kindK, issue 27): `getattr(self,
"buf")` is `self.buf`, and `.item()` on a value nothing types (`out.loss`, `args[0]`) is a tensor's,
except on a NumPy scalar built in place or an object of a class of the tree. Each sample is
measured with Dynamo (torch 2.13) and graphmend must agree line for line."""

from __future__ import annotations

from pathlib import Path

from sample_modules import agreed_break_lines, line_of

HEADER = """\
import dataclasses
import numpy as np
import torch
from torch import nn


@dataclasses.dataclass
class Out:
    loss: torch.Tensor
    steps: int


class Inner(nn.Module):
    def forward(self, x):
        return Out(x.sum(), 1)


class Box:
    def item(self):
        return 3


def first(*args):
    return args[0].item()


def named(**kwargs):
    return kwargs["t"].item()


def listed(*args):
    return args[0].tolist()


def nonzeros(*args):
    return args[0].nonzero()


def offset(*args):
    return args[0].storage_offset()

"""


def _agree(body: str, tmp_path: Path) -> set[int]:
    return agreed_break_lines(HEADER + body, tmp_path)


def _line(body: str, text: str) -> int:
    return line_of(HEADER + body, text)


GETATTR = """
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("buf", torch.ones(1))
        self.scale = 2.0

    def forward(self, x):
        if getattr(self, "scale") > 1:
            x = x * 2
        v = getattr(self, "buf").item()
        w = getattr(self, "missing", None)
        return x + v
"""


def test_getattr_of_self_with_a_written_name_is_the_attribute(tmp_path: Path) -> None:
    # the buffer's `.item()` breaks; the float attribute compared does not; a default read neither
    assert _agree(GETATTR, tmp_path) == {_line(GETATTR, 'getattr(self, "buf").item()')}


OPAQUE = """
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = Inner()

    def forward(self, x):
        out = self.inner(x)
        a = out.loss.item()
        b = first(x[:1], x)
        c = named(t=x[:1])
        d = listed(x)
        e = nonzeros(x)
        f = offset(x)
        return x + a + b + c
"""


def test_item_on_values_nothing_types_breaks(tmp_path: Path) -> None:
    # a dataclass field of a returned record, `*args` and `**kwargs` elements: tensors, each breaks
    # (`.tolist()` GB0109, `.nonzero()` GB0036, `.storage_offset()` GB0208 as on any tensor)
    assert _agree(OPAQUE, tmp_path) == {
        _line(OPAQUE, "out.loss.item()"), _line(OPAQUE, "return args[0].item()"), _line(OPAQUE, 'kwargs["t"].item()'),
        _line(OPAQUE, "args[0].tolist()"), _line(OPAQUE, "args[0].nonzero()"), _line(OPAQUE, "args[0].storage_offset()"),
    }


NEAR = """
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.box = Box()

    def forward(self, x):
        a = np.float32(2.0).item()
        b = np.float64(3.0).item()
        c = Box().item()
        d = self.box.item()
        box = Box()
        e = box.item()
        return x + a + b + c + d + e
"""


def test_item_near_misses_numpy_scalars_and_objects_with_an_item_method(tmp_path: Path) -> None:
    # a NumPy scalar built from Python values is a constant to Dynamo; Box.item is traced
    assert _agree(NEAR, tmp_path) == set()


MAPPING_GET = """
class Table:
    def get(self, key):
        return 2.0


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.cfg = {"scale": np.float64(2.0), "eps": 1e-5}
        self.cache = {"t": torch.ones(1)}
        self.table = Table()

    def forward(self, x):
        a = self.cfg.get("scale").item()
        b = self.cfg.get("scale", np.float64(1.0)).item()
        c = self.cfg["scale"].item()
        d = self.cache.get("t").item()
        e = self.cache.get("missing", x[:1]).item()
        local = {"k": np.float32(3.0)}
        f = local.get("k").item()
        held = {"k": x[:1]}
        g = held.get("k").item()
        h = self.table.get("k")
        return x + a + b + c + d + e + f + g + h
"""


def test_mapping_get_is_an_element_of_the_mapping(tmp_path: Path) -> None:
    # `.get(key[, default])` on a dict of module state or a local is an element (or the default):
    # `.item()` on a NumPy float of one traces, on a tensor of one breaks; a class's own `get` runs
    assert _agree(MAPPING_GET, tmp_path) == {
        _line(MAPPING_GET, 'self.cache.get("t").item()'), _line(MAPPING_GET, 'self.cache.get("missing", x[:1])'),
        _line(MAPPING_GET, 'held.get("k").item()'),
    }
