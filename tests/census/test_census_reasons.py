"""Every recorded break says the underlying reason and its graph-break id (issue 28.4).

A break Dynamo cannot resume from (inside a `with` block or a `try`) is logged with a wrapper
reason, "Failed to handle graph break gracefully. Skipping the function and falling back to eager.
Graph break encountered:", followed by the break that caused it. The census records the latter,
measured live with Dynamo on a small project file.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from graphmend_bot.census.dynamo import Tree, explain_breaks, gb_id_of  # noqa: E402

SOURCE = """\
import contextlib


@contextlib.contextmanager
def ctx():
    yield


def in_context(x):
    with ctx():
        print("in context")  # break: in a context manager
        return x + 1


def in_try(x):
    try:
        print("in try")  # break: in a try block
        return x + 1
    except ValueError:
        return x


class Solver:
    def __init__(self, y):
        self.y = y

    def integrate(self):
        print("step")  # break: in the method
        return self.y * 2


def solve(x):  # torchdiffeq's odeint.py:80: a method of an object built in the frame
    solver = Solver(x)
    return solver.integrate() + 1  # break: a method of a local object
"""


@contextlib.contextmanager
def project_module(root: Path) -> Iterator[object]:
    (root / "wrapped.py").write_text(SOURCE)
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module("wrapped")
    finally:
        sys.path.remove(str(root))
        sys.modules.pop("wrapped", None)


def line_of(marker: str) -> int:
    return next(i for i, text in enumerate(SOURCE.splitlines(), 1) if marker in text)


BUILTIN = ("Failed to trace builtin operator", "GB0059")


@pytest.mark.parametrize(("name", "expected"), [
    ("in_context", [("# break: in a context manager", *BUILTIN)]),
    ("in_try", [("# break: in a try block", *BUILTIN)]),
    ("solve", [("# break: in the method", *BUILTIN),
               ("# break: a method of a local object", "Reconstruction failure", "GB0092")]),
])
def test_a_break_dynamo_cannot_resume_from_records_the_underlying_reason_and_id(
        tmp_path: Path, name: str, expected: list[tuple[str, str, str]], capsys: pytest.CaptureFixture[str]) -> None:
    with project_module(tmp_path) as module:
        explained = explain_breaks(getattr(module, name), (torch.ones(2),), {}, Tree([str(tmp_path)]))
    found = sorted((b.location[1] if b.location else None, b.reason, b.gb_id) for b in explained.breaks)
    assert found == sorted((line_of(marker), reason, gb_id) for marker, reason, gb_id in expected)


def test_a_graph_break_type_maps_to_its_registry_id() -> None:
    assert gb_id_of("Failed to trace builtin operator") == "GB0059"
    assert gb_id_of("Data-dependent branching") == "GB0170"
    assert gb_id_of("not a graph break type") == ""
