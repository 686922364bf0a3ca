"""`torch` bound by a star import of the checked tree (analysis/star_torch.py), against TorchDynamo
(torch 2.13): `from .layers import *` where `layers/core.py` does `import torch` makes `torch.cat`
and `F.softplus` torch's, tensors to the rules; `torch.is_tensor(y)` stays a Python bool (the
near miss: Dynamo traces it, graphmend is quiet). A module whose `__all__` leaves torch out
binds none of it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from graphmend_bot.analysis.star_torch import torch_bindings
from graphmend_bot.config import Config
from graphmend_bot.engine import check

CORE = """
import torch
import torch.nn.functional as F
from torch import nn


class Scale(nn.Module):
    def forward(self, x):
        return x * 2
"""

MODELS = """
from .layers import *


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = Scale()

    def forward(self, x):
        out = torch.cat([self.scale(x), x], dim=-1)
        if out[0] > 0:  # breaks
            out = out + 1
        y = F.softplus(out)
        if torch.is_tensor(y):  # a Python bool
            y = y * 2
        return y.tolist()  # breaks
"""

TREE = {
    "starpkg/__init__.py": "",
    "starpkg/layers/__init__.py": "from .core import *\n",
    "starpkg/layers/core.py": CORE,
    "starpkg/models.py": MODELS,
}


def _line(text: str) -> int:
    return next(i for i, line in enumerate(MODELS.lstrip("\n").splitlines(), 1) if text in line)


def test_torch_a_star_import_binds_gives_tensors(write_tree):
    root = write_tree(TREE)
    result = check([str(root / "starpkg")], Config(), jobs=1)
    assert not result.errors, result.errors
    found = {(f.location.row, f.code) for f in result.findings if f.path.endswith("models.py")}
    assert found == {(_line("if out[0] > 0:"), "GM101"), (_line("return y.tolist()"), "GM303")}


def test_dynamo_breaks_at_the_same_lines(write_tree, monkeypatch):
    torch = pytest.importorskip("torch")
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    from ground_truth import Tree, dynamo_breaks

    root = write_tree(TREE)
    monkeypatch.syspath_prepend(str(root))
    for name in [name for name in sys.modules if name == "starpkg" or name.startswith("starpkg.")]:
        monkeypatch.delitem(sys.modules, name)
    import starpkg.models as models

    broken = dynamo_breaks(models.Model(), (torch.ones(3),), {}, Tree([str(root / "starpkg")]))
    path = str(root / "starpkg" / "models.py")
    assert broken.lines == {(path, _line("if out[0] > 0:")), (path, _line("return y.tolist()"))}


def test_what_the_star_import_binds(write_tree):
    root = write_tree(
        {
            **TREE,
            "starpkg/listed.py": "import torch\n__all__ = ['helper']\n\n\ndef helper(x):\n    return x\n",
            "starpkg/shadow.py": "from torch import nn\n\n\nclass nn:\n    pass\n",
        }
    )
    read: set[str] = set()
    assert torch_bindings(str(root), ["starpkg.layers"], read) == {
        "torch": "torch",
        "F": "torch.nn.functional",
        "nn": "torch.nn",
    }
    assert str(root / "starpkg" / "layers" / "core.py") in read  # the summary cache keys on it
    assert torch_bindings(str(root), ["starpkg.listed"], set()) == {}  # `__all__` leaves torch out
    assert torch_bindings(str(root), ["starpkg.shadow"], set()) == {}  # the module's own `nn`
    assert torch_bindings(str(root), ["torch.nn"], set()) == {}  # not the tree's
    assert torch_bindings(None, ["starpkg.layers"], set()) == {}  # a loose script
