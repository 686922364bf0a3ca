"""GM676: a dict's `values()` / `items()` view built outside the compiled region and iterated in
traced code (analysis/held_contexts.py judges it by what built `self.NAME` or the global).

Each spelling is measured with Dynamo next to `graphmend check`, on the shape of pina's
`MIONet.forward` (`zip(self.models, self._indeces)` after `self._indeces = networks.values()`):
a `for`, a comprehension, `zip`, `enumerate`, `list()`, `tuple()`, `sorted()` over a held `values()` / `items()` view, one of
`self.d.values()`, of a `ModuleDict` and a module global break (GB0811 "missing tp_iter"); the near
misses trace: a held `keys()` view (Dynamo models it), a global `keys()` view, a view built in
the traced frame, `self.d.values()` called there, `list(...)` of a view held instead, a view
replaced by a list in `__init__`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sample_modules import dynamo_breaks, graphmend_findings

from graphmend_bot.rules.gm676_iterated_held_dict_view import RULE
from graphmend_bot.rules.gm677_sized_held_dict_view import RULE as SIZED_RULE
from graphmend_bot.rules.gm678_membership_in_held_dict_values import RULE as CONTAINED_RULE
from graphmend_bot.rules.gm679_membership_in_held_dict_items import RULE as ITEMS_RULE

TEMPLATE = '''
import torch
TABLE = {{"a": 1, "b": 2}}
VALUES = TABLE.values()
NAMES = TABLE.keys()
class Bag:
    def values(self):
        return [1, 2]
BAG = Bag()
BAG_VALUES = BAG.values()
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        nets = {{"a": 0, "b": 1}}
        self.d = nets
        self.models = torch.nn.ModuleList([torch.nn.Identity(), torch.nn.Identity()])
        self.md = torch.nn.ModuleDict({{"a": torch.nn.Identity()}})
        {init}
    def forward(self, x):
        x = x * 2
        {body}
        return x
'''

BREAKS = {
    "for over held values()": ("self.v = nets.values()", "for v in self.v: x = x + v"),
    "for over held items()": ("self.v = nets.items()", "for k, v in self.v: x = x + v"),
    "comprehension": ("self.v = nets.values()", "x = x + sum([v for v in self.v])"),
    "zip in a comprehension (pina)": ("self.v = nets.values()", "x = x + len([m(x) for m, i in zip(self.models, self.v)])"),
    "enumerate": ("self.v = nets.values()", "for i, v in enumerate(self.v): x = x + v"),
    "view of self.d": ("self.v = self.d.values()", "for v in self.v: x = x + v"),
    "view of a ModuleDict": ("self.v = self.md.values()", "for m in self.v: x = m(x)"),
    "global values()": ("pass", "for v in VALUES: x = x + v"),
    "view of a dict display": ("self.v = {'a': 1}.items()", "for k, v in self.v: x = x + v"),
    "list()": ("self.v = nets.values()", "x = x + len(list(self.v))"),
    "tuple()": ("self.v = nets.items()", "x = x + len(tuple(self.v))"),
    "sorted()": ("pass", "x = x + sorted(VALUES)[0]"),
    # spellV: the other builtins that iterate their argument
    "sum()": ("self.v = nets.values()", "x = x + sum(self.v)"),
    "max()": ("pass", "x = x + max(VALUES)"),
    "min()": ("self.v = nets.values()", "x = x + min(self.v)"),
    "any()": ("pass", "x = x + any(VALUES)"),
    "all()": ("self.v = nets.values()", "x = x + all(self.v)"),
    "set()": ("pass", "x = x + len(set(VALUES))"),
    "frozenset()": ("self.v = nets.values()", "x = x + len(frozenset(self.v))"),
    "dict() of items()": ("self.v = nets.items()", "x = x + len(dict(self.v))"),
}

TRACES = {
    "held keys()": ("self.v = nets.keys()", "for k in self.v: x = x + len(k)"),
    "global keys()": ("pass", "for k in NAMES: x = x + len(k)"),
    "view built in the frame": ("pass", "for v in {'a': 0}.values(): x = x + v"),
    "held dict's values() called in the frame": ("pass", "for v in self.d.values(): x = x + v"),
    "list of the view held": ("self.v = list(nets.values())", "for v in self.v: x = x + v"),
    "view replaced by a list": ("self.v = nets.values()\n        self.v = list(self.v)", "for v in self.v: x = x + v"),
    "list() of a held keys() view": ("self.v = nets.keys()", "x = x + len(list(self.v))"),
    "sum() of a held keys() view's lengths": ("self.v = nets.keys()", "x = x + sum(len(k) for k in self.v)"),
    "max() of a view built in the frame": ("pass", "x = x + max(self.d.values())"),
    # review25: `values()` of a tree class's object is that class's method (a list here), no view
    "values() of a held tree object": ("self.b = Bag()\n        self.v = self.b.values()", "for v in self.v: x = x + v"),
    "global values() of a tree object": ("pass", "for v in BAG_VALUES: x = x + v"),
}


@pytest.mark.parametrize("name", sorted(BREAKS))
def test_iterating_a_held_values_or_items_view_breaks(name: str, tmp_path: Path) -> None:
    init, body = BREAKS[name]
    source = TEMPLATE.format(init=init, body=body)
    row = source.splitlines().index(f"        {body}") + 1
    # `zip` as a comprehension's iterable: here Dynamo builds the zip and breaks stepping it (GB4347;
    # pina's, with a ModuleList beside the view, GB0811); the finding says GB0811 for either
    expected_id = "GB4347" if "zip(" in body and "[" in body else RULE.gb_id
    assert dynamo_breaks(source, tmp_path) == {(row, expected_id)}
    assert graphmend_findings(source, tmp_path) == {(row, "GM676", RULE.gb_id)}


@pytest.mark.parametrize("name", sorted(TRACES))
def test_near_misses_trace_and_are_not_reported(name: str, tmp_path: Path) -> None:
    init, body = TRACES[name]
    source = TEMPLATE.format(init=init, body=body)
    assert dynamo_breaks(source, tmp_path) == set()
    assert graphmend_findings(source, tmp_path) == set()


# GM677: the length of the same views (GB6012); the near misses trace
SIZED = {
    "len() of held values()": ("self.v = nets.values()", "x = x + len(self.v)"),
    "len() of held items()": ("self.v = nets.items()", "x = x + len(self.v)"),
    "len() of a global values()": ("pass", "x = x + len(VALUES)"),
    "bool() of held values()": ("self.v = nets.values()", "x = x + bool(self.v)"),
}
SIZED_TRACES = {
    "len() of held keys()": ("self.v = nets.keys()", "x = x + len(self.v)"),
    "len() of a global keys()": ("pass", "x = x + len(NAMES)"),
    "len() of a view built in the frame": ("pass", "x = x + len(self.d.values())"),
    "len() of a held list of the view": ("self.v = list(nets.values())", "x = x + len(self.v)"),
    "len() of a held tree object's values()": ("self.b = Bag()\n        self.v = self.b.values()", "x = x + len(self.v)"),
}


@pytest.mark.parametrize("name", sorted(SIZED))
def test_len_of_a_held_values_or_items_view_breaks(name: str, tmp_path: Path) -> None:
    init, body = SIZED[name]
    source = TEMPLATE.format(init=init, body=body)
    row = source.splitlines().index(f"        {body}") + 1
    assert dynamo_breaks(source, tmp_path) == {(row, SIZED_RULE.gb_id)}
    assert graphmend_findings(source, tmp_path) == {(row, "GM677", SIZED_RULE.gb_id)}


@pytest.mark.parametrize("name", sorted(SIZED_TRACES))
def test_len_near_misses_trace_and_are_not_reported(name: str, tmp_path: Path) -> None:
    init, body = SIZED_TRACES[name]
    source = TEMPLATE.format(init=init, body=body)
    assert dynamo_breaks(source, tmp_path) == set()
    assert graphmend_findings(source, tmp_path) == set()


# GM678 (spellW): `in` on a held values() view iterates it (GB0811); the near misses trace
CONTAINED = {
    "in held values()": ("self.v = nets.values()", "x = x + (1 in self.v)"),
    "not in held values()": ("self.v = nets.values()", "x = x + (3 not in self.v)"),
    "in a global values()": ("pass", "x = x + (2 in VALUES)"),
    "a tensor in held values()": ("self.v = nets.values()", "x = x + (x.sum() in self.v)"),
}
CONTAINED_TRACES = {
    "in held keys()": ("self.v = nets.keys()", "x = x + ('a' in self.v)"),
    "in a global keys()": ("pass", "x = x + ('a' in NAMES)"),
    "in values() built in the frame": ("pass", "x = x + (1 in self.d.values())"),
    "in a held list of the view": ("self.v = list(nets.values())", "x = x + (1 in self.v)"),
    "in a held tree object's values()": ("self.b = Bag()\n        self.v = self.b.values()", "x = x + (1 in self.v)"),
}


@pytest.mark.parametrize("name", sorted(CONTAINED))
def test_membership_in_a_held_values_view_breaks(name: str, tmp_path: Path) -> None:
    init, body = CONTAINED[name]
    source = TEMPLATE.format(init=init, body=body)
    row = source.splitlines().index(f"        {body}") + 1
    assert dynamo_breaks(source, tmp_path) == {(row, CONTAINED_RULE.gb_id)}
    assert graphmend_findings(source, tmp_path) == {(row, "GM678", CONTAINED_RULE.gb_id)}


# GM679: on a held items() view Dynamo breaks with another id (GB4411, missing sq_contains)
ITEMS_CONTAINED = {
    "in held items()": ("self.v = nets.items()", "x = x + (('a', 0) in self.v)"),
    "not in a global items()": ("pass", "x = x + (('a', 1) not in ITEMS)"),
}
ITEMS_TRACES = {
    "in items() built in the frame": ("pass", "x = x + (('a', 0) in self.d.items())"),
    "in a held list of the items": ("self.v = list(nets.items())", "x = x + (('a', 0) in self.v)"),
}


@pytest.mark.parametrize("name", sorted(ITEMS_CONTAINED))
def test_membership_in_a_held_items_view_breaks_with_its_own_id(name: str, tmp_path: Path) -> None:
    init, body = ITEMS_CONTAINED[name]
    source = TEMPLATE.format(init=init, body=body).replace("NAMES = TABLE.keys()", "NAMES = TABLE.keys()\nITEMS = TABLE.items()")
    row = source.splitlines().index(f"        {body}") + 1
    assert dynamo_breaks(source, tmp_path) == {(row, ITEMS_RULE.gb_id)}
    assert graphmend_findings(source, tmp_path) == {(row, "GM679", ITEMS_RULE.gb_id)}


@pytest.mark.parametrize("name", sorted(ITEMS_TRACES))
def test_items_membership_near_misses_trace_and_are_not_reported(name: str, tmp_path: Path) -> None:
    init, body = ITEMS_TRACES[name]
    source = TEMPLATE.format(init=init, body=body)
    assert dynamo_breaks(source, tmp_path) == set()
    assert graphmend_findings(source, tmp_path) == set()


@pytest.mark.parametrize("name", sorted(CONTAINED_TRACES))
def test_membership_near_misses_trace_and_are_not_reported(name: str, tmp_path: Path) -> None:
    init, body = CONTAINED_TRACES[name]
    source = TEMPLATE.format(init=init, body=body)
    assert dynamo_breaks(source, tmp_path) == set()
    assert graphmend_findings(source, tmp_path) == set()
