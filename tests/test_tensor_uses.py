"""`auto`'s public callables on tensors where the maintainer wrote no annotation
(analysis/tensor_uses.py) and a metric's result method, measured with torch._dynamo.explain.

Unannotated functional API (`def gain(x, k=2)` calling `torch.exp(x)`, `def squash(X, dim)`
calling an autograd.Function's `apply`) and `compute(self) -> Tensor` of a stateful object are
what users compile beside a package's modules; a text helper and a function on NumPy arrays
(methods arrays share with tensors only) are not roots, though the library scope roots them."""

from __future__ import annotations

import sys

import pytest
from test_library_scope import benchmarks_dir, found

PACKAGE = {
    "metrics/__init__.py": "from .core import Net, gain, squash, Mean, tokenize, flatten_array\n",
    "metrics/core.py": """
        import torch
        from torch import nn


        def gain(x, k=2):
            return torch.exp(x) * x.amax().item() * k


        class Square(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, dim):
                return x * x

            @staticmethod
            def backward(ctx, grad):
                return grad, None


        def squash(X, dim=-1):
            out = Square.apply(X, dim)
            print("squashed")
            return out


        class Mean:
            def __init__(self):
                self.total = torch.zeros(())
                self.count = torch.zeros(())

            def compute(self) -> torch.Tensor:
                return self.total / self.count.item()


        def tokenize(text):
            print(text)
            return text.split()


        def flatten_array(a):
            return a.reshape(-1).sum().item()


        class Net(nn.Module):
            def forward(self, x):
                return gain(x)
    """,
}
GAIN, SQUASH, COMPUTE = ("core.py", 6, "GM301"), ("core.py", 21, "GM401"), ("core.py", 31, "GM301")
TOKENIZE, FLATTEN = ("core.py", 35, "GM401"), ("core.py", 40, "GM301")


def test_unannotated_parameters_used_as_tensors_and_state_results_are_tensor_api(write_tree, monkeypatch):
    root = write_tree(PACKAGE)
    assert found(root) == {GAIN, SQUASH, COMPUTE}
    assert found(root, "library") == {GAIN, SQUASH, COMPUTE, TOKENIZE, FLATTEN}
    torch = pytest.importorskip("torch")
    sys.path.insert(0, str(benchmarks_dir()))
    from ground_truth import Tree, dynamo_breaks, normalise

    monkeypatch.syspath_prepend(str(root))
    import metrics

    path = normalise(str(root / "metrics" / "core.py"))
    rows = set()
    for fn in (metrics.gain, metrics.squash, metrics.Mean().compute):
        args = () if fn.__name__ == "compute" else (torch.ones(3),)
        broken = dynamo_breaks(fn, args, {}, Tree([str(root / "metrics")]))
        rows |= {line for file, line in broken.lines if file == path}
    assert rows == {GAIN[1], SQUASH[1], COMPUTE[1]}
    torch._dynamo.reset()


def test_a_parameter_given_to_a_factory_is_data_not_a_tensor() -> None:
    """`torch.tensor(values)`, `torch.zeros(n)`, `torch.from_numpy(a)` build a tensor from Python data,
    sizes or arrays: the parameter is none (a public `prepare(values)` is no tensor API)."""
    import ast

    from graphmend_bot.analysis.tensor_uses import uses_param_as_tensor

    def used(source: str) -> bool:
        node = ast.parse(source).body[1]
        assert isinstance(node, ast.FunctionDef)
        return uses_param_as_tensor(node, source, lambda e: "torch." + e.attr if isinstance(e, ast.Attribute) else None)

    for factory in ("tensor", "as_tensor", "zeros", "from_numpy", "arange"):
        assert not used(f"import torch\ndef prepare(values):\n    return torch.{factory}(values)\n"), factory
    assert used("import torch\ndef scale(x):\n    return torch.exp(x)\n")
