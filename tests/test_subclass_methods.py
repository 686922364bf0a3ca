"""GM662 against TorchDynamo: a breaking method called on a tensor subclass's instance breaks at the
call too ("Reconstruction failure", GB0092), and the rest of the frame runs eagerly; the receiver's
class is known from a signature (`x: Lie`, or the overridden base method's `x: Lie` under an
`isinstance` arm). Near misses are measured here too: a method that traces, the call through the
class, a property, a static method, a plain object's method (analysis/subclass_methods.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sample_modules import dynamo_breaks, graphmend_findings  # noqa: E402

CLASSES = '''import torch


class Lie(torch.Tensor):
    def tensor(self):
        return torch.Tensor.as_subclass(self, torch.Tensor)

    def traced(self):
        return self * 2

    @property
    def plain(self):
        return torch.Tensor.as_subclass(self, torch.Tensor)

    @staticmethod
    def helper(x):
        print("helper")
        return x


class Kind:
    def Exp(self, x: Lie) -> torch.Tensor:
        return x * 2


class Holder:
    def tensor(self, x):
        print("holder")
        return x * 2


P = torch.ones(3).as_subclass(Lie)
'''


def _sample(helper: str, call: str) -> str:
    return CLASSES + f"\n\n{helper}\n\nclass Model(torch.nn.Module):\n" + (
        "    def __init__(self):\n        super().__init__()\n        self.kind = SO3()\n        self.holder = Holder()\n\n"
        f"    def forward(self, x):\n        return {call} + x\n"
    )


def _line(source: str, text: str) -> int:
    return next(n for n, line in enumerate(source.splitlines(), start=1) if text in line)


def _agree(source: str, tmp_path: Path) -> set[tuple[int, str]]:
    breaks = dynamo_breaks(source, tmp_path)
    assert {(line, gb_id) for line, _, gb_id in graphmend_findings(source, tmp_path)} == breaks
    return breaks


SO3 = '''class SO3(Kind):
    def Exp(self, x):
        print("before")
        x = x.tensor() if isinstance(x, Lie) else x
        print("after")
        return x.exp()
'''


def test_override_of_an_annotated_method_breaks_at_the_call_and_runs_the_rest_eagerly(tmp_path: Path) -> None:
    source = _sample(SO3, "self.kind.Exp(P)")
    breaks = _agree(source, tmp_path)
    assert (_line(source, "x = x.tensor() if"), "GB0092") in breaks
    assert (_line(source, 'print("before")'), "GB0059") in breaks
    assert not any(line == _line(source, 'print("after")') for line, _ in breaks)  # eager after the call


def test_annotated_parameter(tmp_path: Path) -> None:
    source = _sample(SO3 + "\n\ndef unwrap(y: Lie):\n    return y.tensor()\n", "unwrap(P)")
    breaks = _agree(source, tmp_path)
    assert (_line(source, "return y.tensor()"), "GB0092") in breaks


@pytest.mark.parametrize("call", ["y.traced()", "Lie.tensor(y)", "y.plain", "y.helper(y)"])
def test_near_misses_break_only_inside(call: str, tmp_path: Path) -> None:
    source = _sample(SO3 + f"\n\ndef use(y: Lie):\n    return {call}\n", "use(P)")
    breaks = _agree(source, tmp_path)
    assert not any(line == _line(source, f"return {call}") for line, _ in breaks)


def test_plain_object_method_breaks_only_inside(tmp_path: Path) -> None:
    source = _sample(SO3, "self.holder.tensor(P)")
    breaks = _agree(source, tmp_path)
    assert breaks == {(_line(source, 'print("holder")'), "GB0059")}


def test_isinstance_arm_alone_is_not_enough(tmp_path: Path) -> None:
    """A plain function that converts a subclass instance when it gets one: its callers may pass plain
    tensors, and then the arm never runs (pypose's `bmv`). Not reported without a signature."""
    source = _sample(SO3 + "\n\ndef bmv(y):\n    return y.tensor() if isinstance(y, Lie) else y\n", "bmv(x)")
    assert dynamo_breaks(source, tmp_path) == set()
    line = _line(source, "return y.tensor() if")
    assert not any(found == line for found, _, _ in graphmend_findings(source, tmp_path))


@pytest.mark.parametrize("converted", ["y.tensor() if flag else z", "flag and y.tensor()"])
def test_call_in_an_arm_not_taken_leaves_the_rest_traced(converted: str, tmp_path: Path) -> None:
    """The call in a conditional expression's arm, or after `and`, runs on some calls only: with the
    flag off Dynamo traces on and breaks at the print after it, so the eager rest is not from there."""
    helper = f'def use(y: Lie, flag: bool):\n    z = y * 2\n    z = {converted}\n    print("later")\n    return y\n'
    source = _sample(SO3 + "\n\n" + helper, "use(P, False)")
    after = _line(source, 'print("later")')
    assert (after, "GB0059") in dynamo_breaks(source, tmp_path)
    assert (after, "GM401", "GB0059") in graphmend_findings(source, tmp_path)


# The same classes under a name ending in `Tensor` (pypose's LieTensor): an annotation naming a class
# the tree defines signs the receiver, where the suffix alone reads as torch's own tensor types.
TREE_TENSOR = CLASSES.replace("Lie", "LieTensor")


def _tree_tensor_sample(helper: str, forward: str) -> str:
    return TREE_TENSOR + f"\n\n{helper}\n\nclass Model(torch.nn.Module):\n    def forward(self, x):\n        return {forward}\n"


@pytest.mark.parametrize("annotation", ["LieTensor", "'LieTensor'", "Optional[LieTensor]"])
def test_annotation_naming_a_tree_class_ending_in_tensor(annotation: str, tmp_path: Path) -> None:
    helper = f"from typing import Optional\n\n\ndef unwrap(y: {annotation}):\n    return y.tensor()\n"
    source = _tree_tensor_sample(helper, "unwrap(P) + x")
    breaks = _agree(source, tmp_path)
    assert (_line(source, "return y.tensor()"), "GB0092") in breaks


@pytest.mark.parametrize("call", ["y.traced()", "y.plain"])
def test_tree_tensor_near_misses_break_only_inside(call: str, tmp_path: Path) -> None:
    source = _tree_tensor_sample(f"def use(y: LieTensor):\n    return {call}\n", "use(P) + x")
    breaks = _agree(source, tmp_path)
    assert not any(line == _line(source, f"return {call}") for line, _ in breaks)


def test_forward_annotated_with_the_subclass_passes_it_to_an_annotated_helper(tmp_path: Path) -> None:
    """`forward(self, x: LieTensor)` handing `x` to `unwrap(y: LieTensor)`: the call in the helper
    breaks as it does on a module-level instance."""
    helper = (
        "def unwrap(y: LieTensor):\n    return y.tensor()\n\n\n"
        "class Inner(torch.nn.Module):\n    def forward(self, x: LieTensor):\n        return unwrap(x) + 1\n"
    )
    source = TREE_TENSOR + f"\n\n{helper}\n\nclass Model(torch.nn.Module):\n" + (
        "    def __init__(self):\n        super().__init__()\n        self.inner = Inner()\n\n"
        "    def forward(self, x):\n        return self.inner(x.as_subclass(LieTensor))\n")
    breaks = _agree(source, tmp_path)
    assert (_line(source, "return y.tensor()"), "GB0092") in breaks


def test_only_the_tree_s_classes_ending_in_tensor_are_read() -> None:
    """Another package's `*Tensor` (torch_sparse's SparseTensor, no tensor subclass) stays unread,
    as torch's own; a class of the module or one imported from its package is read."""
    import ast

    from graphmend_bot.analysis.guards import GuardHelpers
    from graphmend_bot.analysis.value_class import class_annotation

    helpers = GuardHelpers("pkg/mod.py", "pkg.mod", False, {}, lambda node: None, frozenset({"LieTensor"}))
    imported = {"SparseTensor": "torch_sparse.SparseTensor", "Lie2Tensor": "pkg.lie.Lie2Tensor",
                "FloatTensor": "torch.FloatTensor"}

    def resolve(node: ast.expr) -> str | None:
        return imported.get(node.id) if isinstance(node, ast.Name) else None

    def read(name: str) -> str | None:
        return class_annotation(ast.parse(name, mode="eval").body, resolve, helpers.tree_class)

    assert read("LieTensor") == "LieTensor"
    assert read("Lie2Tensor") == "pkg.lie.Lie2Tensor"
    assert read("SparseTensor") is None and read("FloatTensor") is None and read("OtherTensor") is None
