"""Calls through objects a module builds at import time (`COUNTER = Counter()`, then
`COUNTER.bump(x)` or `registry.SCALE(x)` in a forward): Dynamo traces the in-tree class's method
(measured here with torch._dynamo.explain), so graphmend's scope reaches it too
(scope.Program._module_instance_calls); an instance only untraced code calls stays out."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from graphmend_bot.engine import check

torch = pytest.importorskip("torch")

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from ground_truth import Tree, dynamo_breaks, normalise  # noqa: E402

TREE = {
    "instpkg/__init__.py": "",
    "instpkg/registry.py": """
        class Counter:
            def bump(self, x):
                if x.sum() > 0:  # break
                    return x + 1
                return x - 1


        class Scale:
            def __call__(self, x, factor=2):
                return x.sum().item() * factor  # break


        class Unused:
            def bump(self, x):
                return x.tolist()


        def make_scale():
            return Scale()


        COUNTER = Counter()
        SCALE = make_scale()
        OTHER = Unused()


        def eager_only(x):
            return OTHER.bump(x)
    """,
    "instpkg/model.py": """
        from torch import nn

        from instpkg import registry
        from instpkg.registry import COUNTER


        class Net(nn.Module):
            def forward(self, x):
                y = COUNTER.bump(x)
                return registry.SCALE(y)
    """,
}


def _marked(path: Path) -> set[int]:
    return {row for row, line in enumerate(path.read_text().splitlines(), 1) if line.endswith("# break")}


def test_methods_of_module_level_instances_are_traced_code(write_tree, monkeypatch) -> None:
    root = write_tree(TREE)
    registry = root / "instpkg" / "registry.py"
    monkeypatch.syspath_prepend(str(root))
    model = importlib.import_module("instpkg.model")
    try:
        explained = dynamo_breaks(model.Net(), (torch.ones(3),), {}, Tree([str(root / "instpkg")]))
    finally:
        for name in [name for name in sys.modules if name.startswith("instpkg")]:
            del sys.modules[name]
    broken = {line for file, line in explained.lines if file == normalise(str(registry))}
    assert broken == _marked(registry), f"Dynamo broke on {sorted(broken)}"

    result = check([str(root / "instpkg")])
    assert not result.errors
    reported = {f.location.row for f in result.findings if f.path.endswith("registry.py")}
    # Unused.bump (`x.tolist()`) is called only by eager_only, which nothing traced calls
    assert reported == _marked(registry)


def test_a_module_level_object_that_no_in_tree_class_built_reaches_nothing(write_tree) -> None:
    """`TABLE = OrderedDict()`, a class of another package: `TABLE.get(...)` runs none of the
    tree, though a function of the tree is named `get`."""
    root = write_tree({
        "logpkg/__init__.py": "",
        "logpkg/model.py": """
            from collections import OrderedDict

            from torch import nn

            TABLE = OrderedDict()


            def get(x):
                return x.sum().item()


            class Net(nn.Module):
                def forward(self, x):
                    TABLE.get("x")
                    return x
        """,
    })
    result = check([str(root / "logpkg")])
    assert not result.errors
    assert [f.location.row for f in result.findings] == []
