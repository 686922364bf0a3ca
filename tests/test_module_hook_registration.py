"""Registering a hook on an nn.Module in traced code (GM663, GB0467 on torch 2.13): every spelling
measured with `torch._dynamo.explain` on the sample; a tensor's own `register_hook` and a method of
that name on another object are near misses that trace."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from sample_modules import dynamo_breaks, graphmend_findings

_GLOBAL_HOOKS = ("_global_forward_hooks", "_global_forward_pre_hooks", "_global_backward_hooks",
                 "_global_backward_pre_hooks")


@pytest.fixture(autouse=True)
def _no_global_hook_outlives_the_test():
    """The global spellings' samples run eagerly and register a hook for every module of the
    process: later tests in this worker (the census's "may this module run project code") would see
    it, so the global registries are restored."""
    registries = [getattr(torch.nn.modules.module, name) for name in _GLOBAL_HOOKS]
    saved = [dict(registry) for registry in registries]
    yield
    for registry, before in zip(registries, saved):
        registry.clear()
        registry.update(before)

CASES = {
    # the statement after `x = x + 1` in forward(self, x); whether Dynamo breaks there
    "forward_hook": ("handle = self.lin.register_forward_hook(hook)", True),
    "forward_pre_hook": ("handle = self.lin.register_forward_pre_hook(prehook)", True),
    "full_backward_hook": ("handle = self.lin.register_full_backward_hook(bhook)", True),
    "full_backward_pre_hook": ("handle = self.lin.register_full_backward_pre_hook(bprehook)", True),
    "hook_on_self": ("handle = self.register_forward_hook(hook, with_kwargs=False)", True),
    "in_a_list": ("handles = [self.lin.register_forward_hook(hook)]", True),
    "module_passed_to_a_helper": ("handle = hook_layer(self.lin)", True),
    "global_forward_hook": ("handle = torch.nn.modules.module.register_module_forward_hook(hook)", True),
    "global_forward_pre_hook": ("handle = register_module_forward_pre_hook(prehook)", True),
    "tensor_hook": ("handle = self.lin.weight.register_hook(grad_hook)", False),
    "other_name_on_a_plain_object": ("handle = self.registry.register_forward_hooks(hook)", False),
}


def _source(statement: str) -> str:
    return (
        "import torch\nfrom torch.nn.modules.module import register_module_forward_pre_hook\n\n\n"
        "def hook(module, args, output):\n    return output\n\n\n"
        "def prehook(module, args):\n    return None\n\n\n"
        "def bhook(module, grad_input, grad_output):\n    return None\n\n\n"
        "def bprehook(module, grad_output):\n    return None\n\n\n"
        "def grad_hook(grad):\n    return grad\n\n\n"
        "def hook_layer(layer):\n    return layer.register_forward_hook(hook)\n\n\n"
        "class Registry:\n    def register_forward_hooks(self, fn):\n        return fn\n\n\n"
        "class Model(torch.nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n"
        "        self.lin = torch.nn.Linear(3, 3)\n        self.registry = Registry()\n\n"
        f"    def forward(self, x):\n        x = x + 1\n        {statement}\n        return self.lin(x) + 1\n"
    )


@pytest.mark.parametrize("case", sorted(CASES))
def test_module_hook_registrations_are_reported(tmp_path: Path, case: str) -> None:
    statement, breaks = CASES[case]
    source = _source(statement)
    lines = source.splitlines()
    row = lines.index(f"        {statement}") + 1
    if case == "module_passed_to_a_helper":  # the break is in the helper's `return`
        row = lines.index("    return layer.register_forward_hook(hook)") + 1
    expected = {(row, "GB0467")} if breaks else set()
    breaks_seen = dynamo_breaks(source, tmp_path)  # a backward hook breaks again at the call (GB0083)
    assert {b for b in breaks_seen if b[1] == "GB0467"} == expected
    assert breaks_seen or not breaks
    found = {(line, gb) for line, code, gb in graphmend_findings(source, tmp_path) if code == "GM663"}
    assert found == expected
