"""benchmarks/wild/rewrite_check.py compares what a rewrite changed: outputs, gradients, and which
rewritten functions the calls ran. These tests hold its comparisons to real rewrites' shapes."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks" / "wild"))

from rewrite_check import _agrees, _gradients, _touched_functions, _unexplained  # noqa: E402


def _clamped(module: torch.nn.Module, x: torch.Tensor, detach: bool) -> torch.Tensor:
    y = module(x)
    return torch.where(y > 0, y, y.detach() if detach else y)


def test_a_rewrite_that_cuts_a_gradient_path_is_caught_though_outputs_agree() -> None:
    torch.manual_seed(0)
    module = torch.nn.Linear(3, 2)
    x = torch.randn(4, 3)
    runs = []
    for detach in (False, True):
        output = _clamped(module, x, detach)
        runs.append({"tensors": [output.detach()], "gradients": _gradients(module.forward, (x,), {}, output)})
    assert _agrees(runs[0], runs[1], "tensors")
    assert len(runs[0]["gradients"]) == 2  # weight and bias, through the bound method's module
    assert not _agrees(runs[0], runs[1], "gradients", missing=False)


def test_an_argument_that_requires_grad_is_a_leaf_and_an_unreached_one_shows_as_empty() -> None:
    a = torch.randn(3, requires_grad=True)
    b = torch.randn(3, requires_grad=True)
    grads = _gradients(torch.sin, (a,), {"unused": b}, torch.sin(a))
    assert torch.equal(grads[0], torch.cos(a).detach())
    assert grads[1].numel() == 0


def test_a_call_with_nothing_to_differentiate_has_no_gradients_and_agrees_with_itself() -> None:
    x = torch.randn(3)
    assert _gradients(torch.cos, (x,), {}, torch.cos(x)) == []
    assert _agrees({"tensors": [x]}, {"tensors": [x]}, "gradients", missing=False)
    assert not _agrees({"gradients": []}, {"gradient_error": "RuntimeError"}, "gradients", missing=False)


def test_an_added_decorator_belongs_to_the_function_below_it() -> None:
    before = "import torch\n\n\ndef helper(x):\n    return x.nonzero()\n\n\ndef other(x):\n    return x\n"
    after = before.replace("def helper", "@torch.compiler.disable\ndef helper")
    assert _touched_functions(before, after) == [("helper", 4, 6)]


def test_a_call_dynamo_could_not_explain_on_one_side_is_compared_on_neither() -> None:
    """torch_geometric's AddRandomWalkPE on a sparse graph: Dynamo crashes explaining the original
    (IndexError in pgo.py on a CSR tensor's strides) and not the rewrite, whose 11 breaks would
    otherwise read as 11 new ones."""
    original = {"gcn": {"breaks": ["a.py:1"]}, "rewrite:pe": {"dynamo_error": "IndexError: at pgo.py:340"},
                "rewrite:pool": {"breaks": []}}
    rewritten = {"gcn": {"breaks": ["a.py:1"]}, "rewrite:pe": {"breaks": ["b.py:2"]},
                 "rewrite:pool": {"dynamo_error": "InternalTorchDynamoError"}}
    assert _unexplained(original, rewritten) == ["rewrite:pe", "rewrite:pool"]
    explained = original | {"rewrite:pe": {"breaks": []}}
    assert _unexplained(explained, explained) == []


def test_a_function_defined_under_a_module_level_try_is_a_touched_function() -> None:
    """gpytorch's KeOps fallback classes live in `except ImportError:`; a rewrite there was uncounted."""
    before = (
        "try:\n    import pykeops\nexcept ImportError:\n    class Kernel:\n        def __call__(self, x):\n"
        "            warn('no keops')\n            return x\n"
    )
    after = before.replace("            warn('no keops')\n", "            if not compiling():\n                warn('no keops')\n")
    assert _touched_functions(before, after) == [("Kernel.__call__", 5, 8)]
