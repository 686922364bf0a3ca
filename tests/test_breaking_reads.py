"""GM657 against TorchDynamo (torch 2.13): a property read whose getter breaks happens on an attribute
load, which Dynamo cannot resume after; it goes back to the start of the statement, records
"step_unsupported" there beside the break in the getter, and runs the rest of the function eagerly
(analysis/breaking_reads.py). Each case rebuilds the construct in a small module and asserts the
lines Dynamo breaks at are those graphmend reports; the near misses break nowhere at the read."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

from sample_modules import dynamo_breaks, graphmend_findings, line_of

HEAD = '''import torch
from torch import nn


class Held(nn.Module):
    @property
    def A(self):
        print("in A")
        return torch.ones(3)

    @property
    def B(self):
        return torch.ones(3)

    @property
    def quiet(self):
        return torch.ones(3) * 2


class Box:
    def __init__(self, x):
        self.x = x

    @property
    def A(self):
        print("in A")
        return self.x


def helper(m, x):
    return x + m.A


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = Held()

    def forward(self, x):
'''

# The statement Dynamo goes back to is the one holding the read: its first line.
BREAKING = {
    "tuple": ("        x = x * 2\n        x = x + 1\n        A, B = self.model.A, self.model.B\n"
              "        print('later')\n        return x + A + B\n", "A, B = self.model.A"),
    "multi_line": ("        x = x * 2\n        x = x + 1\n        y = (x +\n             self.model.A)\n"
                   "        print('later')\n        return y\n", "y = (x +"),
    "call_argument": ("        x = x * 2\n        x = x + 1\n        y = torch.cat([x, torch.sin(self.model.A)])\n"
                      "        print('later')\n        return y\n", "y = torch.cat"),
    "expression": ("        x = x * 2\n        x = x + 1\n        self.model.A\n        print('later')\n        return x\n",
                   "        self.model.A"),
    "returned": ("        x = x * 2\n        x = x + 1\n        return x + self.model.A\n", "return x + self.model.A"),
    # a read in an `if`, `while` or `assert` test: the statement's line, and its arms run eagerly too
    "if_test": ("        x = x * 2\n        x = x + 1\n        if self.model.A is not None:\n            print('later')\n"
                "        print('later')\n        return x\n", "if self.model.A is not None"),
    "while_test": ("        x = x * 2\n        x = x + 1\n        while self.model.A is None:\n            print('later')\n"
                   "        print('later')\n        return x\n", "while self.model.A is None"),
    "assert_test": ("        x = x * 2\n        x = x + 1\n        assert self.model.A is not None\n        print('later')\n"
                    "        return x\n", "assert self.model.A"),
    # a `try`'s `else` runs on the usual path: the rest goes on past the `try`
    "try_else": ("        x = x * 2\n        x = x + 1\n        try:\n            y = x + 1\n        except ValueError:\n"
                 "            y = x\n        else:\n            y = y + self.model.A\n            print('later')\n"
                 "        print('later')\n        return y\n", "y = y + self.model.A"),
    # an object built by the frame: building it is no graph operation, the two before it count
    "object_built_here": ("        x = x * 2\n        x = x + 1\n        box = Box(x)\n        A = box.A\n"
                          "        print('later')\n        return x + A\n", "A = box.A"),
    # two operations since the break before: a point to resume at again
    "after_a_break": ("        x = x * 2\n        print('first')\n        x = x + 1\n        x = x - 1\n"
                      "        A = self.model.A\n        print('later')\n        return x + A\n", "A = self.model.A"),
}

# No step_unsupported at the read: too few operations (Dynamo skips the frame), a getter that does
# not break, a read in a helper (Dynamo resumes at the helper's call), inside a `with` (the `with`
# line: GM660's) or a loop (the `for` line).
NEAR_MISSES = {
    "one_operation": "        x = x * 2\n        A = self.model.A\n        return x + A\n",
    "one_since_a_break": ("        x = x * 2\n        print('first')\n        x = x + 1\n        A = self.model.A\n"
                          "        return x + A\n"),
    "quiet_getter": "        x = x * 2\n        x = x + 1\n        A = self.model.quiet\n        print('later')\n        return x + A\n",
    "through_a_helper": "        x = x * 2\n        x = x + 1\n        y = helper(self.model, x)\n        return y\n",
    "under_no_grad": ("        x = x * 2\n        x = x + 1\n        with torch.no_grad():\n            x = x + self.model.A\n"
                      "        return x\n"),
    # a list comprehension is a frame of its own (3.11): Dynamo resumes after its CALL, and the print
    # after it breaks on its own (review27; a generator's read breaks at the statement, GB0091)
    "in_a_comprehension": ("        x = x * 2\n        x = x + 1\n        y = [x * self.model.A for _ in range(1)][0]\n"
                           "        print('later')\n        return y\n"),
}


def _lines(source: str, tmp_path: Path) -> tuple[set[int], set[int], set[int]]:
    """Dynamo's break lines, graphmend's GM657 lines, and graphmend's lines of any code."""
    found = graphmend_findings(source, tmp_path)
    return ({line for line, _ in dynamo_breaks(source, tmp_path)},
            {line for line, code, _ in found if code == "GM657"}, {line for line, _, _ in found})


