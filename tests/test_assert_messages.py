"""GM202 on asserts Dynamo lowers itself (precD, issue 27): a message CPython folds into one string
constant (`"a" + "b"`, `"-" * 10`, an f-string without placeholders) traces like a literal, and a
jump before the assert's own breaks only when its operand is a tensor (`flag or t` with a caller's
`flag=False` traces). Each sample is measured with Dynamo (torch 2.13) and graphmend must agree line
for line; the near misses (`"%d" % 3`, a module constant, an f-string inside `+`, a tensor flag)
break and stay reported."""

from __future__ import annotations

from pathlib import Path

from sample_modules import agreed_break_lines, line_of

HEADER = """\
import torch
from torch import nn

MSG = "bad"


def check(x, flag=False):
    assert flag or (x > 0).all(), "bad"
    return x


class Model(nn.Module):
    def forward(self, x):
"""


def _agree(body: str, tmp_path: Path) -> set[int]:
    return agreed_break_lines(HEADER + body + "        return x * 2\n", tmp_path)


def test_messages_folded_to_one_constant_trace(tmp_path: Path) -> None:
    body = (
        '        assert (x > 0).all(), "bad" + " input"\n'
        '        assert (x > 0).all(), "-" * 10\n'
        '        assert (x > 0).all(), f"bad input"\n'
        '        assert (x > 0).all(), ("bad " "input") + "!"\n'
    )
    assert _agree(body, tmp_path) == set()


def test_messages_not_folded_still_break(tmp_path: Path) -> None:
    for message in ('"bad %d" % 3', "MSG", '"bad" + f"!"', 'f"bad {x.shape}"'):
        body = f"        assert (x > 0).all(), {message}\n"
        assert _agree(body, tmp_path) == {line_of(HEADER + body, "assert (x")}, message


def test_a_python_flag_before_the_tensor_traces(tmp_path: Path) -> None:
    assert _agree("        x = check(x)\n        x = check(x, False)\n", tmp_path) == set()


def test_a_tensor_flag_before_the_tensor_breaks(tmp_path: Path) -> None:
    found = _agree("        x = check(x, (x < 0).any())\n", tmp_path)
    assert found == {line_of(HEADER, "assert flag or")}


def test_a_repeated_message_folds_either_way_round(tmp_path: Path) -> None:
    """review30: CPython folds `10 * "-"` as it does `"-" * 10`; a negative count it leaves to run
    (`"-" * -1` breaks)."""
    assert _agree('        assert (x > 0).all(), 10 * "-"\n        assert (x > 0).all(), True * "-"\n', tmp_path) == set()
    body = '        assert (x > 0).all(), "-" * -1\n'
    assert _agree(body, tmp_path) == {line_of(HEADER + body, "assert (x")}
