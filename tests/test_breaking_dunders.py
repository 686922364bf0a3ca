"""GM658 against TorchDynamo (torch 2.13): an operator, `in`, unpacking or `for` on an object of a
class of the tree runs the class's dunder on BINARY_OP, UNARY_NEGATIVE/POSITIVE, CONTAINS_OP,
UNPACK_SEQUENCE or GET_ITER, instructions Dynamo cannot resume after; a break in the dunder makes it
go back to the start of the statement, record "step_unsupported" there beside the break inside, and
run the rest of the function eagerly (analysis/operator_dunders.py, breaking_reads.py). Each case
rebuilds the construct in a small module and asserts the lines Dynamo breaks at are those graphmend
reports; the near misses (a dunder that does not break, a subscript, `len()` or call, which Dynamo
resumes after, one operation before, a `try` or loop around) have no step_unsupported at the statement."""

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

    def __add__(self, other):
        print("add")
        return self.v + other

    def __mul__(self, other):
        print("mul")
        return self.v * other

    def __neg__(self):
        print("neg")
        return -self.v

    def __pos__(self):
        print("pos")
        return self.v

    def __contains__(self, item):
        print("contains")
        return True

    def __iter__(self):
        print("iter")
        return iter([self.v, self.v])

    def __getitem__(self, index):
        print("getitem")
        return self.v

    def __len__(self):
        print("len")
        return 2

    def __call__(self, x):
        print("call")
        return x


class Quiet:
    def __init__(self):
        self.v = torch.ones(3)

    def __add__(self, other):
        return self.v + other

    def __neg__(self):
        return -self.v

    def __iter__(self):
        return iter([self.v, self.v])


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.box = Box()
        self.quiet = Quiet()

    def forward(self, x):