@pytest.mark.parametrize("case", sorted(BREAKING))
def test_dynamo_breaks_at_the_statement_holding_the_read_and_graphmend_reports_it(case: str, tmp_path: Path) -> None:
    body, statement = BREAKING[case]
    source = HEAD + body
    breaks, gm657, found = _lines(source, tmp_path)
    at = line_of(source, statement)
    assert at in breaks and gm657 == {at}
    assert found == breaks  # the getter's print, the statement, and no `print('later')`: the rest runs eagerly
    if "later" in source:
        assert line_of(source, "print('later')") not in breaks


@pytest.mark.parametrize("case", sorted(NEAR_MISSES))
def test_no_step_unsupported_at_the_read_where_dynamo_resumes_otherwise(case: str, tmp_path: Path) -> None:
    source = HEAD + NEAR_MISSES[case]
    breaks, gm657, _ = _lines(source, tmp_path)
    read = next(i for i, line in enumerate(source.splitlines(), 1) if "self.model" in line and "def" not in line
                and i > line_of(source, "def forward"))
    assert read not in breaks and not gm657
    if "later" in source:  # and nothing after it is dropped as eager
        assert line_of(source, "print('later')") in breaks & {line for line, _, _ in graphmend_findings(source, tmp_path)}


def test_a_read_in_an_if_arm_goes_back_to_its_own_statement(tmp_path: Path) -> None:
    """In an `if` arm the statement is a point to resume at too; what follows the block is left
    reported (the calls that skip the arm trace it), a finding Dynamo does not confirm here."""
    source = HEAD + ("        x = x * 2\n        x = x + 1\n        if x.shape[0] > 1:\n            x = x + self.model.A\n"
                     "        return x\n")
    breaks, gm657, _ = _lines(source, tmp_path)
    assert gm657 == {line_of(source, "x = x + self.model.A")} and gm657 <= breaks


def test_no_step_unsupported_when_the_override_run_does_not_break(tmp_path: Path) -> None:
    """`self.scale` in Base.forward reads Model's override, which does not break: Dynamo traces on
    (the print after breaks on its own); a base getter that breaks says nothing of the one run."""
    source = """import torch
from torch import nn


class Base(nn.Module):
    @property
    def scale(self):
        print("base")
        return torch.ones(3)

    def forward(self, x):
        x = x * 2
        x = x + 1
        s = self.scale
        print('later')
        return x * s


class Model(Base):
    @property
    def scale(self):
        return torch.ones(3) * 3
"""
    breaks, gm657, found = _lines(source, tmp_path)
    later = line_of(source, "print('later')")
    assert line_of(source, "s = self.scale") not in breaks and not gm657
    assert later in breaks and later in found


def test_a_read_in_an_elif_test_goes_back_to_the_elif_line(tmp_path: Path) -> None:
    """The `elif` is a statement of the `if`'s `else` arm: Dynamo goes back to its line; what follows
    the `if` is left reported (the calls taking the first arm trace it), as after a read in an arm."""
    source = HEAD + ("        x = x * 2\n        x = x + 1\n        if x.shape[0] > 5:\n            x = x + 2\n"
                     "        elif self.model.A is not None:\n            x = x + 3\n        return x\n")
    breaks, gm657, _ = _lines(source, tmp_path)
    assert gm657 == {line_of(source, "elif self.model.A")} and gm657 <= breaks


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="3.12's cached_property takes no lock")
def test_a_cached_property_read_is_gm612s_alone(tmp_path: Path) -> None:
    """Before 3.12 a `functools.cached_property` read enters the getter's lock first: Dynamo breaks on
    that `with` (GB0142, GM612's finding), not with step_unsupported: one finding at the read."""
    source = HEAD.replace("import torch\n", "import functools\n\nimport torch\n", 1).replace(
        "    @property\n    def quiet(self):",
        "    @functools.cached_property\n    def cached(self):\n        print('in cached')\n        return torch.ones(3)\n\n"
        "    @property\n    def quiet(self):",
    ) + "        x = x * 2\n        x = x + 1\n        y = x + self.model.cached\n        print('later')\n        return y\n"
    found = graphmend_findings(source, tmp_path)
    read = line_of(source, "y = x + self.model.cached")
    dynamo_ids = {gb for line, gb in dynamo_breaks(source, tmp_path) if line == read}
    assert sorted((code, gb) for line, code, gb in found if line == read) == [("GM612", "GB0142")]
    assert dynamo_ids == {"GB0142"}


# Too few operations since the frame began or since its last break: no point to go back to, so no
# step_unsupported, but Dynamo skips the frame (the resumed one after a break) and runs the rest eagerly.
TOO_FEW = {
    "one_operation": "        x = x * 2\n        A = self.model.A\n        print('later')\n        return x + A\n",
    "one_since_a_break": ("        x = x * 2\n        x = x + 1\n        print('first')\n        x = x + 1\n"
                          "        A = self.model.A\n        print('later')\n        return x + A\n"),
    "none_since_a_break": ("        x = x * 2\n        x = x + 1\n        print('first')\n        A = self.model.A\n"
                           "        print('later')\n        return x + A\n"),
    "in_an_if_test": "        x = x * 2\n        if self.model.A is not None:\n            print('later')\n        return x\n",
}


