"""`min(bisect.bisect(T.tolist(), v), len(T) - 1)` searched on the tensor with
`torch.searchsorted(T, v, right=True).clamp(max=len(T) - 1)` (rewrite/scalars/bisect_search.py).

Measured on torch 2.13: the rewritten search has no break where the original had two (`.tolist()`
and the untraceable `bisect`), it returns the same index for every table and value the fix's
assumptions allow (a sorted table, a value of the table's dtype), and the reads of the index the
fix keeps behave alike for the int and the 0-d tensor. Then the cases that must get no fix.
"""

from __future__ import annotations

import bisect
import itertools
from pathlib import Path

import pytest
import torch
from fixture_support import fix_source, load_module

from graphmend_bot.config import Config
from graphmend_bot.engine import check
from graphmend_bot.findings import Finding
from graphmend_bot.rewrite import attach_fixes

SEARCH = "self.next_index = min(bisect.bisect(self.table.tolist(), t[0]), len(self.table) - 1)"
# Past 100 characters the fixer splits the line after `.clamp(`, as black would.
FIXED = """self.next_index = torch.searchsorted(self.table, t[0], right=True).clamp(
            max=len(self.table) - 1
        )"""
# torchdiffeq's RKAdaptiveStepsizeODESolver, `_before_integrate` and the index's readers, reduced
TEMPLATE = f'''import bisect

import torch
from torch import nn


class Solver(nn.Module):
    def __init__(self, table, dtype):
        super().__init__()
        self.dtype = dtype
        self.table = None if table is None else torch.as_tensor(table, dtype=dtype)

    def before_integrate(self, t):
        if self.table is None:
            table = torch.tensor([], dtype=self.dtype)
        else:
            table = torch.sort(self.table).values
        self.table = table
        {SEARCH}

    def step(self, t0, dt):
        on_point = False
        if len(self.table):
            point = self.table[self.next_index]
            on_point = t0 < point
        if on_point:
            if self.next_index != len(self.table) - 1:
                self.next_index += 1
        return t0 + dt

    def forward(self, t):
        self.before_integrate(t)
        return self.step(t[0], t[1] - t[0])
'''
TABLES = ([], [0.5], [0.1, 0.5, 0.9], [-1.0, 0.0, 0.0, 2.5, 7.0])


def search_findings(source: str, tmp_path: Path) -> list[Finding]:
    path = tmp_path / "case.py"
    path.write_text(source, encoding="utf-8")
    return [f for f in attach_fixes(check([str(path)]), Config()).findings if f.code in ("GM303", "GM604")]


def solvers(tmp_path: Path, source: str = TEMPLATE) -> tuple[object, object]:
    fixed = fix_source("# fixture: unsafe-fixes\n" + source, tmp_path)
    assert FIXED in fixed or "torch.searchsorted" in fixed, fixed
    (tmp_path / "before.py").write_text(source, encoding="utf-8")
    (tmp_path / "after.py").write_text(fixed, encoding="utf-8")
    return (load_module(tmp_path / "before.py", tmp_path, f"bisect_before_{id(source)}"),
            load_module(tmp_path / "after.py", tmp_path, f"bisect_after_{id(source)}"))


def probes(table: list[float]) -> list[float]:
    """Values below, at, between and above the entries, infinities and NaN."""
    points = [*table, *(a + (b - a) / 2 for a, b in itertools.pairwise(table))]
    return [*points, *(p + d for p in table for d in (-1e-3, 1e-3)), -10.0, 10.0,
            float("inf"), float("-inf"), float("nan")]


