"""A public method Dynamo skips when the library's own `__call__` enters it eagerly, and traces when
it is compiled itself: the library scope enters it as the package runs it (eager_entries.py).

torchio's `RandomAffine.apply_transform(self, subject: Subject)` runs `.tolist()` on the tensors its
`get_params` returns (random_affine.py:183-185). The wild benchmark calls the transform, so
`Transform.__call__` gives up at `with np.errstate(...)` and enters `apply_transform` eagerly; its
frame holds nothing tensor-related (a plain object and a `dict` subclass, no `torch` global read),
Dynamo skips it, and the lines run with no break: three findings on executed lines the truth does not
confirm. Compiled itself (`torch.compile(transform.apply_transform)`), the same method breaks there.
Every public method is a root of the library scope, but one another root calls (the package's own
hook, which users reach through `transform(subject)`) is entered through that call, so its findings
go as they do in the model scope, whose only root is `__call__`; declared as an entry point, it is
compiled itself and they stand. Measured here on the installed torch.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from graphmend_bot.config import Config
from graphmend_bot.engine import check

torch = pytest.importorskip("torch")
pytest.importorskip("numpy")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from ground_truth import Tree, dynamo_breaks  # noqa: E402

TRANSFORMS = '''\
import numpy as np
import torch


class Box(dict):
    """A dict subclass, which Dynamo's frame test does not look into (torchio's Subject)."""


class Transform:
    def __call__(self, box: Box) -> Box:
        with np.errstate(all="raise"):
            out = self.apply_transform(box)
        return out

    def params(self) -> torch.Tensor:
        return torch.rand(3, dtype=torch.float64)

    def apply_transform(self, box: Box) -> Box:
        values = [float(v) for v in self.params().tolist()]
        box["scale"] = values[0]
        return box
'''
WITH, TOLIST = 11, 19


@pytest.fixture
def package(tmp_path: Path):  # type: ignore[no-untyped-def]
    root = tmp_path / "eagerpkg"
    root.mkdir()
    (root / "__init__.py").write_text("from .transforms import Box, Transform\n\n__all__ = ['Box', 'Transform']\n")
    (root / "transforms.py").write_text(TRANSFORMS)
    sys.path.insert(0, str(tmp_path))
    try:
        yield root, importlib.import_module("eagerpkg")
    finally:
        sys.path.remove(str(tmp_path))
        for name in [n for n in sys.modules if n == "eagerpkg" or n.startswith("eagerpkg.")]:
            del sys.modules[name]


def _rows(fn: object, args: tuple[object, ...], root: Path) -> set[int]:
    explained = dynamo_breaks(fn, args, {}, Tree([str(root)]))  # type: ignore[arg-type]
    return {line for file, line in explained.lines if file.endswith("transforms.py")}


def test_entered_eagerly_the_method_runs_with_no_break_and_compiled_itself_it_breaks(package) -> None:  # type: ignore[no-untyped-def]
    root, module = package
    transform = module.Transform()
    assert _rows(transform, (module.Box(image=1),), root) == {WITH}
    assert _rows(transform.apply_transform, (module.Box(image=1),), root) == {TOLIST}


def test_the_library_scope_enters_the_public_method_as_its_own_call_does(package) -> None:  # type: ignore[no-untyped-def]
    root, _ = package

    def rows(scope: str, entry_points: tuple[str, ...] = ()) -> set[tuple[int, str]]:
        result = check([str(root)], Config(scope=scope, entry_points=list(entry_points)), jobs=1)
        assert not result.errors, result.errors
        return {(f.location.row, f.code) for f in result.findings if f.path.endswith("transforms.py")}

    # `apply_transform`, a public method `__call__` runs, is entered as `__call__` enters it: eagerly, and skipped
    assert rows("library") == {(WITH, "GM612")}
    # `__call__` the only root (as declared): the skipped frame's line is dropped (eager_entries.py)
    assert rows("model", ("eagerpkg.transforms:Transform.__call__",)) == {(WITH, "GM612")}
    # declared, `apply_transform` is compiled itself: it breaks at `.tolist()`
    assert rows("model", ("eagerpkg.transforms:Transform.apply_transform",)) == {(TOLIST, "GM303")}