@pytest.mark.parametrize("case", sorted(TOO_FEW))
def test_too_few_operations_leave_the_rest_eager_without_step_unsupported(case: str, tmp_path: Path) -> None:
    source = HEAD + TOO_FEW[case]
    breaks, gm657, found = _lines(source, tmp_path)
    assert not gm657
    assert line_of(source, "print('later')") not in breaks | found
    assert found == breaks  # the getter's print, and `print('first')` where there is one


def test_too_few_operations_in_an_arm_leave_the_rest_of_the_arm_eager(tmp_path: Path) -> None:
    """The rest ends with the arm holding the read: the calls that skip the arm trace what follows
    (kept reported, though this sample's call takes the arm and Dynamo confirms nothing after it)."""
    source = HEAD + ("        x = x * 2\n        if x.shape[0] > 1:\n            A = self.model.A\n            print('later')\n"
                     "        print('after')\n        return x\n")
    breaks, gm657, found = _lines(source, tmp_path)
    assert not gm657 and line_of(source, "print('later')") not in breaks | found
    assert line_of(source, "print('after')") in found


# The other arm always returns or raises: the arm holding the read is the only way on past the `if`,
# so the eager rest goes on past it too; Dynamo reports nothing after the `if` (review28).
SIBLING_LEAVES = {
    "elif_test": ("        x = x * 2\n        x = x + 1\n        if x.shape[0] > 5:\n            return x\n"
                  "        elif self.model.A is not None:\n            print('later')\n        print('after')\n        return x\n",
                  "elif self.model.A"),
    "else_arm": ("        x = x * 2\n        x = x + 1\n        if x.shape[0] > 5:\n            raise ValueError('big')\n"
                 "        else:\n            A = self.model.A\n            print('later')\n        print('after')\n        return x\n",
                 "A = self.model.A"),
    "body_arm": ("        x = x * 2\n        x = x + 1\n        if x.shape[0] < 5:\n            A = self.model.A\n"
                 "            print('later')\n        else:\n            return x\n        print('after')\n        return x\n",
                 "A = self.model.A"),
}


@pytest.mark.parametrize("case", sorted(SIBLING_LEAVES))
def test_the_rest_goes_past_the_if_when_the_other_arm_leaves(case: str, tmp_path: Path) -> None:
    body, statement = SIBLING_LEAVES[case]
    source = HEAD + body
    breaks, gm657, found = _lines(source, tmp_path)
    assert gm657 == {line_of(source, statement)}
    assert line_of(source, "print('after')") not in breaks | found
    assert found == breaks


UNWRAP_HEAD = '''import torch


class Holder:
    def __init__(self, t):
        self.t = t

    @property
    def tensor(self):
        return self.t.as_subclass(torch.Tensor)


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.h = Holder(torch.ones(3))

    def forward(self, x):
'''


@pytest.mark.parametrize(("body", "quiet"), [
    # pina's LabelTensor.extract: too few operations to go back to, Dynamo skips the frame at the
    # read, so the call on what it read never traces (only the getter's line breaks)
    ("        z = x + 1\n        t = self.h.tensor.as_subclass(torch.Tensor)\n        return t + z\n", True),
    ("        if self.h.tensor.as_subclass(torch.Tensor).sum() > 0:\n            x = x + 1\n        return x\n", True),
    # near miss: two operations before it, Dynamo goes back to the statement (step_unsupported there)
    ("        y = x * 2\n        z = y + 1\n        t = self.h.tensor.as_subclass(torch.Tensor)\n        return t + z\n",
     False),
])
def test_what_a_skipped_reads_statement_evaluates_after_it_is_eager(tmp_path: Path, body: str, quiet: bool) -> None:
    source = UNWRAP_HEAD + body
    getter = line_of(source, "return self.t.as_subclass")
    statement = line_of(source, "self.h.tensor")
    breaks = {line for line, _ in dynamo_breaks(source, tmp_path)}
    found = {line for line, _, _ in graphmend_findings(source, tmp_path)}
    assert breaks == ({getter} if quiet else {getter, statement})
    assert found == breaks


def test_a_break_evaluated_before_the_read_still_stands(tmp_path: Path) -> None:
    # near miss: `z.sum().item()` runs before the read in the same statement and breaks there
    body = "        z = x + 1\n        t = torch.full((3,), z.sum().item()) + self.h.tensor\n        return t\n"
    source = UNWRAP_HEAD + body
    statement = line_of(source, "self.h.tensor")
    breaks = {line for line, _ in dynamo_breaks(source, tmp_path)}
    found = {line for line, _, _ in graphmend_findings(source, tmp_path)}
    assert statement in breaks
    assert found == breaks
