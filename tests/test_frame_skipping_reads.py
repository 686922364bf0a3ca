"""Comprehensions after a break Dynamo cannot resume from (GM611, analysis/skipped_frames.py).

A break inside a property getter is on the attribute load, and one at a `with` Dynamo cannot enter
is on BEFORE_WITH: neither instruction is one Dynamo resumes after (symbolic_convert's
`break_graph_if_unsupported` wraps calls, comparisons, subscripts and stores only), so it compiles
up to the last resumable point, or skips the frame, and runs the rest eagerly. Before Python 3.12
each list, set or dict comprehension that then runs is a frame Dynamo compiles on its own, handed
its list as an iterator it cannot step ("Missing tp_iternext"). Measured here with Dynamo, each
next to `graphmend check`, on the shapes of heavyball's `BucketGuard.__call__` (a
`functools.cached_property` read, then `[states[i] for i in subgroup]` in `for subgroup in
(fresh, ready)`, and `{k: ... for k in chain_keys}` over a set a property builds), an operator, a `for` and an `in` on an object whose dunder breaks, and their
near misses: a comprehension before the break (traced in the graph), over a tuple, a generator
expression, a property that does not break, a cached_property `__init__` computes first, a
subscript or `len()` of an object whose dunder breaks (resumed after), a property building a tuple.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from sample_modules import dynamo_breaks, graphmend_findings

pytestmark = pytest.mark.skipif(sys.version_info >= (3, 12), reason="3.12 inlines comprehensions (PEP 709)")

MISSING_TP_ITERNEXT = "GB4347"

CACHED_READ = '''
import functools
import torch
class Model(torch.nn.Module):
    @functools.cached_property
    def keys(self):
        return {"a", "b"}
    def forward(self, x):
        x = x + 1
        x = x * 2
        idx = [0, 1]
        before = [x[i] for i in idx]
        keys = self.keys
        after = [x[i] for i in idx]
        by_tuple = [x[i] for i in (0, 1)]
        total = sum(x[i] for i in idx)
        return before[0] + after[0] + by_tuple[0] + total, keys
'''

BREAKING_GETTER = '''
import torch
class Model(torch.nn.Module):
    @property
    def scale(self):
        torch._dynamo.graph_break()
        return 2
    def forward(self, x):
        idx = [0, 1]
        s = self.scale
        ys = {i: x[i] for i in idx}
        return ys[0] * s
'''

PLAIN_GETTER = '''
import torch
class Model(torch.nn.Module):
    @property
    def scale(self):
        return 2
    def forward(self, x):
        idx = [0, 1]
        s = self.scale
        ys = [x[i] for i in idx]
        return ys[0] * s
'''

CACHED_IN_INIT = '''
import functools
import torch
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.first = self.scale
    @functools.cached_property
    def scale(self):
        return 2
    def forward(self, x):
        idx = [0, 1]
        s = self.scale
        ys = [x[i] for i in idx]
        return ys[0] * s
'''

UNENTERABLE_WITH = '''
import threading
import torch
class Model(torch.nn.Module):
    def forward(self, x):
        idx = [0, 1]
        before = [x[i] for i in idx]
        with torch.autograd.set_detect_anomaly(True):
            y = x + 1
        after = [x[i] for i in idx]
        with threading.Lock():
            y = y + 1
        return after[0] + y + before[0]
'''

LOOP_OVER_LISTS = '''
import functools
import torch
class Model(torch.nn.Module):
    @functools.cached_property
    def keys(self):
        return {"a", "b"}
    def forward(self, x):
        keys = self.keys
        fresh, ready = [], []
        for i in range(3):
            (fresh if i % 2 else ready).append(i)
        out = x
        for group in (fresh, ready):
            parts = [x[i] for i in group]
            copied = [x[i] for i in tuple(group)]
            out = out + parts[0] + copied[0]
        for pair in ((0, 1), (1, 0)):
            out = out + [x[i] for i in pair][0]
        return out, keys
'''

BOX = """
import torch
class Box:
    def __init__(self, t):
        self.t = t
    def __add__(self, other):
        torch._dynamo.graph_break()
        return self.t + other
    def __iter__(self):
        torch._dynamo.graph_break()
        return iter([self.t])
    def __contains__(self, item):
        torch._dynamo.graph_break()
        return True
    def __getitem__(self, i):
        torch._dynamo.graph_break()
        return self.t
    def __len__(self):
        torch._dynamo.graph_break()
        return 1
class Model(torch.nn.Module):
    def forward(self, x):
        box = Box(x)
        idx = [0, 1]
        y = {use}
        after = [x[i] for i in idx]
        return after[0] + y
"""
PROPERTY_SET = """
import functools
import torch
class Model(torch.nn.Module):
    @functools.cached_property
    def keys(self):
        keys = {{"a"}}
        return {built}
    def forward(self, x):
        keys = self.keys
        by_key = {{k: x for k in keys}}
        return by_key["a"]
"""
# heavyball's `chain_keys = self._chain_keys` then `{k: ... for k in chain_keys}`: a set, not a tuple
SET_PROPERTY, TUPLE_PROPERTY = (PROPERTY_SET.format(built=built) for built in ('keys | {k + "b" for k in keys}', '("a", "b")'))

# rows: the dunder's graph_break, then `after` (row 26); the operator, `for` and `in` are not resumed after
OPERATOR, ITERATED, CONTAINS = (BOX.format(use=use) for use in ("box + x", "[t for t in box][0]", "x if 1 in box else x"))
SUBSCRIPT, LENGTH = (BOX.format(use=use) for use in ("box[0]", "x * len(box)"))


@pytest.mark.parametrize(
    ("source", "broken"),
    [
        (CACHED_READ, {14}),
        (BREAKING_GETTER, {11}),
        (PLAIN_GETTER, set()),
        (CACHED_IN_INIT, set()),
        (UNENTERABLE_WITH, {10}),
        (LOOP_OVER_LISTS, {15}),
        (OPERATOR, {26}),
        (ITERATED, {26}),
        (CONTAINS, {26}),
        (SUBSCRIPT, set()),
        (LENGTH, set()),
        (SET_PROPERTY, {11}),
        (TUPLE_PROPERTY, set()),
    ],
    ids=["cached_property_read", "breaking_getter", "plain_getter", "cached_in_init", "unenterable_with", "loop_over_lists",
         "operator", "iterated", "contains", "subscript", "length", "set_property", "tuple_property"],
)
def test_comprehensions_after_a_break_dynamo_cannot_resume_from(source: str, broken: set[int], tmp_path: Path) -> None:
    dynamo = dynamo_breaks(source, tmp_path)
    found = graphmend_findings(source, tmp_path)
    assert {line for line, gb_id in dynamo if gb_id == MISSING_TP_ITERNEXT} == broken
    assert {line for line, _, gb_id in found if gb_id == MISSING_TP_ITERNEXT} == broken
    assert {line for line, _ in dynamo} == {line for line, _, _ in found}  # the breaks before them too
