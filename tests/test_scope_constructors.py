"""`Cls(...)` in traced code runs the `__new__` of the class or of an in-tree base before its
`__init__`, and Dynamo inlines it: a plain class's, a tensor subclass's returning
`x.as_subclass(cls)` (pina's LabelTensor, pypose's LieTensor) and an inherited one (measured here
with torch._dynamo.explain on torch 2.13). The `__new__` of a class only untraced code builds is
not reached (scope.Program._initializer)."""

from __future__ import annotations

import pytest

from graphmend_bot.analysis.scope import Program
from graphmend_bot.config import Config
from graphmend_bot.engine import Workspace

torch = pytest.importorskip("torch")

from test_scope_edges import _assert_reported_where_dynamo_breaks  # noqa: E402

TREE = {
    "newpkg/__init__.py": "",
    "newpkg/kinds.py": """
        import torch


        class Box:
            def __new__(cls, x):
                _ = torch.ones(2).tolist()  # break
                return super().__new__(cls)

            def __init__(self, x):
                self.x = x


        class Labelled(torch.Tensor):
            @staticmethod
            def __new__(cls, x, labels):
                _ = torch.zeros(2).tolist()  # break
                return x.as_subclass(cls)

            def __init__(self, x, labels):
                self.labels = labels


        class Named(Labelled):
            pass


        class Unbuilt:
            def __new__(cls):
                _ = torch.ones(3).tolist()
                return super().__new__(cls)
    """,
    "newpkg/model.py": """
        from torch import nn

        from newpkg.kinds import Box, Named, Unbuilt


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.spare = Unbuilt()

            def forward(self, x):
                return Named(Box(x).x, ["a"]) + 1
    """,
}


def test_building_a_class_runs_its_new_where_dynamo_breaks(write_tree) -> None:
    root = write_tree(TREE)
    _assert_reported_where_dynamo_breaks(root, "newpkg", "model", "Net", "kinds.py")
    traced = Program(Workspace([str(root / "newpkg")], Config(), jobs=1).summaries.values(), scope="model").traced_functions()
    assert {("newpkg.kinds", "Box.__new__"), ("newpkg.kinds", "Labelled.__new__")} <= traced
    assert ("newpkg.kinds", "Unbuilt.__new__") not in traced
