"""`auto`'s tensor-api scope roots a public callable that hands one of its parameters on to a
parameter that takes a tensor (analysis/forwarded_tensors.py): neuralop's loss objects'
`__call__(self, y_pred, **kwargs)` returning `self.fdm(u=y_pred)`, whose `u` reaches a method
documenting `u : torch.Tensor`. Near misses: a method handing on only a Python value (`order=n`,
`delta` to `rho(sigma, delta)`, whose body uses only `sigma` as a tensor), and a loader handing its
path to a constructor whose docstring names tensors."""

import sys
import textwrap
from pathlib import Path

import pytest

from graphmend_bot.config import Config
from graphmend_bot.engine import check

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"

PACKAGE = {
    "eqn/__init__.py": "from .core import Encoder, Diff, EqnLoss, Settings, Grid, Prior, rho, load\n",
    "eqn/core.py": textwrap.dedent("""
        import torch
        from torch import nn


        class Encoder(nn.Module):
            def forward(self, x):
                return x


        class Diff:
            def dx(self, u, order=1):
                \"\"\"Derivative along x.

                Parameters
                ----------
                u : torch.Tensor
                    the field
                order : int
                \"\"\"
                return u.diff(n=order)


        class EqnLoss:
            def __init__(self, loss):
                self.loss = loss

            def __call__(self, y_pred, **kwargs):
                return self.fdm(u=y_pred)

            def fdm(self, u):
                if u.sum() > 0:
                    return self.loss(Diff().dx(u))
                return self.loss(Diff().dx(-u))


        class Settings:
            def __init__(self, grid):
                self.grid = grid

            def describe(self, n):
                if n > 2:
                    print("high order", n)
                self.last = Diff().dx(self.grid, order=n)
                return n


        class Grid:
            def __init__(self, path):
                \"\"\"A grid read from `path`.

                Parameters
                ----------
                path : str
                points : torch.Tensor
                \"\"\"
                self.path = path


        def rho(sigma, delta):
            return torch.log1p(delta * torch.abs(sigma))


        class Prior:
            def __init__(self, sigma):
                self.sigma = sigma

            def shifted(self, delta):
                if delta > 1:
                    print("wide prior", delta)
                self.rho = rho(self.sigma, delta)
                return delta


        def load(path):
            if path > 2:
                print("loading", path)
            return Grid(path)
    """),
}


def _row(root, text):
    lines = (root / "eqn" / "core.py").read_text().splitlines()
    return next(row for row, line in enumerate(lines, 1) if text in line)


def found(root, scope="auto"):
    result = check([str(root)], Config(scope=scope))
    assert not result.errors, result.errors
    return {(f.path.rsplit("/", 1)[-1], f.location.row, f.code) for f in result.findings}


def test_a_callable_handing_its_parameter_to_a_tensor_parameter_is_tensor_api(write_tree, monkeypatch):
    root = write_tree(PACKAGE)
    branch = ("core.py", _row(root, "if u.sum() > 0:"), "GM101")
    assert found(root) == {branch}
    # the library scope roots every public callable: the near misses' prints stand there
    assert found(root, "library") >= {branch, ("core.py", _row(root, 'print("high order", n)'), "GM401"),
                                      ("core.py", _row(root, 'print("loading", path)'), "GM401"),
                                      ("core.py", _row(root, 'print("wide prior", delta)'), "GM401")}
    torch = pytest.importorskip("torch")
    sys.path.insert(0, str(BENCHMARKS))
    from ground_truth import Tree, dynamo_breaks, normalise

    monkeypatch.syspath_prepend(str(root))
    import eqn

    broken = dynamo_breaks(eqn.EqnLoss(torch.mean), (torch.ones(3, 1, 4),), {}, Tree([str(root / "eqn")]))
    assert branch[1] in {line for file, line in broken.lines if file == normalise(str(root / "eqn" / "core.py"))}
    torch._dynamo.reset()
