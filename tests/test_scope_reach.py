"""Reachability from exactly given roots (the verify entry points' factories), beside the default scope."""

from graphmend_bot.config import Config
from graphmend_bot.engine import Workspace

TREE = {
    "pkg/__init__.py": "",
    "pkg/blocks.py": """
        from torch import nn

        def helper(x):
            return x

        class Block(nn.Module):
            def forward(self, x):
                return helper(x)

        class Unused(nn.Module):
            def forward(self, x):
                return x
    """,
    "pkg/model.py": """
        from torch import nn
        from pkg.blocks import Block

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.layers = nn.ModuleList([Block() for _ in range(2)])

            def forward(self, x):
                for layer in self.layers:
                    x = layer(x)
                return x
    """,
    "pkg/entry.py": """
        from pkg.model import Net

        def build(seed=0):
            return Net(), (), {}
    """,
}


def test_a_factory_reaches_the_forward_of_what_it_builds_and_of_what_that_constructs(write_tree) -> None:
    root = write_tree(TREE)
    reach = Workspace([str(root)], Config(), jobs=1, roots=["pkg.entry:build"]).reachable()
    assert reach == {"pkg.entry.build", "pkg.model.Net.__init__", "pkg.model.Net.forward",
                     "pkg.blocks.Block.forward", "pkg.blocks.helper"}


def test_a_class_root_and_an_unknown_root(write_tree) -> None:
    root = write_tree(TREE)
    reach = Workspace([str(root)], Config(), jobs=1, roots=["pkg.blocks:Unused", "pkg.nowhere:build"]).reachable()
    assert reach == {"pkg.blocks.Unused.forward"}
    # The default scope is unchanged by roots: every module's forward is traced.
    assert Workspace([str(root)], Config(), jobs=1).reachable() == set()
