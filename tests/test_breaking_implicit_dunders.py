"""GM658 against TorchDynamo (torch 2.13) for the implicit calls beyond the left operand's operator: a
truth test (`if box:`, `while box:`, `x if box else y`, `not box`, `box or x`) runs the class's
`__bool__`, else its `__len__`, on POP_JUMP_IF / UNARY_NOT; `box += v` its `__iadd__`, else its
`__add__`, and `k + box` its `__radd__`, on BINARY_OP; `[*box]`, `(*box,)` its `__iter__` on
LIST_EXTEND: instructions Dynamo cannot resume after. A break in the dunder makes it go back to the
start of the statement ("step_unsupported" there, beside the break inside) and run the rest of the
function eagerly (analysis/operator_dunders.py). Near misses stay quiet: a `__bool__` that traces
(its `__len__` breaking is then never run), a class with neither (always true), an nn.Module
(no `__bool__`), `len(box)`, `f(*box)`, `list(box)` (calls: resumed after), and `assert box`,
which Dynamo does not run `__bool__` for (GB0055 at the `assert`, not GM658's)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch")

from sample_modules import dynamo_breaks, graphmend_findings, line_of

HEAD = '''import torch
from torch import nn


class Box:
    def __init__(self):
        self.v = torch.ones(3)

    def __bool__(self):
        print("bool")
        return True

    def __iadd__(self, other):
        print("iadd")
        return self


class Sized:
    def __len__(self):
        print("len")
        return 2


class Adder:
    def __add__(self, other):
        print("add")
        return self


class QuietBool:
    def __bool__(self):
        return False

    def __len__(self):
        print("len")
        return 0


class Rev:
    def __init__(self):
        self.v = torch.ones(3)

    def __radd__(self, other):
        print("radd")
        return self.v

    def __iter__(self):
        print("iter")
        return iter([self.v, self.v])


class QuietRev:
    def __init__(self):
        self.v = torch.ones(3)

    def __radd__(self, other):
        return self.v

    def __iter__(self):
        return iter([self.v, self.v])


class Plain:
    def __init__(self):
        self.v = torch.ones(3)


class Sub(nn.Module):
    def forward(self, x):
        return x


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.box = Box()
        self.sized = Sized()
        self.adder = Adder()
        self.quiet = QuietBool()
        self.plain = Plain()
        self.sub = Sub()
        self.rev = Rev()
        self.quiet_rev = QuietRev()

    def forward(self, x):
'''

OPS = "        x = x * 2\n        x = x + 1\n"

# The statement Dynamo goes back to: its first line.
BREAKING = {
    "if_bool": (OPS + "        if self.box:\n            x = x - 1\n        print('later')\n        return x\n", "if self.box:"),
    "if_len": (OPS + "        if self.sized:\n            x = x - 1\n        print('later')\n        return x\n", "if self.sized:"),
    "not": (OPS + "        y = not self.box\n        print('later')\n        return x\n", "y = not self.box"),
    "while": (OPS + "        while self.box:\n            x = x - 1\n            break\n        print('later')\n        return x\n",
              "while self.box:"),
    "ternary": (OPS + "        y = x if self.sized else x + 1\n        print('later')\n        return y\n", "y = x if self.sized"),
    "or_value": (OPS + "        y = self.box or x\n        print('later')\n        return x\n", "y = self.box or x"),
    "and_test": (OPS + "        if self.box and x.dim() > 0:\n            x = x - 1\n        print('later')\n        return x\n",
                 "if self.box and x.dim() > 0:"),
    "local_len": ("        s = Sized()\n" + OPS + "        if s:\n            x = x - 1\n        print('later')\n        return x\n",
                  "if s:"),
    "iadd_local": ("        box = Box()\n" + OPS + "        box += 1\n        print('later')\n        return x\n", "box += 1"),
    "iadd_attr": (OPS + "        self.box += x.dim()\n        print('later')\n        return x\n", "self.box += x.dim()"),
    "iadd_falls_back_to_add": ("        a = Adder()\n" + OPS + "        a += 1\n        print('later')\n        return x\n", "a += 1"),
    "iadd_attr_add": (OPS + "        self.adder += x.dim()\n        print('later')\n        return x\n", "self.adder += x.dim()"),
    "reflected": (OPS + "        k = x.dim()\n        y = k + self.rev\n        print('later')\n        return x + y\n",
                  "y = k + self.rev"),
    "reflected_local": ("        r = Rev()\n" + OPS + "        y = 2 + r\n        print('later')\n        return x + y\n",
                        "y = 2 + r"),
    "starred_list": (OPS + "        ys = [*self.rev]\n        print('later')\n        return x + ys[0]\n", "ys = [*self.rev]"),
    "starred_tuple_argument": (OPS + "        y = torch.stack((*self.rev,))\n        print('later')\n        return x + y\n",
                               "y = torch.stack((*self.rev,))"),
}

NEAR_MISSES = {
    "quiet_reflected_and_starred": (OPS + "        k = x.dim()\n        y = k + self.quiet_rev\n        ys = [*self.quiet_rev]\n"
                                    "        print('later')\n        return x + y + ys[0]\n"),
    "starred_call_argument": OPS + "        y = torch.add(*self.rev)\n        print('later')\n        return x + y\n",
    "list_call": OPS + "        ys = list(self.rev)\n        print('later')\n        return x + ys[0]\n",
    "quiet_bool_over_breaking_len": OPS + "        if self.quiet:\n            x = x - 1\n        print('later')\n        return x\n",
    "no_truth_dunder": OPS + "        if self.plain:\n            x = x - 1\n        print('later')\n        return x\n",
    "module": OPS + "        if self.sub:\n            x = x - 1\n        print('later')\n        return x\n",
    "length": OPS + "        y = x * len(self.sized)\n        print('later')\n        return y\n",
    "one_operation": "        x = x * 2\n        if self.box:\n            x = x - 1\n        print('later')\n        return x\n",
    "in_a_loop": OPS + "        for _ in range(2):\n            if self.box:\n                x = x - 1\n        print('later')\n        return x\n",
}


def _lines(source: str, tmp_path: Path) -> tuple[set[int], set[int], set[int]]:
    """Dynamo's break lines, graphmend's GM658 lines, and graphmend's lines of any code."""
    found = graphmend_findings(source, tmp_path)
    return ({line for line, _ in dynamo_breaks(source, tmp_path)},
            {line for line, code, _ in found if code == "GM658"}, {line for line, _, _ in found})


