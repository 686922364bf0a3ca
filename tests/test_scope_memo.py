"""Program answers the hierarchy questions scope resolution repeats from memory: the subclasses
of a base and the overrides of a method are walked once per Program, not once per call site."""

from graphmend_bot.analysis.scope import Program
from graphmend_bot.engine import Workspace

TREE = """
    from torch import nn

    class Base(nn.Module):
        def step(self, x):
            return x

        def forward(self, x):
            return self.step(x)

    class Child(Base):
        def step(self, x):
            return x + 1

    class GrandChild(Child):
        pass
"""


def program(root) -> Program:
    workspace = Workspace([str(root)])
    return Program(workspace.summaries.values(), workspace.config.entry_points, workspace.dependency_summaries)


def test_descendants_and_overrides_are_walked_once(write_tree):
    found = program(write_tree({"model.py": TREE}))
    base = ("model", "Base")
    assert set(found.hierarchy.descendants(base)) == {("model", "Child"), ("model", "GrandChild")}
    assert found.hierarchy.descendants(base) is found.hierarchy.descendants(base)
    assert found._overrides("model", "Base", "step") == [("model", "Child.step")]
    assert found._overrides("model", "Base", "step") is found._overrides("model", "Base", "step")
    assert set(found.resolve_call(("model", "Base.forward"), "self:step")) == {
        ("model", "Base.step"), ("model", "Child.step")}
