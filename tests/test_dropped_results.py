"""A closure a factory returns, where the traced caller drops the result but the factory keeps the
closure too (stored on self, appended to a registry, put in a dict) or the caller reads its locals
by `locals()`: Dynamo traces the closure when it is called there (measured on torch 2.13), so the
dropped-result rule (analysis/dropped_results.py) must not hide it; a closure only returned and
dropped is still not reached (the near miss)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch")

from sample_modules import agreed_break_lines, line_of

HEAD = "import torch\nfrom torch import nn\n"
BREAK = "return x * torch.ones(1).tolist()[0]"

KEPT_ON_SELF = HEAD + f"""
class Model(nn.Module):
    def make(self):
        def inner(x):
            {BREAK}
        self.fn = inner
        return inner

    def forward(self, x):
        self.make()
        return self.fn(x)
"""

KEPT_IN_REGISTRY = HEAD + f"""
REGISTRY = []
HOOKS = {{}}


def make():
    def inner(x):
        {BREAK}
    REGISTRY.append(inner)
    return inner


def make_keyed(key):
    def keyed(x):
        {BREAK} + 1
    HOOKS[key] = keyed
    return keyed


class Model(nn.Module):
    def forward(self, x):
        make()
        unused = make_keyed("a")
        return REGISTRY[-1](x) + HOOKS["a"](x)
"""

READ_BY_LOCALS = HEAD + f"""
def make():
    def inner(x):
        {BREAK}
    return inner


class Model(nn.Module):
    def forward(self, x):
        f = make()
        return locals()["f"](x)
"""

ONLY_RETURNED = HEAD + f"""
def make():
    def inner(x):
        {BREAK}
    return inner


class Model(nn.Module):
    def forward(self, x):
        make()
        return x + 1
"""


@pytest.mark.parametrize("source", [KEPT_ON_SELF, KEPT_IN_REGISTRY, READ_BY_LOCALS])
def test_closure_kept_by_its_factory_or_read_by_locals_is_reached(source: str, tmp_path: Path) -> None:
    breaks = agreed_break_lines(source, tmp_path)
    assert line_of(source, BREAK) in breaks


def test_closure_only_returned_and_dropped_is_not_reached(tmp_path: Path) -> None:
    assert agreed_break_lines(ONLY_RETURNED, tmp_path) == set()


def test_a_caller_of_many_factory_calls_is_walked_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # review 26: lead walked the caller once per call site, quadratic in its size (a forward of
    # 3000 factory calls took over a minute to check, main 1 s); each function is now walked a
    # fixed number of times, whatever the number of sites asked about
    import ast

    from graphmend_bot.analysis.dropped_results import DroppedResults

    source = "def forward(x):\n" + "".join(f"    f{i} = make({i})\n" for i in range(200)) + "    return f0(x)\n"
    walked: list[ast.AST] = []
    walk = ast.walk

    def counting_walk(node: ast.AST):  # type: ignore[no-untyped-def]
        if isinstance(node, ast.FunctionDef):
            walked.append(node)
        return walk(node)

    monkeypatch.setattr(ast, "walk", counting_walk)
    dropped = DroppedResults(lambda path: source)
    answers = [dropped("m.py", "forward", row, "name:make") for row in range(2, 202)]
    assert answers == [False] + [True] * 199  # f0 is read, the others never are
    assert len(walked) <= 2
