"""Nested functions passed to a pytree map, as Dynamo follows them (measured here with
torch._dynamo.explain on torch 2.13): `tree_map(leaf, tree)` of torch.utils._pytree or optree
calls `leaf` on each leaf, and Dynamo traces it there; so does an in-tree helper that only hands
its parameter on to one (posteriors' `flexi_tree_map`, through a local alias
`tm = tree_map_ if inplace else tree_map`, of a module's functions or of bare names), directly or
through another such helper. Near misses: a helper that only keeps what it is given, and a nested
function never passed.

(callee_refs._CALLING_BACK, FunctionSummary.forwards made by forwarded_callbacks.py, scope.Program._calls_back.)
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from test_scope_closures import _traced  # noqa: E402
from test_scope_edges import _assert_reported_where_dynamo_breaks, _dynamo_lines, _marked  # noqa: E402

from graphmend_bot.engine import check  # noqa: E402

MAPS_TREE = {
    "mapspkg/__init__.py": "",
    "mapspkg/helpers.py": """
        import torch
        import torch.utils._pytree as pytree
        from torch.utils._pytree import tree_map, tree_map_

        STORE = []


        def flexi_map(f, tree, inplace=False):
            tm = pytree.tree_map_ if inplace else pytree.tree_map
            return tm(f, tree)


        def bare_map(f, tree, inplace=False):
            tm = tree_map_ if inplace else tree_map
            return tm(f, tree)


        def forwards(g, tree):
            return flexi_map(g, tree)


        def keeps(f, tree):
            STORE.append(f)
            return tree


        def _double(t):
            return t * 2


        def maps_the_tree(f, tree):  # hands a pytree map its tree, never `f` (review27)
            return tree_map(_double, tree), f


        def only_map(f, tree):
            return pytree.tree_map_only(torch.Tensor, f, tree)
    """,
    "mapspkg/steps.py": """
        import torch
        from torch.utils._pytree import tree_map, tree_map_only

        from mapspkg.helpers import bare_map, flexi_map, forwards, keeps, maps_the_tree, only_map


        def mapped(x):
            def leaf(t):
                print("leaf")  # break
                return t

            def only(t):
                print("only")  # break
                return t

            def flexi(t):
                print("flexi")  # break
                return t

            def bare(t):
                print("bare")  # break
                return t

            def forwarded(t):
                print("forwarded")  # break
                return t

            def kept(t):
                return t.tolist()

            def handed(t):
                return t.tolist()

            def only_forwarded(t):
                print("only_forwarded")  # break
                return t

            def unused(t):
                return t.tolist()

            tree = {"a": x}
            tree = tree_map(leaf, tree)
            tree = tree_map_only(torch.Tensor, only, tree)
            tree = flexi_map(flexi, tree)
            tree = bare_map(bare, tree)
            tree = forwards(forwarded, tree)
            tree, _ = maps_the_tree(handed, tree)
            tree = only_map(only_forwarded, tree)
            return keeps(kept, tree)["a"]
    """,
    "mapspkg/model.py": """
        from torch import nn

        from mapspkg.steps import mapped


        class Net(nn.Module):
            def forward(self, x):
                return mapped(x)
    """,
}


def test_closures_passed_to_a_pytree_map_or_a_helper_forwarding_to_one_are_traced_where_dynamo_breaks(write_tree) -> None:
    root = write_tree(MAPS_TREE)
    _assert_reported_where_dynamo_breaks(root, "mapspkg", "model", "Net", "steps.py")
    traced = _traced(root, "mapspkg")
    assert {("mapspkg.steps", f"mapped.{n}") for n in ("leaf", "only", "flexi", "bare", "forwarded", "only_forwarded")} <= traced
    assert not {("mapspkg.steps", f"mapped.{n}") for n in ("kept", "unused", "handed")} & traced


OPTREE_TREE = {
    "optpkg/__init__.py": "",
    "optpkg/model.py": """
        import optree
        from optree import tree_map_
        from torch import nn


        def mapped(x):
            def leaf(t):
                print("leaf")  # break
                return t

            def visit(t):
                print("visit")  # break

            tree = optree.tree_map(leaf, {"a": x})
            tree_map_(visit, tree)
            return x + 1


        class Net(nn.Module):
            def forward(self, x):
                return mapped(x)
    """,
}


def test_closures_passed_to_optree_maps_are_traced_where_dynamo_breaks(write_tree) -> None:
    pytest.importorskip("optree")
    root = write_tree(OPTREE_TREE)
    path = root / "optpkg" / "model.py"
    marked = _marked(path)
    # Dynamo also breaks on the line calling optree.tree_map (the frame it resumes), not claimed here
    assert marked <= _dynamo_lines(root, "optpkg", "model", "Net", path)
    result = check([str(root / "optpkg")])
    assert not result.errors
    assert marked <= {f.location.row for f in result.findings}
