"""Functions only ever entered from code running eagerly, which Dynamo then skips (eager_entries.py).

The fixture's truth is measured here on the installed torch, then compared with what graphmend
reports: the callees of the `with numpy.errstate(...)` body that hold nothing tensor-related, and a
`@contextlib.contextmanager` generator they enter, break nowhere, and are not reported; the callees
handed a tensor or an nn.Module, or naming `torch`, break and stay reported.
"""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path

import pytest

from graphmend_bot.analysis.eager_entries import SELF, entry_classes, tensor_modules, with_tails
from graphmend_bot.engine import check

torch = pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from ground_truth import Tree, dynamo_breaks  # noqa: E402
from test_rule_fixtures import expected  # noqa: E402

FIXTURES = sorted((Path(__file__).resolve().parent / "fixtures" / "eager_entries").glob("*.py"))


def _load(path: Path) -> object:
    """The fixture as a module Dynamo can import its globals from (it looks the module up by name)."""
    name = f"gm_eager_entries_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda path: path.stem)
def test_dynamo_breaks_exactly_on_the_marked_lines(fixture: Path) -> None:
    broken: set[int] = set()
    for fn, args in _load(fixture).dynamo_cases():  # type: ignore[attr-defined]
        explained = dynamo_breaks(fn, tuple(args), {}, Tree([str(fixture)]))
        broken |= {line for file, line in explained.lines if file.endswith(fixture.name)}
    assert broken == {row for row, _ in expected(fixture)}


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda path: path.stem)
def test_graphmend_reports_exactly_the_marked_lines(fixture: Path) -> None:
    result = check([str(fixture)], None, jobs=1)
    assert not result.errors, result.errors
    # once each: a read in a loop body (conditional_read's Looped) was reported twice on main
    assert sorted((f.location.row, f.code) for f in result.findings) == sorted(expected(fixture))


def _entry(
    source: str, is_method: bool = False, imported: dict[str, str] | None = None
) -> tuple[str, ...] | None:
    node = ast.parse(source).body[0]
    assert isinstance(node, ast.FunctionDef)
    return entry_classes(node, source, is_method, lambda expr: None, tensor_modules(imported or {}))


def test_a_frame_naming_torch_or_numpy_may_be_traced() -> None:
    torch_names = {"torch": "torch", "F": "torch.nn.functional", "np": "numpy"}
    assert _entry("def f(n: int):\n    return torch.ones(n)", imported=torch_names) is None
    assert _entry("def f(n: int):\n    return F.relu(n)", imported=torch_names) is None
    assert _entry("def f(n: int):\n    return np.ones(n)", imported=torch_names) is None
    # a comprehension's own frame names it, not the function's (its first iterable excepted)
    assert _entry("def f(n: int):\n    return [torch.ones(i) for i in range(n)]", imported=torch_names) == ()
    assert _entry("def f(n: int):\n    return [i for i in torch.arange(n)]", imported=torch_names) is None
    assert (
        _entry('def f(n: int):\n    """Like torch.ones."""\n    return n  # not np', imported=torch_names)
        == ()
    )


def test_a_parameter_that_may_hold_a_tensor_keeps_the_frame_traced() -> None:
    assert _entry("def f(x):\n    return x") is None
    assert _entry("def f(*xs: int):\n    return xs") is None
    assert _entry("def f(**options: int):\n    return options") is None
    assert _entry("def f(xs: list[int]):\n    return xs") is None
    assert (
        _entry("def f(n: int, name: str | None = None, scale: Optional[float] = None):\n    return n") == ()
    )


def test_a_method_and_its_annotated_classes_are_left_to_the_solver() -> None:
    assert _entry("def f(self, subject: Subject) -> None:\n    subject.check()", is_method=True) == (
        SELF,
        "Subject",
    )


def test_a_generator_is_never_traced_from_eager_code() -> None:
    assert (
        _entry("def f(x):\n    state = torch.get_rng_state()\n    yield\n", imported={"torch": "torch"}) == ()
    )


def test_with_tails_cover_the_rest_of_the_block() -> None:
    node = ast.parse(
        "def f(x):\n"
        "    a = 1\n"
        "    with (\n"
        "        open(x)\n"
        "    ):\n"
        "        b = 2\n"
        "    c = 3\n"
        "    if a:\n"
        "        with open(x):\n"
        "            d = 4\n"
        "    e = 5\n"
    ).body[0]
    assert isinstance(node, ast.FunctionDef)
    assert sorted(with_tails(node, ast.unparse(node))) == [(3, 5, 11), (9, 9, 10)]


def test_a_nested_function_reading_its_enclosing_names_may_be_traced() -> None:
    outer = ast.parse("def outer(x):\n    y = x * 2\n    def show():\n        print(y)\n").body[0]
    assert isinstance(outer, ast.FunctionDef)
    show = outer.body[1]
    assert isinstance(show, ast.FunctionDef)
    source = ast.unparse(show)
    assert entry_classes(show, source, False, lambda expr: None, None, (outer,)) is None
    # its own local of the same name shadows the enclosing one: nothing captured
    shadowing = ast.parse("def show():\n    y = 1\n    print(y)\n").body[0]
    assert isinstance(shadowing, ast.FunctionDef)
    assert entry_classes(shadowing, ast.unparse(shadowing), False, lambda expr: None, None, (outer,)) == ()
