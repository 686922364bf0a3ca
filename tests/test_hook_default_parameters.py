"""GM645 on a tensor hook whose parameter defaults to a value from outside the hook (vocabulary/
hook_mutations.py), measured with Dynamo on torch 2.13: `def keep(g, store=store)`, `cache={}` made
when the enclosing frame ran the `def`, `*, seen=SEEN`, a lambda's `s=store`: filling it breaks with
GB0067 at the mutation, as filling `store` itself does. A constant default rebound in the body
(`n = n + 1`) changes nothing outside and traces (review28)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch")

from sample_modules import dynamo_breaks, graphmend_findings, line_of

SOURCE = '''import torch
from torch import nn

SEEN = []


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(3))

    def forward(self, x):
        with torch.enable_grad():
            store = {{"a": 1}}
            y = x * self.weight
{hook}
        return y.detach()
'''

BREAKING = {
    "outer_name": ("            def keep(g, store=store):\n                store['b'] = g\n            y.register_hook(keep)\n",
                   "store['b'] = g"),
    "display_made_by_the_def": ("            def keep(g, cache={}):\n                cache['b'] = g\n"
                                "            y.register_hook(keep)\n", "cache['b'] = g"),
    "keyword_only_global": ("            def keep(g, *, seen=SEEN):\n                seen.append(g)\n"
                            "            y.register_hook(keep)\n", "seen.append(g)"),
    "lambda": ("            y.register_hook(lambda g, s=store: s.update(b=g))\n", "y.register_hook(lambda"),
}

TRACING = {
    "constant_default_rebound": ("            def keep(g, n=2):\n                n = n + 1\n                return g * n\n"
                                 "            y.register_hook(keep)\n"),
}


@pytest.mark.parametrize("case", sorted(BREAKING))
def test_filling_a_defaulted_outer_value_breaks_and_is_reported(case: str, tmp_path: Path) -> None:
    hook, at = BREAKING[case]
    source = SOURCE.format(hook=hook)
    line = line_of(source, at)
    assert dynamo_breaks(source, tmp_path) == {(line, "GB0067")}
    assert graphmend_findings(source, tmp_path) == {(line, "GM645", "GB0067")}


@pytest.mark.parametrize("case", sorted(TRACING))
def test_a_constant_default_traces_and_is_not_reported(case: str, tmp_path: Path) -> None:
    source = SOURCE.format(hook=TRACING[case])
    assert dynamo_breaks(source, tmp_path) == set()
    assert graphmend_findings(source, tmp_path) == set()
