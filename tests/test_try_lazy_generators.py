"""A generator expression built in a `try` body and never consumed there runs nothing there: its
body (all but its first iterable) runs when something iterates it. So a break in that body neither
breaks the `try` (GM661) nor makes the rest of the frame eager (measured on torch 2.13: Dynamo
breaks at the later `if x.sum() > 0:`). One consumed in place (`sum(...)`, `list(...)`,
`",".join(...)`), bound to a name the body reads again, or returned does run, and the rest after
the `try` stays eager (near misses, measured too)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sample_modules import dynamo_breaks, graphmend_findings

CASES = {
    # the try body's statement, and whether Dynamo breaks at the `if` after the `try`
    "lazy_print": ("g = (print(y) for y in [x])", True),
    "lazy_callee": ("g = (self.helper(y) for y in [x])", True),
    "lazy_filter": ("g = (y for y in [x] if print(y))", True),
    "lazy_in_a_tuple": ("g = (1, (print(y) for y in [x]))", True),
    # near misses: the first iterable runs where the generator is built, and consumed ones run
    "first_iterable_breaks": ("g = (y for y in print(x) or [x])", False),
    "consumed_by_sum": ("s = sum(self.helper(y) for y in [x])", False),
    "consumed_by_list": ("s = list(print(y) for y in [x])", False),
    "consumed_by_a_method": ("s = ','.join(str(print(y)) for y in [1])", False),
    "bound_then_consumed": ("g = (print(y) for y in [x]); s = list(g)", False),
}


def _source(statement: str) -> str:
    return (
        "import torch\n\n\nclass Model(torch.nn.Module):\n"
        "    def helper(self, x):\n        print('hi')\n        return x + 1\n\n"
        "    def forward(self, x):\n        x = x * 2\n        x = x + 1\n"
        f"        try:\n            {statement}\n        except ValueError:\n            pass\n"
        "        if x.sum() > 0:\n            x = x * 2\n        return x - 1\n"
    )


@pytest.mark.parametrize("case", sorted(CASES))
def test_lazy_generator_in_a_try_body(tmp_path: Path, case: str) -> None:
    statement, rest_breaks = CASES[case]
    source = _source(statement)
    lines = source.splitlines()
    after = next(n for n, line in enumerate(lines, 1) if "if x.sum() > 0:" in line)
    try_row = next(n for n, line in enumerate(lines, 1) if line.strip() == "try:")
    truth = {line for line, _ in dynamo_breaks(source, tmp_path)}
    found = {line for line, _, _ in graphmend_findings(source, tmp_path)}
    assert (after in truth) == rest_breaks
    assert (after in found) == rest_breaks
    if rest_breaks:  # the try line: no break while the generator is not consumed
        assert try_row not in truth and try_row not in found
