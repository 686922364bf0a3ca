"""A `torch.where` fix is safe only where no caller can tell the selection is a new tensor (review7 finding 1).

`pick` selects `x` itself on one path and returns it; `forward` updates the result in place. The
branch's result WAS the caller's `x`, so `add_` reached `x`; torch.where's is a new tensor, so it
does not. Such a fix is offered as unsafe (rewrite/escapes.py). Each case runs the original and
the safely fixed program eagerly, on inputs taking both paths: outputs and gradients must match.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import torch
from fixture_support import assert_identical, fix_source, load_module

from graphmend_bot.config import Config
from graphmend_bot.rewrite import fix_outcome

HEADER = "import torch\nfrom torch import nn\n\n\n"
# `pick`'s caller updates what it returns in place.
CALLER = """
    def forward(self, w):
        x = w * 1
        out = self.pick(x)
        out.add_(1)
        return x, out


model = torch.compile(Net())
"""

RETURNED = HEADER + """class Net(nn.Module):
    def pick(self, x):
        x = x.float()
        if x.sum() > 0:
            y = x * 2
        else:
            y = x
        return y
""" + CALLER

STORED = HEADER + """class Net(nn.Module):
    def remember(self, x):
        x = x.float()
        if x.sum() > 0:
            self.last = x * 2
        else:
            self.last = x

    def forward(self, w):
        x = w * 1
        self.remember(x)
        self.last.add_(1)
        return x, self.last


model = torch.compile(Net())
"""

RETURNED_EARLY = HEADER + """class Net(nn.Module):
    def pick(self, x):
        x = x.float()
        if x.sum() > 0:
            return x * 2
        return x
""" + CALLER

# The arms are a new tensor only `pick` holds: returning the selection hands the caller nothing it had.
LOCAL = HEADER + """class Net(nn.Module):
    def pick(self, x):
        h = x.float() * 3
        if h.sum() > 0:
            y = h * 2
        else:
            y = h
        return y
""" + CALLER

_names = itertools.count()


def _run(source: str, tmp_path: Path, sign: float) -> tuple[object, torch.Tensor | None]:
    index = next(_names)
    path = tmp_path / f"source_{index}.py"
    path.write_text(source, encoding="utf-8")
    module = load_module(path, tmp_path, f"escape_{index}")
    w = torch.full((2, 3), sign, requires_grad=True)
    x, out = module.Net()(w)
    ((x ** 2).sum() + (out * torch.arange(6.0).view(2, 3)).sum()).backward()
    return (x.detach(), out.detach()), w.grad


def _same_behaviour(before: str, after: str, tmp_path: Path) -> None:
    for sign in (1.0, -1.0):  # both paths of the branch
        (out_before, grad_before), (out_after, grad_after) = _run(before, tmp_path, sign), _run(after, tmp_path, sign)
        assert_identical(out_before, out_after)
        assert_identical(grad_before, grad_after, "gradient")


def _offered(source: str, tmp_path: Path) -> str:
    path = tmp_path / f"offered_{next(_names)}.py"
    path.write_text(source, encoding="utf-8")
    outcome = fix_outcome([str(path)], Config(), unsafe=False)
    fixes = [f.fix for f in outcome.remaining.findings if f.code == "GM101" and f.fix is not None]
    return fixes[0].message if fixes else ""


def test_a_returned_selection_the_caller_updates_in_place_keeps_its_branch(tmp_path: Path) -> None:
    fixed = fix_source(RETURNED, tmp_path)
    assert "if x.sum() > 0:" in fixed  # was rewritten to torch.where: the returned `x` stayed -1, not 0
    _same_behaviour(RETURNED, fixed, tmp_path)
    offered = _offered(RETURNED, tmp_path)
    assert "unsafe" in offered and "`x` may be a caller's tensor and the selection leaves `pick` (`return y`)" in offered


def test_a_selection_stored_on_self_keeps_its_branch(tmp_path: Path) -> None:
    fixed = fix_source(STORED, tmp_path)
    assert "if x.sum() > 0:" in fixed
    _same_behaviour(STORED, fixed, tmp_path)
    assert "leaves `remember` (`self.last = x`)" in _offered(STORED, tmp_path)


def test_an_early_return_of_a_parameter_keeps_its_branch(tmp_path: Path) -> None:
    fixed = fix_source(RETURNED_EARLY, tmp_path)
    assert "if x.sum() > 0:" in fixed
    _same_behaviour(RETURNED_EARLY, fixed, tmp_path)
    assert "leaves `pick` (`return x`)" in _offered(RETURNED_EARLY, tmp_path)


def test_a_returned_selection_of_a_new_local_tensor_is_fixed_safely(tmp_path: Path) -> None:
    fixed = fix_source(LOCAL, tmp_path)
    assert "y = torch.where(h.sum() > 0, h * 2, h)" in fixed
    _same_behaviour(LOCAL, fixed, tmp_path)


def test_a_new_local_tensor_that_also_leaves_keeps_its_branch(tmp_path: Path) -> None:
    """`h` is stored on `self` too: the caller's update of the result reached `self.h` before."""
    source = LOCAL.replace("        h = x.float() * 3\n", "        h = x.float() * 3\n        self.h = h\n").replace(
        "        return x, out\n\n", "        return x, out, self.h\n\n")
    assert "if h.sum() > 0:" in fix_source(source, tmp_path)
    assert "`h` may be a caller's tensor" in _offered(source, tmp_path)
