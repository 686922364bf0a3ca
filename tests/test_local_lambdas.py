"""A local bound to a lambda and called (`f = lambda t: t.sum().item()` then `f(x)`): Dynamo inlines
it and breaks on the lambda's line, or in a function it calls (measured on torch 2.13). The analyzer
evaluates the body at the call (analysis/local_lambdas.py); main never looked into a lambda. Near
misses: a lambda never called, one rebound to a lambda that traces before the call, one given Python
values or computing only tensor arithmetic."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from sample_modules import dynamo_breaks, graphmend_findings

CASES = {
    "item_in_the_body": "f = lambda t: t.sum().item()\n        n = f(x)",
    "branch_on_tensor_values": "f = lambda t: t + 1 if t.sum() > 0 else t\n        x = f(x)",
    "breaking_callee": "f = lambda t: self.helper(t)\n        x = f(x)",
    "rebound_later_in_a_loop": ("f = lambda t: t + 1\n        for i in range(2):\n            x = f(x)\n"
                                "            f = lambda t: t + t.sum().item()"),
    # near misses
    "python_values": "f = lambda n: n + 1\n        m = f(2)\n        x = x * m",
    "never_called": "f = lambda t: t.sum().item()\n        x = x + 1",
    "rebound_before_the_call": "f = lambda t: t.sum().item()\n        f = lambda t: t + 1\n        x = f(x)",
    "tensor_arithmetic": "f = lambda t, k: t * k\n        x = f(x, 2)",
    "rebound_later_outside_a_loop": "f = lambda t: t + 1\n        x = f(x)\n        f = lambda t: t + t.sum().item()",
}
BREAKING = {"item_in_the_body", "branch_on_tensor_values", "breaking_callee", "rebound_later_in_a_loop"}


def _source(body: str) -> str:
    return (
        "import torch\n\n\nclass Model(torch.nn.Module):\n"
        "    def helper(self, t):\n        print('hi')\n        return t\n\n"
        f"    def forward(self, x):\n        x = x * 2\n        x = x + 1\n        {body}\n        return x - 1\n"
    )


@pytest.mark.parametrize("case", sorted(CASES))
def test_called_lambda(case: str, tmp_path: Path) -> None:
    source = _source(CASES[case])
    truth = dynamo_breaks(source, tmp_path)
    found = {(line, gb_id) for line, _, gb_id in graphmend_findings(source, tmp_path)}
    assert found == truth
    assert bool(truth) == (case in BREAKING)


def _doubling_chain(levels: int) -> str:
    """`f1 = lambda t: f0(f0(t))`, ...: each level calls the one below twice."""
    lines = ["f0 = lambda t: t + t.sum().item()"]
    lines += [f"f{i} = lambda t: f{i - 1}(f{i - 1}(t))" for i in range(1, levels)]
    return "\n        ".join([*lines, f"x = f{levels - 1}(x)"])


def test_a_doubling_chain_of_lambdas_is_inlined_within_a_budget(tmp_path: Path) -> None:
    """Inlining every call took 2**levels evaluations (25 levels: minutes); the budget of inlinings
    per outermost call still reaches the bottom first, where Dynamo breaks (measured on 4 levels)."""
    source = _source(_doubling_chain(4))
    truth = dynamo_breaks(source, tmp_path)
    assert truth and {(line, gb_id) for line, _, gb_id in graphmend_findings(source, tmp_path)} == truth
    started = time.perf_counter()
    found = graphmend_findings(_source(_doubling_chain(40)), tmp_path)
    assert time.perf_counter() - started < 20
    assert {line for line, _ in truth} == {line for line, _, _ in found}
