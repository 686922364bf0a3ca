"""An entry point a package re-exports (`from .impl import solve` in its __init__) is censused when
called through the re-export too: the census wraps every project module's binding of it, and puts
every one back after the run. (Found on the wild benchmark: `torchdiffeq.odeint` is
`torchdiffeq._impl.odeint.odeint`, and users call the former.)"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from graphmend_bot.census.dynamo import Tree  # noqa: E402
from graphmend_bot.census.recorder import Recorder  # noqa: E402

IMPL = """\
def solve(x):
    total = x.sum()
    print("total", total.item())  # break: print
    return total * 2
"""


@pytest.fixture
def package(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "reexporting"
    folder.mkdir()
    (folder / "__init__.py").write_text("from .impl import solve as solve_it\n")
    (folder / "impl.py").write_text(IMPL)
    sys.path.insert(0, str(tmp_path))
    try:
        yield tmp_path
    finally:
        sys.path.remove(str(tmp_path))
        for name in [n for n in sys.modules if n == "reexporting" or n.startswith("reexporting.")]:
            del sys.modules[name]


def test_a_reexported_entry_point_is_censused_and_restored(package: Path) -> None:
    recorder = Recorder(package, Tree([str(package)]))
    assert recorder.wrap_entry_point("reexporting.impl:solve") == ""
    reexporting = importlib.import_module("reexporting")
    wrapped = sys.modules["reexporting.impl"].solve
    assert hasattr(wrapped, "__wrapped__") and reexporting.solve_it is wrapped  # both bindings wrapped

    recorder.current_test = "tests/test_x.py::test_solve"
    result = reexporting.solve_it(torch.ones(3))  # called through the re-export only
    assert result.item() == 6.0  # the real call's result

    census = recorder.finish()
    assert [(b.path, b.line, b.test) for b in census.breaks] == [
        ("reexporting/impl.py", 3, "tests/test_x.py::test_solve")]
    assert census.ran("reexporting/impl.py", 4)
    recorder.uninstall()
    assert reexporting.solve_it is sys.modules["reexporting.impl"].solve
    assert not hasattr(reexporting.solve_it, "__wrapped__")
