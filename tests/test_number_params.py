"""A public root's parameter its body counts with (`range(reps)`, `math.floor(scale)`,
`[None] * depth`, `x.new_zeros(width)`) is a Python number, not an assumed tensor (analysis/number_params.py).

Ground truth: compiled with the numbers those uses take, Dynamo traces the functions whole; the
near misses stay reported and break: a parameter with no such use (`shift`), and a tensor a caller
in the tree passes to a counted parameter (`tile_by`)."""

from __future__ import annotations

import ast
import sys
import textwrap
from pathlib import Path

import pytest

from graphmend_bot.analysis.number_params import number_params
from graphmend_bot.config import Config
from graphmend_bot.engine import check

OPS = """
    import math

    import torch


    def tile(x, reps):
        out = [x for _ in range(reps)]
        if reps > 2:
            out = out[:2]
        return torch.cat(out)


    def octave(x, scale):
        k = math.floor(scale)
        if scale > 1.5:
            return x * k
        return x


    def slots(x, depth):
        past = [None] * depth
        if depth > 1:
            return x + len(past)
        return x


    def grid(x, width):
        y = x.new_zeros(width)
        if width > 3:
            return y + 1
        return y


    def shift(x, t):
        if t > 2:
            return x + 1
        return x
"""
CALLER = OPS + """

    def tile_by(x):
        return tile(x, (x > 0).sum())
"""
MODEL = """
    import torch

    from .ops import *


    class Model(torch.nn.Module):
        def forward(self, x):
            return x
"""


def _line(text: str) -> int:
    return next(i for i, line in enumerate(textwrap.dedent(OPS).lstrip("\n").splitlines(), 1) if text in line)


def _found(root: Path) -> set[tuple[int, str]]:
    result = check([str(root)], Config(), jobs=1)
    assert not result.errors, result.errors
    return {(f.location.row, f.code) for f in result.findings if f.path.endswith("ops.py")}


def test_counted_parameters_of_public_roots_are_not_reported(write_tree):
    root = write_tree({"pkg/__init__.py": MODEL, "pkg/ops.py": OPS})
    assert _found(root) == {(_line("if t > 2:"), "GM101")}


def test_a_tensor_a_caller_passes_still_makes_a_counted_parameter_one(write_tree):
    root = write_tree({"pkg/__init__.py": MODEL + "    from .ops import tile_by\n", "pkg/ops.py": CALLER})
    assert (_line("if reps > 2:"), "GM101") in _found(root)


def test_dynamo_traces_the_counted_calls_and_breaks_on_the_near_misses(write_tree, monkeypatch):
    torch = pytest.importorskip("torch")
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    from ground_truth import Tree, dynamo_breaks

    root = write_tree({"pkg/__init__.py": MODEL, "pkg/ops.py": CALLER})
    monkeypatch.syspath_prepend(str(root))
    for name in [name for name in sys.modules if name == "pkg" or name.startswith("pkg.")]:
        monkeypatch.delitem(sys.modules, name)  # another test's `pkg` in this worker would stand in for ours
    import pkg.ops as ops

    torch._dynamo.reset()  # what earlier tests of this worker compiled
    # fixed values: tile_by repeats x `(x > 0).sum()` times, and from torch.randn(4) that was 0 one run
    # in sixteen (all negative), when torch.cat([]) raised in tile's resume
    x = torch.tensor([0.5, -1.0, 2.0, -0.25])
    tree = Tree([str(root / "pkg")])
    for fn, args in ((ops.tile, (x, 3)), (ops.octave, (x, 2.0)), (ops.slots, (x, 3)), (ops.grid, (x, 4))):
        broken = dynamo_breaks(fn, args, {}, tree)
        assert broken.lines == set() and broken.graph_count == 1, (fn.__name__, broken)
    path = str(root / "pkg" / "ops.py")
    assert dynamo_breaks(ops.shift, (x, torch.tensor(3)), {}, tree).lines == {(path, _line("if t > 2:"))}
    # `range(reps)` breaks too (no rule reports it yet); `if reps > 2:` is the line graphmend reports
    assert (path, _line("if reps > 2:")) in dynamo_breaks(ops.tile_by, (x,), {}, tree).lines


