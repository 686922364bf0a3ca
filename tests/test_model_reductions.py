"""Which functions reduce a model's layers to a result (analysis/model_reductions.py)."""

import ast
import textwrap

import pytest

from graphmend_bot.analysis.model_reductions import reduces_over_model


@pytest.mark.parametrize("source, reduces", [
    ("def kl(m):\n    t = 0\n    for l in m.modules():\n        t += l.kl()\n    return t\n", True),
    ("def kl(model):\n    t = 0\n    for name, l in model.named_modules():\n        t = t + l.kl()\n    return t\n", True),
    ("def l2(model):\n    return sum(p.pow(2).sum() for p in model.parameters())\n", True),
    ("def l2(self, model):\n    return sum([p.norm() for p in model.parameters()])\n", True),
    # near misses: nothing returned, a return that is no accumulation, a walk of no parameter,
    # a typed parameter (its annotation decides), a nested function's return
    ("def freeze(model):\n    for p in model.parameters():\n        p.requires_grad_(False)\n", False),
    ("def count(model):\n    n = 0\n    for p in model.parameters():\n        pass\n    return len(list(model.children()))\n", False),
    ("def kl(m):\n    t = 0\n    for l in MODEL.modules():\n        t += l.kl()\n    return t\n", False),
    ("def kl(m: str):\n    t = 0\n    for l in m.modules():\n        t += l.kl()\n    return t\n", False),
    ("def f(m):\n    def g():\n        t = 0\n        for l in m.modules():\n            t += 1\n        return t\n    return None\n", False),
])
def test_a_function_returning_what_it_accumulates_over_a_models_layers(source, reduces):
    node = ast.parse(textwrap.dedent(source)).body[0]
    assert reduces_over_model(node, source) is reduces
