"""A comprehension over a submodule container (`[layer(x) for layer in self.layers]`) whose call
breaks: nn.ModuleList, Sequential and ModuleDict iterate their `_modules` dict, so Dynamo cannot
rebuild the comprehension's iterator and breaks at the comprehension too (GB0092, on its first line),
as over a dict view (GM624; analysis/module_containers.py). Each spelling is measured with Dynamo
beside graphmend's findings, near misses included: over `enumerate(...)`, `list(...)`, a plain list
of modules, in a generator expression or a `for` statement Dynamo resumes, and with no break in the
layer nothing breaks at all."""

from __future__ import annotations

import sys

import pytest
from sample_modules import dynamo_breaks, graphmend_findings

SAMPLE = """
import torch
from torch import nn


class Layer(nn.Module):
    def forward(self, x):
        y = x * 2
        print("hi")
        return y + 1


class Quiet(nn.Module):
    def forward(self, x):
        return x * 2


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = {init}
        self.norm = nn.Identity()

    def forward(self, x):
        x = x + 1
        outs = {comp}
        return sum(outs)
"""
PRINT_LINE = SAMPLE.splitlines().index('        print("hi")') + 1  # in Layer.forward
COMPREHENSION_LINE = SAMPLE.splitlines().index("        outs = {comp}") + 1
MODULE_LIST = "nn.ModuleList([Layer(), Layer()])"

BREAKING = {
    "module list": (MODULE_LIST, "[layer(x) for layer in self.layers]"),
    "sequential": ("nn.Sequential(Layer(), Layer())", "[layer(x) for layer in self.layers]"),
    "module dict keys": ('nn.ModuleDict({"a": Layer(), "b": Layer()})', "[self.layers[k](x) for k in self.layers]"),
    "module dict values": ('nn.ModuleDict({"a": Layer(), "b": Layer()})', "[m(x) for m in self.layers.values()]"),
    "slice": (MODULE_LIST, "[layer(x) for layer in self.layers[:2]]"),
    "zip": (MODULE_LIST, "[layer(x) * w for layer, w in zip(self.layers, [1, 2])]"),
    "set comprehension": (MODULE_LIST, "{layer(x) for layer in self.layers}"),
    "nested call": (MODULE_LIST, "[self.norm(layer(x)) for layer in self.layers]"),
    # Dynamo reports the comprehension's first line, not the call's
    "spanning lines": (MODULE_LIST, "[\n            layer(x)\n            for layer in self.layers\n        ]"),
}
RESUMING = {
    "enumerate": (MODULE_LIST, "[layer(x) for i, layer in enumerate(self.layers)]"),
    "list of it": (MODULE_LIST, "[layer(x) for layer in list(self.layers)]"),
    "plain list": ("[Layer(), Layer()]", "[layer(x) for layer in self.layers]"),
    "generator": (MODULE_LIST, "list(layer(x) for layer in self.layers)"),
    "for statement": (MODULE_LIST, "[]\n        for layer in self.layers:\n            outs.append(layer(x))"),
}

pytestmark = pytest.mark.skipif(sys.version_info >= (3, 12), reason="3.12 inlines comprehensions (PEP 709)")


@pytest.mark.parametrize("name", sorted(BREAKING))
def test_a_breaking_call_in_a_comprehension_over_a_container_breaks_at_the_comprehension(name, tmp_path) -> None:
    init, comp = BREAKING[name]
    source = SAMPLE.format(init=init, comp=comp)
    assert dynamo_breaks(source, tmp_path) == {(PRINT_LINE, "GB0059"), (COMPREHENSION_LINE, "GB0092")}
    assert graphmend_findings(source, tmp_path) == {
        (PRINT_LINE, "GM401", "GB0059"), (COMPREHENSION_LINE, "GM624", "GB0092")}


@pytest.mark.parametrize("name", sorted(RESUMING))
def test_dynamo_resumes_over_what_is_no_dict_iterator(name, tmp_path) -> None:
    init, comp = RESUMING[name]
    source = SAMPLE.format(init=init, comp=comp)
    assert dynamo_breaks(source, tmp_path) == {(PRINT_LINE, "GB0059")}
    assert graphmend_findings(source, tmp_path) == {(PRINT_LINE, "GM401", "GB0059")}


def test_nothing_is_reported_at_the_comprehension_when_no_layer_breaks(tmp_path) -> None:
    source = SAMPLE.format(init="nn.ModuleList([Quiet(), Quiet()])", comp="[layer(x) for layer in self.layers]")
    assert dynamo_breaks(source, tmp_path) == set()
    # Layer.forward is a forward of the sample, a root whatever calls it: its print stands
    assert graphmend_findings(source, tmp_path) == {(PRINT_LINE, "GM401", "GB0059")}
