"""Edges of the scope walk through callables held as values (each measured here with
torch._dynamo.explain: Dynamo inlines the call and breaks inside the callee), with negatives:

- a local fetched from a module's table of functions (`kernel = KERNELS[name]`, then
  `kernel(x)`: geomloss' `kernel_routines`) calls what the table holds; a function no table and
  no traced code names stays out (function_aliases._table);
- an attribute `__init__` sets from a parameter whose default is a function of the tree
  (`self.distance = distance` for `distance=pairwise`), or from either side of `a or b`
  (torchmetrics' `kwargs.pop("fn", None) or jit_distributed_available`), calls that function;
  a parameter without such a default holds what callers pass, and reaches nothing
  (held_functions.held_function_names);
- a name unpacked from what a call returns (`packed, unpack_one = pack_one(x)`, then
  `unpack_one(y)`: vector_quantize_pytorch) calls the function the callee returns at that place
  of its tuple, its own closure or one of the module; the other places, values, reach nothing
  (scope.Program._element_calls);
- a class attribute holding a function or a table of them (`kernel = staticmethod(rbf)`,
  `KERNELS = {"linear": linear}`, then `self.kernel(x)`, `self.KERNELS[kind](x)`) calls them; one
  no call reads reaches nothing (held_functions.class_body_functions)."""

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
    what the caller passed: neither reaches a module function that shares a name. That function
    is private: `auto`'s public-api scope roots every public callable of a package."""
    root = write_tree({
        "localpkg/__init__.py": "",
        "localpkg/model.py": """
            from torch import nn


            def _fns(x):
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


HELD_TREE = {
    "heldpkg/__init__.py": "",
    "heldpkg/_functions.py": """
        def pairwise(x):
            if x.sum() > 0:  # break
                return x * 2
            return x


        def available():
            print("asked")  # break
            return False


        def passed_only(x):
            return x.tolist()
    """,
    "heldpkg/model.py": """
        from torch import nn

        from heldpkg._functions import available, pairwise


        class Net(nn.Module):
            def __init__(self, distance=pairwise, scale=2.0, hook=None, **kwargs):
                super().__init__()
                self.distance = distance
                self.scale = scale
                self.hook = hook
                self.available = kwargs.pop("available", None) or available

            def forward(self, x):
                if self.hook is not None:
                    x = self.hook(x)
                self.available()
                return self.distance(x) * self.scale
    """,
}


def test_an_attribute_holding_a_parameters_default_function_calls_it(write_tree) -> None:
    root = write_tree(HELD_TREE)
    _assert_reported_where_dynamo_breaks(root, "heldpkg", "model", "Net", "_functions.py")
    assert len(_marked(root / "heldpkg" / "_functions.py")) == 2


PACK_TREE = {
    "packpkg/__init__.py": "",
    "packpkg/_helpers.py": """
        def pack_one(t):
            packed = t.reshape(-1)

            def unpack_one(flat):
                if flat.sum() > 0:  # break
                    return flat.reshape(t.shape)
                return flat

            def unused(flat):
                return flat.tolist()

            return packed, unpack_one


        def scale(x):
            print("scaling")  # break
            return x * 2


        def with_scale(x):
            return x, scale
    """,
    "packpkg/model.py": """
        from torch import nn

        from packpkg._helpers import pack_one, with_scale


        class Net(nn.Module):
            def forward(self, x):
                flat, unpack_one = pack_one(x)
                y, fn = with_scale(flat)
                return unpack_one(x + 1) + fn(x)
    """,
}


def test_a_function_unpacked_from_a_returned_tuple_is_called(write_tree) -> None:
    root = write_tree(PACK_TREE)
    _assert_reported_where_dynamo_breaks(root, "packpkg", "model", "Net", "_helpers.py")
    assert len(_marked(root / "packpkg" / "_helpers.py")) == 2


CLASS_ATTRIBUTE_TREE = {
    "attrpkg/__init__.py": "",
    "attrpkg/_kernels.py": """
        def rbf(x):
            if x.sum() > 0:  # break
                return x.exp()
            return x


        def linear(x):
            print("linear")  # break
            return x


        def laplace(x):
            print("laplace")  # break
            return x


        def unused(x):
            return x.tolist()
    """,
    "attrpkg/model.py": """
        from torch import nn

        from attrpkg._kernels import laplace, linear, rbf, unused


        class Net(nn.Module):
            kernel = staticmethod(rbf)
            KERNELS = {"linear": linear, "laplace": laplace}
            spare = staticmethod(unused)

            def __init__(self, kind="linear"):
                super().__init__()
                self.kind = kind

            def forward(self, x):
                return self.kernel(x) + self.KERNELS[self.kind](x) + self.KERNELS["laplace"](x)
    """,
}


def test_a_function_a_class_attribute_holds_is_called(write_tree) -> None:
    """`kernel = staticmethod(rbf)` and a class-level table `KERNELS = {...}` in the class body:
    `self.kernel(x)` and `self.KERNELS[kind](x)` call the functions held; `spare`, never called,
    reaches nothing (held_functions.class_body_functions)."""
    root = write_tree(CLASS_ATTRIBUTE_TREE)
    _assert_reported_where_dynamo_breaks(root, "attrpkg", "model", "Net", "_kernels.py")
    assert len(_marked(root / "attrpkg" / "_kernels.py")) == 3