'''

# The statement Dynamo goes back to: its first line.
BREAKING = {
    "add": ("        k = len(x.shape)\n        x = x * 2\n        x = x + 1\n        y = self.box + k\n        print('later')\n"
            "        return x + y\n", "y = self.box + k"),
    "mul_chain": ("        x = x * 2\n        x = x + 1\n        y = x + (self.box * x.dim())\n        print('later')\n"
                  "        return y\n", "y = x + (self.box * x.dim())"),
    "local_add_number": ("        box = Box()\n        x = x * 2\n        x = x + 1\n        y = box + 1\n        print('later')\n"
                         "        return x + y\n", "y = box + 1"),
    "neg": ("        x = x * 2\n        x = x + 1\n        y = -self.box\n        print('later')\n        return x + y\n",
            "y = -self.box"),
    "pos": ("        x = x * 2\n        x = x + 1\n        y = +self.box\n        print('later')\n        return x + y\n",
            "y = +self.box"),
    "contains": ("        x = x * 2\n        x = x + 1\n        y = x if 1 in self.box else x\n        print('later')\n"
                 "        return y\n", "y = x if 1 in self.box"),
    "unpack": ("        x = x * 2\n        x = x + 1\n        a, b = self.box\n        print('later')\n        return x + a + b\n",
               "a, b = self.box"),
    "for": ("        x = x * 2\n        x = x + 1\n        for v in self.box:\n            x = x + v\n        print('later')\n"
            "        return x\n", "for v in self.box"),
    "returned": ("        x = x * 2\n        x = x + 1\n        return x + (-self.box)\n", "return x + (-self.box)"),
    "multi_line": ("        x = x * 2\n        x = x + 1\n        y = torch.cat([\n            x,\n            -self.box,\n"
                   "        ])\n        print('later')\n        return y\n", "y = torch.cat(["),
    "if_test": ("        x = x * 2\n        x = x + 1\n        if 2 in self.box:\n            print('later')\n"
                "        print('later')\n        return x\n", "if 2 in self.box"),
    # a comprehension's first iterable is iterated in the enclosing frame (GET_ITER), before its own frame runs
    "comprehension": ("        x = x * 2\n        x = x + 1\n        ys = [v * 2 for v in self.box]\n        print('later')\n"
                      "        return x + ys[0]\n", "ys = [v * 2 for v in self.box]"),
    "local": ("        box = Box()\n        x = x * 2\n        x = x + 1\n        y = -box\n        print('later')\n"
              "        return x + y\n", "y = -box"),
}

# No step_unsupported at the statement: a dunder that does not break, a subscript, `len()` or call
# (resumed after: only the dunder's print and the later one break), one operation before (Dynamo
# skips the frame), inside a `try` (its line, GM661's) or a loop body (the loop's line).
NEAR_MISSES = {
    "quiet_dunders": ("        x = x * 2\n        x = x + 1\n        a, b = self.quiet\n        y = -self.quiet + (self.quiet + 1)\n"
                      "        for v in self.quiet:\n            x = x + v\n        print('later')\n        return x + a + b + y\n"),
    "subscript": "        x = x * 2\n        x = x + 1\n        y = self.box[0]\n        print('later')\n        return x + y\n",
    "length": "        x = x * 2\n        x = x + 1\n        y = x * len(self.box)\n        print('later')\n        return y\n",
    "called": "        x = x * 2\n        x = x + 1\n        y = self.box(x)\n        print('later')\n        return y\n",
    "one_operation": "        x = x * 2\n        y = -self.box\n        return x + y\n",
    "in_a_try": ("        x = x * 2\n        x = x + 1\n        try:\n            y = -self.box\n        except ValueError:\n"
                 "            y = x\n        return x + y\n"),
    "in_a_loop": ("        x = x * 2\n        x = x + 1\n        for _ in range(2):\n            y = -self.box\n"
                  "            x = x + y\n        return x\n"),
}


def _lines(source: str, tmp_path: Path) -> tuple[set[int], set[int], set[int]]:
    """Dynamo's break lines, graphmend's GM658 lines, and graphmend's lines of any code."""
    found = graphmend_findings(source, tmp_path)
    return ({line for line, _ in dynamo_breaks(source, tmp_path)},
            {line for line, code, _ in found if code == "GM658"}, {line for line, _, _ in found})


@pytest.mark.parametrize("case", sorted(BREAKING))
def test_dynamo_goes_back_to_the_statement_running_the_dunder_and_graphmend_reports_it(case: str, tmp_path: Path) -> None:
    body, statement = BREAKING[case]
    source = HEAD + body
    breaks, gm658, found = _lines(source, tmp_path)
    at = line_of(source, statement)
    assert at in breaks and gm658 == {at}
    assert found == breaks  # the dunder's print, the statement, and no `print('later')`: the rest runs eagerly
    if "later" in body:
        assert line_of(source, "print('later')") not in breaks


@pytest.mark.parametrize("case", sorted(NEAR_MISSES))
def test_no_step_unsupported_at_the_statement_where_dynamo_resumes_otherwise(case: str, tmp_path: Path) -> None:
    source = HEAD + NEAR_MISSES[case]
    breaks, gm658, found = _lines(source, tmp_path)
    forward = line_of(source, "def forward")
    uses = {i for i, line in enumerate(source.splitlines(), 1) if i > forward and ("self.box" in line or "self.quiet" in line)
            and "print" not in line}
    assert not uses & breaks and not gm658
    if "later" in NEAR_MISSES[case]:  # and nothing after it is dropped as eager
        assert line_of(source, "print('later')") in breaks & found


@pytest.mark.parametrize("iterating", ["ys = [v * 2 for v in self.parts]", "for v in self.parts:\n            ys = [v]"])
def test_a_property_read_in_an_iterable_goes_back_to_the_statement(iterating: str, tmp_path: Path) -> None:
    """A comprehension's first iterable is evaluated in the enclosing frame, and a `for`'s before its
    loop, so a breaking getter read there goes back to the statement (GM657), as a breaking `__iter__`
    does (GM658); one in a comprehension's element is its own frame (3.11), resumed after its call."""
    source = """import torch
from torch import nn


class Model(nn.Module):
    @property
    def parts(self):
        print("parts")
        return [torch.ones(3), torch.ones(3)]

    def forward(self, x):
        x = x * 2
        x = x + 1
        ITERATING
        print('later')
        return x + ys[0]
""".replace("ITERATING", iterating)
    found = graphmend_findings(source, tmp_path)
    statement = line_of(source, iterating.splitlines()[0])
    assert {line for line, _ in dynamo_breaks(source, tmp_path)} == {line for line, _, _ in found}
    assert (statement, "GM657") in {(line, code) for line, code, _ in found}
