"""`from ..backend import torch` where the package binds `torch` at run time (summary.Imports.
settle_backend_torch), measured with torch._dynamo.explain, with a negative.

DeepXDE's `backend/__init__.py` loads its PyTorch backend and copies the framework module onto
itself with `setattr`; its gradients then call `torch.autograd.grad` through that name, and
Dynamo breaks there (GB9186, GM701). A package module named `torch` (`backend/torch.py`) is that
module and keeps its own name: its `grad` is no torch function, and Dynamo traces it."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from test_scope_edges import _assert_reported_where_dynamo_breaks

BACKEND_TREE = {
    "bkpkg/__init__.py": "",
    "bkpkg/backend/__init__.py": """
        import importlib
        import sys

        torch = None


        def load_backend(name):
            module = importlib.import_module(name)
            setattr(sys.modules[__name__], "torch", module)


        load_backend("torch")
    """,
    "bkpkg/ops/__init__.py": "",
    "bkpkg/ops/torch.py": """
        def grad(y, x):
            return y * 2 + x
    """,
    "bkpkg/ops/gradients.py": """
        from ..backend import torch


        def first_derivative(y, x):
            return torch.autograd.grad(y, x, grad_outputs=torch.ones_like(y), create_graph=True)[0]  # break
    """,
    "bkpkg/ops/local.py": """
        from . import torch


        def local_grad(y, x):
            return torch.grad(y, x)
    """,
    "bkpkg/model.py": """
        import torch
        from torch import nn

        from .ops.gradients import first_derivative
        from .ops.local import local_grad


        class Net(nn.Module):
            def forward(self, x):
                with torch.enable_grad():
                    x = x.detach().requires_grad_(True)
                    y = (x * x).sum(dim=0, keepdim=True)
                    return first_derivative(y, x) + local_grad(y, x)
    """,
}


def test_torch_a_backend_package_binds_at_run_time_is_torch(write_tree) -> None:
    root = write_tree(BACKEND_TREE)
    _assert_reported_where_dynamo_breaks(root, "bkpkg", "model", "Net", "ops/gradients.py")
    _assert_reported_where_dynamo_breaks(root, "bkpkg", "model", "Net", "ops/local.py")