@pytest.mark.parametrize(("body", "counted"), [
    ("for i in range(n_):\n    pass", {"n_"}),
    ("y = range(0, stop, step)", {"stop", "step"}),
    ("y = math.log2(base)", {"base"}),
    ("y = (0,) * width", {"width"}),
    ("y = width * [1]", {"width"}),
    ("y = x * width", set()),  # a product, not a repetition: a tensor may be scaled
    ("y = torch.zeros(base, width)", {"base", "width"}),
    ("y = torch.full(width, base)", {"width"}),  # the fill value may be a tensor
    ("y = x.view(-1, width)", {"width"}),
    ("y = torch.cat([x, base])", set()),
    ("y = range(len(x))", set()),
    # arguments that take a 0-d tensor as well (measured below: each breaks with one)
    ("y = math.exp(base) + math.isnan(width)", set()),
    ("y = torch.linspace(base, width, step)", {"step"}),
    ("y = x.narrow(0, base, width)", {"width"}),
    ("reps = reps.item()\nfor i in range(reps):\n    pass", set()),  # rebound: the use reads the new value
])  # fmt: skip
def test_the_counting_uses(body, counted):
    source = "def f(x, n_, stop, step, base, width, reps):\n" + "".join(f"    {line}\n" for line in body.splitlines())
    function = ast.parse(source)
    node = function.body[0]
    assert isinstance(node, ast.FunctionDef)
    names = ["x", "n_", "stop", "step", "base", "width", "reps"]

    def resolve(func: ast.expr) -> str | None:
        if isinstance(func, ast.Name):
            return f"builtins.{func.id}"
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in ("math", "torch"):
            return f"{func.value.id}.{func.attr}"
        return None

    assert number_params(node.body, names, resolve, None) == counted
    assert number_params(node.body, names, resolve, source) == counted  # the text scan before the walk


NEAR_MISSES = """
    import math

    import torch


    def perplexity(x, loss):
        p = math.exp(loss)
        return x * p


    def guard(x, loss):
        if math.isnan(loss):
            return x
        return x + 1


    def span(x, lo, hi):
        g = torch.linspace(lo, hi, 4)
        if hi > lo:
            return x + g
        return x


    def window(x, start):
        y = x.narrow(0, start, 2)
        if start > 0:
            return y + 1
        return y
"""


def test_arguments_that_take_a_0d_tensor_leave_the_parameter_assumed(write_tree, monkeypatch):
    """`math.exp(loss)`, `math.isnan(loss)`, linspace's ends and narrow's start take a 0-d tensor:
    called with one, Dynamo breaks in each function, and graphmend reports the parameter's uses."""
    torch = pytest.importorskip("torch")
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    from ground_truth import Tree, dynamo_breaks

    root = write_tree({"nearpkg/__init__.py": MODEL, "nearpkg/ops.py": NEAR_MISSES})
    monkeypatch.syspath_prepend(str(root))
    import nearpkg.ops as ops

    x = torch.randn(4)
    tree = Tree([str(root / "nearpkg")])
    lines = textwrap.dedent(NEAR_MISSES).lstrip("\n").splitlines()
    broken: set[int] = set()
    for fn, args in ((ops.perplexity, (x, torch.tensor(2.0))), (ops.guard, (x, torch.tensor(2.0))),
                     (ops.span, (x, torch.tensor(0.0), torch.tensor(1.0))), (ops.window, (x, torch.tensor(1)))):
        found = dynamo_breaks(fn, args, {}, tree).lines
        assert found, fn.__name__
        broken |= {line for _, line in found}
    reported = {row for row, _ in _found(root)}
    assert broken <= reported, (sorted(broken), sorted(reported), lines)
