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
        return sum(outs.values()) if isinstance(outs, dict) else sum(outs)
"""
PRINT_LINE = SAMPLE.splitlines().index('        print("hi")') + 1  # in Layer.forward
COMPREHENSION_LINE = SAMPLE.splitlines().index("        outs = {comp}") + 1
MODULE_LIST = "nn.ModuleList([Layer(), Layer()])"
MODULE_DICT = 'nn.ModuleDict({"a": Layer(), "b": Layer()})'

BREAKING = {
    "module list": (MODULE_LIST, "[layer(x) for layer in self.layers]"),
    "sequential": ("nn.Sequential(Layer(), Layer())", "[layer(x) for layer in self.layers]"),
    "module dict keys": (MODULE_DICT, "[self.layers[k](x) for k in self.layers]"),
    "module dict values": (MODULE_DICT, "[m(x) for m in self.layers.values()]"),
    "slice": (MODULE_LIST, "[layer(x) for layer in self.layers[:2]]"),
    "zip": (MODULE_LIST, "[layer(x) * w for layer, w in zip(self.layers, [1, 2])]"),
    "set comprehension": (MODULE_LIST, "{layer(x) for layer in self.layers}"),
    "nested call": (MODULE_LIST, "[self.norm(layer(x)) for layer in self.layers]"),
    # a filter on the submodules keeps some: the calls run (`training` is a module's own flag)
    "filtered": (MODULE_LIST, "[layer(x) for layer in self.layers if layer.training]"),
    "filtered by identity": (MODULE_LIST, "[layer(x) for layer in self.layers if layer is not self.norm]"),
    "module dict items": (MODULE_DICT, "[m(x) for k, m in self.layers.items()]"),
    "module dict items, dict comprehension": (MODULE_DICT, "{k: m(x) for k, m in self.layers.items()}"),
    "module dict items, filtered": (MODULE_DICT, '{k: m(x) for k, m in self.layers.items() if k != "c"}'),
    "two for clauses": (MODULE_LIST, "[layer(y) for layer in self.layers for y in (x, x + 1)]"),
    "argument of a call": (MODULE_LIST, "torch.stack([layer(x) for layer in self.layers])"),
    # Dynamo reports the comprehension's first line, not the call's
    "spanning lines": (MODULE_LIST, "[\n            layer(x)\n            for layer in self.layers\n        ]"),
}
RESUMING = {
    "enumerate": (MODULE_LIST, "[layer(x) for i, layer in enumerate(self.layers)]"),
    "list of it": (MODULE_LIST, "[layer(x) for layer in list(self.layers)]"),
    "plain list": ("[Layer(), Layer()]", "[layer(x) for layer in self.layers]"),
    "generator": (MODULE_LIST, "list(layer(x) for layer in self.layers)"),
    "for statement": (MODULE_LIST, "[]\n        for layer in self.layers:\n            outs.append(layer(x))"),
    "reversed": (MODULE_LIST, "[layer(x) for layer in reversed(self.layers)]"),
    "enumerate, dict comprehension": (MODULE_LIST, "{i: layer(x) for i, layer in enumerate(self.layers)}"),
    "for statement over items": (MODULE_DICT, "[]\n        for k, m in self.layers.items():\n            outs.append(m(x))"),
}
# A filter testing the submodules' type may keep only those that trace (here it keeps the Quiet one):
# nothing breaks at the comprehension, and graphmend, which cannot tell which pass, reports none.
TYPE_FILTERED = {
    "isinstance": "[layer(x) for layer in self.layers if isinstance(layer, Quiet)]",
    "not isinstance": "[layer(x) for layer in self.layers if not isinstance(layer, Layer)]",
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


@pytest.mark.parametrize("name", sorted(TYPE_FILTERED))
def test_a_filter_on_the_submodules_type_may_keep_only_layers_that_trace(name, tmp_path) -> None:
    source = SAMPLE.format(init="nn.ModuleList([Layer(), Quiet()])", comp=TYPE_FILTERED[name])
    assert dynamo_breaks(source, tmp_path) == set()
    assert graphmend_findings(source, tmp_path) == {(PRINT_LINE, "GM401", "GB0059")}  # Layer.forward, a root