def test_the_fixer_writes_the_search_on_the_tensor(tmp_path: Path) -> None:
    fixed = fix_source("# fixture: unsafe-fixes\n" + TEMPLATE, tmp_path)
    assert SEARCH not in fixed and FIXED in fixed
    assert fix_source(TEMPLATE, tmp_path) == TEMPLATE, "a safe-only --fix must leave it"
    findings = search_findings(TEMPLATE, tmp_path)
    assert {f.code for f in findings} == {"GM303", "GM604"}
    for finding in (f for f in findings if f.code == "GM303"):
        assert finding.fix is not None and finding.fix.applicability == "unsafe"
        assert any("sorted ascending" in note for note in finding.fix.assumptions)
        assert any("`t[0]` has `self.table`'s dtype" in note for note in finding.fix.assumptions)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_same_index_and_same_steps_for_every_table_and_value(dtype: torch.dtype, tmp_path: Path) -> None:
    before, after = solvers(tmp_path)
    checked = 0
    for table in TABLES:
        for value in probes(table):
            t = torch.tensor([value, value + 1.0], dtype=dtype)
            old, new = before.Solver(table, dtype), after.Solver(table, dtype)
            old.before_integrate(t)
            new.before_integrate(t)
            assert isinstance(old.next_index, int) and new.next_index.dtype == torch.int64 and new.next_index.dim() == 0
            assert int(new.next_index) == old.next_index, (table, value)
            for t0 in probes(table)[:6]:  # the readers: the table entry, the comparison, `+= 1`
                x0 = torch.tensor(t0, dtype=dtype)
                torch.testing.assert_close(new.step(x0, x0), old.step(x0, x0), rtol=0, atol=0, equal_nan=True)
                assert int(new.next_index) == old.next_index, (table, value, t0)
            checked += 1
    assert checked == sum(len(probes(table)) for table in TABLES)


def test_searchsorted_is_bisect_right_and_left_on_the_tolist_of_a_sorted_tensor() -> None:
    for dtype in (torch.float32, torch.float64):
        for table in TABLES:
            sorted_table = torch.tensor(table, dtype=dtype)
            for value in probes(table):
                v = torch.tensor(value, dtype=dtype)
                right = torch.searchsorted(sorted_table, v, right=True).clamp(max=len(sorted_table) - 1)
                assert int(right) == min(bisect.bisect_right(sorted_table.tolist(), v), len(sorted_table) - 1)
                if value == value:  # bisect_left puts NaN first, searchsorted last: a stated assumption
                    assert int(torch.searchsorted(sorted_table, v)) == bisect.bisect_left(sorted_table.tolist(), v)


def test_a_value_of_another_dtype_is_compared_differently_as_the_fix_states() -> None:
    # bisect compares a float32 value with float64 entries in float32; searchsorted promotes.
    table = torch.tensor([1.0 + 2**-30], dtype=torch.float64)
    value = torch.tensor(1.0, dtype=torch.float32)
    assert bisect.bisect(table.tolist(), value) == 1
    assert int(torch.searchsorted(table, value, right=True)) == 0


def explain(fn: object, *args: object) -> int:
    torch._dynamo.reset()
    return torch._dynamo.explain(fn)(*args).graph_break_count


@pytest.mark.parametrize("table", [None, [0.1, 0.5, 0.9]])
def test_the_search_breaks_before_and_not_after(table: list[float] | None, tmp_path: Path) -> None:
    before, after = solvers(tmp_path)
    t = torch.tensor([0.3, 1.0], dtype=torch.float64)
    assert explain(before.Solver(table, torch.float64).before_integrate, t) == 1
    assert explain(after.Solver(table, torch.float64).before_integrate, t) == 0


