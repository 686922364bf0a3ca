"""A tensor subclass's `__torch_function__` is traced from its own traced methods
(analysis/torch_function_overrides.py): pypose's `LieTensor.Act` runs `LieTensor.__torch_function__`,
where Dynamo breaks. Measured here with torch._dynamo.explain on each declared entry point: the
`# break` line of the subclass's override breaks, and `graphmend check` reports it; the override
of a class that is no tensor subclass (`Plain`, whose method works on a plain tensor) is not run,
and not reported."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from graphmend_bot.config import Config
from graphmend_bot.engine import check

torch = pytest.importorskip("torch")

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from ground_truth import Tree, dynamo_breaks, normalise  # noqa: E402

TREE = {
    "subpkg/__init__.py": "",
    "subpkg/tensors.py": """
        import torch


        class Tagged(torch.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                if kwargs is None:
                    kwargs = {}
                print("dispatch")  # break
                return super().__torch_function__(func, types, args, kwargs)

            def doubled(self):
                return self * 2


        class Plain:
            def __torch_function__(self, func, types, args=(), kwargs=None):
                print("never")
                return func(*args, **(kwargs or {}))

            def doubled(self, x):
                return x * 2
    """,
}
ENTRY_POINTS = ["subpkg.tensors:Tagged.doubled", "subpkg.tensors:Plain.doubled"]


def _dynamo_lines(root: Path) -> set[int]:
    """The lines of subpkg/tensors.py Dynamo breaks on, explaining both entry points."""
    path = root / "subpkg" / "tensors.py"
    sys.path.insert(0, str(root))
    try:
        tensors = importlib.import_module("subpkg.tensors")
        tree = Tree([str(root / "subpkg")])
        tagged = dynamo_breaks(tensors.Tagged.doubled, (torch.ones(3).as_subclass(tensors.Tagged),), {}, tree)
        plain = dynamo_breaks(tensors.Plain.doubled, (tensors.Plain(), torch.ones(3)), {}, tree)
    finally:
        sys.path.remove(str(root))
        for name in [name for name in sys.modules if name.split(".")[0] == "subpkg"]:
            del sys.modules[name]
    return {line for file, line in tagged.lines | plain.lines if file == normalise(str(path))}


def test_a_tensor_subclass_override_runs_in_its_methods_traced_code(write_tree) -> None:
    root = write_tree(TREE)
    path = root / "subpkg" / "tensors.py"
    marked = {row for row, line in enumerate(path.read_text().splitlines(), 1) if line.endswith("# break")}
    broken = _dynamo_lines(root)
    assert broken == marked, f"Dynamo broke on {sorted(broken)}"
    result = check([str(root / "subpkg")], Config(entry_points=ENTRY_POINTS))
    assert not result.errors
    assert {f.location.row for f in result.findings} == marked


BOX_TREE = {
    "boxes/__init__.py": "from boxes.box import Box\n",
    "boxes/box.py": """
        import torch


        class Box:
            def __init__(self, t):
                self.t = t

            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                if hasattr(func, "__name__"):
                    args = [a.t if isinstance(a, Box) else a for a in args]
                return func(*args, **(kwargs or {}))

            def shifted(self, x: torch.Tensor) -> torch.Tensor:
                return torch.add(self, x)
    """,
}


def test_hasattr_in_the_override_of_an_object_that_is_no_tensor_is_not_reported(write_tree) -> None:
    """GM644 is the tensor subclass's: torch functions given an object with `__torch_function__`
    pass it a torch function, whose hasattr traces (measured on torch 2.13: `torch.add(Box(t), 1)`
    with this override, built in the frame or held in a global, compiles whole). Even with every
    public method a root, the override is not reached, so not reported."""
    root = write_tree(BOX_TREE)
    result = check([str(root / "boxes")], Config(scope="library"))
    assert not result.errors
    assert [f.code for f in result.findings if f.code == "GM644"] == []