@pytest.mark.parametrize("case", sorted(BREAKING))
def test_dynamo_goes_back_to_the_statement_running_the_implicit_dunder(case: str, tmp_path: Path) -> None:
    body, statement = BREAKING[case]
    source = HEAD + body
    breaks, gm658, found = _lines(source, tmp_path)
    at = line_of(source, statement)
    assert at in breaks and gm658 == {at}
    assert found == breaks  # the dunder's print, the statement, and no `print('later')`: the rest runs eagerly
    assert line_of(source, "print('later')") not in breaks


@pytest.mark.parametrize("case", sorted(NEAR_MISSES))
def test_no_step_unsupported_where_the_truth_dunder_traces_or_dynamo_resumes(case: str, tmp_path: Path) -> None:
    source = HEAD + NEAR_MISSES[case]
    breaks, gm658, found = _lines(source, tmp_path)
    forward = line_of(source, "def forward")
    uses = {i for i, line in enumerate(source.splitlines(), 1) if i > forward and "self." in line and "print" not in line}
    assert not uses & breaks and not gm658
    # (Dynamo goes back to the loop's line in a loop: not GM658's; a call's `__iter__` inside is not followed)
    if case not in ("in_a_loop", "starred_call_argument", "list_call"):
        assert found == breaks


def test_assert_on_an_object_is_not_a_truth_dunder(tmp_path: Path) -> None:
    """`assert box`: Dynamo does not run `__bool__` (the print inside never breaks) and breaks at the
    `assert` with GB0055; graphmend reports no GM658 there nor the dunder's print."""
    source = HEAD + OPS + "        assert self.box\n        return x\n"
    breaks = dynamo_breaks(source, tmp_path)
    found = graphmend_findings(source, tmp_path)
    at = line_of(source, "assert self.box")
    assert (at, "GB0055") in breaks and line_of(source, 'print("bool")') not in {line for line, _ in breaks}
    assert not {line for line, code, _ in found if code == "GM658"}
    assert line_of(source, 'print("bool")') not in {line for line, _, _ in found}
