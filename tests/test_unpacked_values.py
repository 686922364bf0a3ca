"""Names bound by unpacking where the value says more than its kind (analysis/unpacked_values.py),
against TorchDynamo (torch 2.13): a parameter annotated as a sequence of tensors unpacks to tensors
whatever a caller the analysis cannot follow passes (`mean, log_scale = params`), one annotated as
a mapping of tensors to its keys, and `einops.pack` to a tensor and its shapes. Each sample asserts
the lines Dynamo breaks at are those graphmend reports; the near misses (a key, Python ints
unpacked from a `Tuple[int, int]` or from `pack`'s shapes) hold no tensor and are not reported."""

from __future__ import annotations

import sys

import pytest

pytest.importorskip("torch")

from sample_modules import dynamo_breaks, graphmend_findings, line_of

# `self.params_fn` is built from a registry by key: the analysis does not know what it returns, so
# what `affine` and `rest` are passed is unknown to it; their annotations say it.
ANNOTATED = """import typing

import torch
from torch import nn


class Params(nn.Module):
    def forward(self, x):
        return x * 2, x - 1


FACTORIES = {"dense": Params}


class Model(nn.Module):
    def __init__(self, kind="dense"):
        super().__init__()
        self.params_fn = FACTORIES[kind]()

    def forward(self, x):
        y = self.affine(x, self.params_fn(x), {"a": x})
        return self.rest(x, self.params_fn(x), (3, 1))

    def affine(self, x, params: typing.Optional[typing.Sequence[torch.Tensor]], feats: typing.Dict[str, torch.Tensor]):
        assert params is not None
        mean, log_scale = params
        if log_scale[0] > 0:  # breaks
            x = x + 1
        key, = feats
        if key:  # a name, no tensor
            x = x * 2
        return x * mean

    def rest(self, x, xs: typing.List[torch.Tensor], sizes: typing.Tuple[int, int]):
        *others, ref = xs
        n, m = sizes
        if n > m:  # Python ints
            x = x - 1
        return ref.tolist()  # breaks
"""


def test_annotated_sequences_unpack_to_tensors_and_mappings_to_keys(tmp_path):
    breaking = {
        line_of(ANNOTATED, "if log_scale[0] > 0"): "GB0170",
        line_of(ANNOTATED, "return ref.tolist()"): "GB0109",
    }
    assert dynamo_breaks(ANNOTATED, tmp_path) == set(breaking.items())
    assert graphmend_findings(ANNOTATED, tmp_path) == {
        (breaking_line, "GM101" if gb_id == "GB0170" else "GM303", gb_id)
        for breaking_line, gb_id in breaking.items()
    }  # not `if key:` nor `if n > m:`


# A stand-in for einops' packing with its contract (einops/packing.py: `pack` returns the packed
# tensor and the shapes it packed, `unpack` a list of tensors), so the test imports no library of
# the corpus.
EINOPS = """import torch


def pack(tensors, pattern):
    return torch.cat(tensors), [(t.shape[0],) for t in tensors]


def unpack(tensor, packed_shapes, pattern):
    return list(tensor.split([s[0] for s in packed_shapes]))
"""

PACKED = """import torch
from torch import nn
from einops import pack, unpack


class Model(nn.Module):
    def forward(self, x):
        return self.pack_one(x, "* d")

    def pack_one(self, t, pattern):
        packed, ps = pack([t], pattern)
        if ps[0][0] > 1:  # Python ints
            packed = packed * 2
        if packed[0] > 0:  # breaks
            packed = packed + 1
        unpacked, = unpack(packed, ps, pattern)
        return unpacked.tolist()  # breaks
"""


def test_einops_pack_gives_a_tensor_and_its_shapes(tmp_path, monkeypatch):
    (tmp_path / "einops.py").write_text(EINOPS)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "einops", raising=False)
    branch, listed = line_of(PACKED, "if packed[0] > 0"), line_of(PACKED, "return unpacked.tolist()")
    assert dynamo_breaks(PACKED, tmp_path) == {(branch, "GB0170"), (listed, "GB0109")}
    assert graphmend_findings(PACKED, tmp_path) == {(branch, "GM101", "GB0170"), (listed, "GM303", "GB0109")}