REFUSED = {
    "a numpy table": ("torch.sort(self.table).values", "np.sort(self.table)"),
    "a table attribute set to a numpy array": (
        "self.table = None if table is None else torch.as_tensor(table, dtype=dtype)", "self.table = np.asarray(table)"),
    "a bisect that is not the standard library's": ("import bisect\n", "from mylib import bisect\n"),
    "a bisect bound twice": ("import torch\n", "import torch\n\nbisect = None\n"),
    "lo and hi": ("t[0]), len", "t[0], 0, 3), len"),
    "a key": ("t[0]), len", "t[0], key=float), len"),
    "a list that is not a tensor's tolist": ("self.table.tolist()", "list(self.table)"),
    "another cap": ("len(self.table) - 1)", "len(self.table) - 2)"),
    "the index in range": ("return t0 + dt", "return t0 + dt * len(range(self.next_index))"),
    "the index returned": ("return t0 + dt", "return self.next_index"),
    "the index indexing a list": ("point = self.table[self.next_index]", "point = [1.0, 2.0][self.next_index]"),
    "a comparison kept": ("on_point = t0 < point", "on_point = self.next_index == 0"),
    "an identity test": ("if self.next_index != len(self.table) - 1:", "if self.next_index is not None:"),
    "a multiplication": ("self.next_index += 1", "self.next_index *= 2"),
    "a read outside the class": ("import torch\n", "import torch\n\n\ndef peek(solver):\n    return solver.next_index\n"),
    # Measured: `json.dumps(other.next_index)` raised TypeError on the tensor where the int serialised.
    "another object's read in the class": ("    def forward(self, t):\n",
                                           "    def peek(self, other):\n        return str(other.next_index)\n\n"
                                           "    def forward(self, t):\n"),
    "a read by name": ("import torch\n", "import torch\n\nFIELDS = ['next_index']\n"),
    "a shadowed min": ("    def before_integrate(self, t):\n", "    def before_integrate(self, t, min=max):\n"),
}


@pytest.mark.parametrize("why", sorted(REFUSED))
def test_no_fix_unless_every_precondition_holds(why: str, tmp_path: Path) -> None:
    old, new = REFUSED[why]
    source = TEMPLATE.replace(old, new)
    if "np." in source:
        source = "import numpy as np\n" + source
    assert source != TEMPLATE
    findings = search_findings(source, tmp_path)
    assert findings, "the break must still be reported"
    assert all(f.fix is None or "searchsorted" not in f.fix.title for f in findings), [f.fix for f in findings]
    assert "searchsorted" not in fix_source("# fixture: unsafe-fixes\n" + source, tmp_path)


LOCAL_INDEX = '''import torch
from bisect import bisect_left
from torch import nn


class FirstAtOrAfter(nn.Module):
    def forward(self, x, t):
        table = torch.cumsum(x, 0)  # sorted for a non-negative x
        i = bisect_left(table.tolist(), t)
        return table[i]
'''


def test_bisect_left_and_a_local_index(tmp_path: Path) -> None:
    source = LOCAL_INDEX
    fixed = fix_source("# fixture: unsafe-fixes\n" + source, tmp_path)
    assert "i = torch.searchsorted(table, t)\n" in fixed
    fixes = [f.fix for f in search_findings(source, tmp_path) if f.fix is not None]
    assert fixes and all(any("not NaN" in note for note in fix.assumptions) for fix in fixes)
    returned = source.replace("return table[i]", "return i")
    assert "searchsorted" not in fix_source("# fixture: unsafe-fixes\n" + returned, tmp_path)


@pytest.mark.parametrize(("why", "old", "new"), [
    # Measured: `table = {0: 1.0, ...}` then `table[i]` raised KeyError(tensor(2)) where the int found the key.
    ("the local table rebound to a dict", "return table[i]", "table = {0: 1.0, 1: 2.0}\n        return table[i]"),
    ("the local table rebound by a loop", "return table[i]", "for table in ({0: 1.0},):\n            pass\n        return table[i]"),
    ("a nested scope's own table", "return table[i]", "return (lambda table: table[i])({0: 1.0})"),
])
def test_no_fix_when_the_indexed_table_may_be_another_object(why: str, old: str, new: str, tmp_path: Path) -> None:
    source = LOCAL_INDEX.replace(old, new)
    assert "searchsorted" not in fix_source("# fixture: unsafe-fixes\n" + source, tmp_path), why
