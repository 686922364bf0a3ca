"""A None-defaulted parameter's fallback against TorchDynamo (torch 2.13): after `if maxlen is
None: maxlen = lengths.max()` the parameter is a 0-d tensor only on the calls that leave it None,
and `torch.arange(0, maxlen)` breaks there (GB0033). When every call passes a value that is never
None (`maxlen=x.shape[0]`, `3`, `n + 1`), the fallback never runs and the line traces, and
graphmend is quiet (analysis/none_fallbacks.py). A call that leaves it out, passes None, or passes
a name that may be None, and a fallback in an entry point (its callers are not seen), keep the
finding; so does a fallback tensor stored on the module by an `__init__` nothing traces.

The same holds the other way for a block guarded by `if p is not None:` or `if p:` (`p` with a
falsy default): `generator.manual_seed(0)` under `if generator is not None:` (GM647) and
`print(...)` under `if verbose:` (GM401) break only on a call passing a truthy value; when every
call leaves the default or passes None (a falsy literal for `if p:`) nothing there runs."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch")

from sample_modules import dynamo_breaks, graphmend_findings, line_of

HEAD = '''import torch
from torch import nn


def widths(lengths, maxlen=None):
    if maxlen is None:
        maxlen = lengths.max()
    return torch.arange(0, maxlen, 1)


class Model(nn.Module):
    def mask(self, lengths, maxlen=None):
        if maxlen is None:
            maxlen = lengths.max()
        row = torch.arange(0, maxlen, 1)
        return row < lengths.unsqueeze(-1)

    def forward(self, x, n=None):
'''

# Every call passes a value never None: the fallback never runs, nothing breaks.
QUIET = {
    "keyword_size": "        return self.mask(x, maxlen=x.shape[0])\n",
    "positional_number": "        return self.mask(x, 3)\n",
    "size_call": "        return self.mask(x, maxlen=x.size(0))\n",
    "arithmetic": "        return widths(x, x.shape[0] + 1)\n",
    "two_calls": "        return widths(x, maxlen=len(x)) + widths(x, 3)\n",
}

# Some call leaves it None (or may): Dynamo breaks at the `torch.arange` that call runs.
BREAKING = {
    "left_out": ("        return self.mask(x)\n", "row = torch.arange"),
    "literal_none": ("        return self.mask(x, maxlen=None)\n", "row = torch.arange"),
    "forwarded_name": ("        return self.mask(x, maxlen=n)\n", "row = torch.arange"),
    "one_of_two": ("        return widths(x, maxlen=x.shape[0]) + widths(x)\n", "return torch.arange"),
    "entry_point": ("        if n is None:\n            n = x.max()\n        return torch.arange(0, n, 1)\n",
                    "return torch.arange(0, n, 1)"),
}

# The fallback of an `__init__` nothing traces: `self.w` holds a tensor, its truth breaks.
STORED = '''import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, w=None):
        super().__init__()
        if w is None:
            w = torch.ones(3)
        self.w = w

    def forward(self, x):
        if self.w.sum() > 0:
            return x * 2
        return x
'''


def _lines(source: str, tmp_path: Path) -> tuple[set[int], set[int]]:
    return ({line for line, _ in dynamo_breaks(source, tmp_path)},
            {line for line, _, _ in graphmend_findings(source, tmp_path)})


@pytest.mark.parametrize("case", sorted(QUIET))
def test_a_fallback_no_call_runs_leaves_the_line_quiet(case: str, tmp_path: Path) -> None:
    breaks, found = _lines(HEAD + QUIET[case], tmp_path)
    assert breaks == set()
    assert found == set()


@pytest.mark.parametrize("case", sorted(BREAKING))
def test_a_call_leaving_the_parameter_none_keeps_the_finding(case: str, tmp_path: Path) -> None:
    body, statement = BREAKING[case]
    source = HEAD + body
    breaks, found = _lines(source, tmp_path)
    assert line_of(source, statement) in breaks
    assert found == breaks


def test_a_fallback_stored_by_an_untraced_init_is_still_a_tensor(tmp_path: Path) -> None:
    breaks, found = _lines(STORED, tmp_path)
    assert line_of(STORED, "if self.w.sum() > 0") in breaks
    assert found == breaks


# `if p is not None:` / `if p:` with a falsy default: the block runs only on a call that passes a
# truthy value. When every call leaves it at the default or passes None (or, for `if p:`, another
# falsy literal), nothing in it runs and nothing breaks there.
GUARDED = '''from typing import Optional

import torch
from torch import nn


def noise(x, generator: Optional[torch.Generator] = None):
    if generator is not None:
        generator.manual_seed(0)
    return x + torch.rand(x.shape, generator=generator)


def scale(x, verbose=False):
    if verbose:
        print("scaling")
    return x * 2


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.g = torch.Generator()

    def forward(self, x):
'''

GUARDED_QUIET = {
    "generator_left_none": "        return noise(x)\n",
    "generator_passed_none": "        return noise(x, None) + noise(x, generator=None)\n",
    "verbose_left_out": "        return scale(x)\n",
    "verbose_false": "        return scale(x, verbose=False) + scale(x, 0)\n",
}

# A call passing a truthy value (or one hidden in `**kwargs`) runs the block: Dynamo breaks there.
GUARDED_BREAKING = {
    "generator_held": ("        return noise(x, self.g)\n", "generator.manual_seed(0)"),
    "generator_one_of_two": ("        return noise(x, generator=self.g) + noise(x)\n", "generator.manual_seed(0)"),
    "verbose_true": ("        return scale(x, verbose=True)\n", 'print("scaling")'),
    "verbose_in_kwargs": ("        kw = {'verbose': True}\n        return scale(x, **kw)\n", 'print("scaling")'),
}


@pytest.mark.parametrize("case", sorted(GUARDED_QUIET))
def test_a_guarded_block_no_call_runs_is_quiet(case: str, tmp_path: Path) -> None:
    breaks, found = _lines(GUARDED + GUARDED_QUIET[case], tmp_path)
    assert breaks == set()
    assert found == set()


@pytest.mark.parametrize("case", sorted(GUARDED_BREAKING))
def test_a_call_passing_a_truthy_value_keeps_the_guarded_finding(case: str, tmp_path: Path) -> None:
    body, statement = GUARDED_BREAKING[case]
    source = GUARDED + body
    breaks, found = _lines(source, tmp_path)
    at = line_of(source, statement)
    assert at in breaks
    assert at in found
    assert found <= breaks


# `self.verbose = verbose` in a method other than `__init__` is not `verbose` at a later test: a
# call between them may store `self.verbose` again. Every call leaves `verbose` False, yet
# `self.helper()` sets it True and Dynamo breaks at the `print` (GB0059).
RESTORED = '''import torch
from torch import nn


class Model(nn.Module):
    def run(self, x, verbose=False):
        self.verbose = verbose
        self.helper()
        if self.verbose:
            print("run")
        return x * 2

    def helper(self):
        self.verbose = True

    def forward(self, x):
        return self.run(x)
'''


def test_an_attribute_stored_from_the_parameter_outside_init_is_no_guard(tmp_path: Path) -> None:
    breaks, found = _lines(RESTORED, tmp_path)
    assert line_of(RESTORED, 'print("run")') in breaks
    assert found == breaks
