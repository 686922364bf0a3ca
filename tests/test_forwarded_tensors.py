"""A public callable that hands one of its parameters on to a parameter that takes a tensor is a
signature root (public_api.signature_tensor_roots: what users surely compile, whose constructions
are compiled code; since `auto`'s public-api scope roots every public callable of a package, the
near misses are roots of `auto` too, though not signature roots) (analysis/forwarded_tensors.py): neuralop's loss objects'
`__call__(self, y_pred, **kwargs)` returning `self.fdm(u=y_pred)`, whose `u` reaches a method
documenting `u : torch.Tensor`. Near misses: a method handing on only a Python value (`order=n`,
`delta` to `rho(sigma, delta)`, whose body uses only `sigma` as a tensor), and a loader handing its
path to a constructor whose docstring names tensors."""

import sys
import textwrap
from pathlib import Path

import pytest
from scope_roots import signature_roots

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
    prints = {("core.py", _row(root, text), "GM401")
              for text in ('print("high order", n)', 'print("loading", path)', 'print("wide prior", delta)')}
    # `auto`'s public-api scope roots every public callable, as the library scope: the near misses'
    # prints stand there (Dynamo breaks on each, below), but they are no signature roots
    assert found(root) == found(root, "library") >= {branch, *prints}
    assert signature_roots(root) == {
        "eqn.core:EqnLoss.__call__", "eqn.core:EqnLoss.fdm", "eqn.core:Diff.dx", "eqn.core:rho"}
    torch = pytest.importorskip("torch")
    sys.path.insert(0, str(BENCHMARKS))
    from ground_truth import Tree, dynamo_breaks, normalise

    monkeypatch.syspath_prepend(str(root))
    import eqn

    broken = dynamo_breaks(eqn.EqnLoss(torch.mean), (torch.ones(3, 1, 4),), {}, Tree([str(root / "eqn")]))
    path = normalise(str(root / "eqn" / "core.py"))
    assert branch[1] in {line for file, line in broken.lines if file == path}
    near_misses = [(eqn.Settings(torch.ones(4)).describe, (3,)), (eqn.Prior(torch.ones(2)).shifted, (2.0,)),
                   (eqn.load, (3,))]  # in the order of their prints' rows
    for (_, row, _), (fn, args) in zip(sorted(prints), near_misses):
        broken = dynamo_breaks(fn, args, {}, Tree([str(root / "eqn")]))
        assert row in {line for file, line in broken.lines if file == path}, (row, broken)
    torch._dynamo.reset()
