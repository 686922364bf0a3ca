"""Edges of the scope walk through callables held as values (each measured here with
torch._dynamo.explain: Dynamo inlines the call and breaks inside the callee), with negatives:

- a local fetched from a module's table of functions (`kernel = KERNELS[name]`, then
  `kernel(x)`: geomloss' `kernel_routines`) calls what the table holds; a function no table and
  no traced code names stays out (function_aliases._table)."""

from __future__ import annotations

import pytest
from test_scope_edges import _assert_reported_where_dynamo_breaks, _marked

from graphmend_bot.engine import check

pytest.importorskip("torch")

TABLE_TREE = {
    "tablepkg/__init__.py": "",
    "tablepkg/_kernels.py": """
        def gaussian(x):
            if x.sum() > 0:  # break
                return x.exp()
            return x


        def energy(x):
            return x.abs()


        def unlisted(x):
            return x.tolist()


        KERNELS = {"gaussian": gaussian, "energy": energy}
    """,
    "tablepkg/model.py": """
        from torch import nn

        from tablepkg._kernels import KERNELS


        class Net(nn.Module):
            def __init__(self, name="gaussian"):
                super().__init__()
                self.name = name

            def forward(self, x, kernel=None):
                if kernel is None:
                    kernel = KERNELS[self.name]
                return kernel(x)
    """,
}


def test_a_local_fetched_from_a_table_of_functions_calls_its_entries(write_tree) -> None:
    root = write_tree(TABLE_TREE)
    _assert_reported_where_dynamo_breaks(root, "tablepkg", "model", "Net", "_kernels.py")
    assert _marked(root / "tablepkg" / "_kernels.py")  # the edge is what reaches `gaussian`


def test_a_local_table_or_a_subscripted_value_reaches_nothing(write_tree) -> None:
    """`fns = [...]` inside the function is no module table, and `x[0](...)` on a parameter calls
    what the caller passed: neither reaches a module function that shares a name."""
    root = write_tree({
        "localpkg/__init__.py": "",
        "localpkg/model.py": """
            from torch import nn


            def fns(x):
                return x.tolist()


            class Net(nn.Module):
                def forward(self, x, callbacks=()):
                    table = [abs]
                    first = table[0]
                    for callback in callbacks:
                        pick = callbacks[0]
                        x = pick(x)
                    return first(x)
        """,
    })
    result = check([str(root / "localpkg")])
    assert not result.errors
    assert [f.location.row for f in result.findings] == []
