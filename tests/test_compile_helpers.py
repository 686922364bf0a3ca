"""What a package compiles through its own helpers is traced code (analysis/compile_helpers.py).

heavyball's `@decorator_knowngood` wraps a kernel in a closure calling `fusions.compile(func)`,
which calls `torch.compile(fn, ...)`; `decorator_no_fullgraph` delegates to it; its optimizer
compiles a bound method, `self._run_chain = utils.fusions.compile(self._run_chain)`. Each spelling
is measured here: the package's own calls, run plainly (what they compile is Dynamo's to trace),
break exactly on the `# break` lines, and `graphmend check` reports exactly those lines. A decorator whose wrapper only calls the function
(`@keep`) and a method never handed to a helper (`Opt._eager`) stay eager and unreported."""

from __future__ import annotations

import importlib
import sys
import warnings
from pathlib import Path

import pytest

from graphmend_bot.analysis.scope import Program
from graphmend_bot.config import Config
from graphmend_bot.engine import Workspace, check

torch = pytest.importorskip("torch")

from graphmend_bot.census.dynamo import Tree, graph_break_log, mapped_breaks, normalise  # noqa: E402

HELPERS_TREE = {
    "hpkg/__init__.py": "",
    "hpkg/fusions.py": """
        import torch


        def compile(fn, **kwargs):
            return torch.compile(fn, backend="eager", **kwargs)
    """,
    "hpkg/utils.py": """
        import functools

        import torch

        from . import fusions


        def decorator_knowngood(func, fullgraph=False):
            compiled = None

            @functools.wraps(func)
            def _fn(*args, **kwargs):
                if torch.compiler.is_compiling():
                    return func(*args, **kwargs)
                nonlocal compiled
                if compiled is None:
                    compiled = fusions.compile(func, fullgraph=fullgraph)
                return compiled(*args, **kwargs)

            return _fn


        def decorator_no_fullgraph(func):
            return decorator_knowngood(func, fullgraph=False)


        def jit(mode=None):
            def wrap(fn):
                return torch.compile(fn, backend="eager", mode=mode)

            return wrap


        def keep(func):
            def inner(*args):
                return func(*args)

            return inner


        @decorator_knowngood
        def scale(x):
            print("scale")  # break
            return x * 2


        @decorator_no_fullgraph
        def shift(x):
            return x + helper(x)


        def helper(x):
            return x * x.sum().item()  # break


        @jit(mode=None)
        def offset(x):
            print("offset")  # break
            return x - 1


        @keep
        def plain(x):
            print("plain")
            return x


        def later(x):
            print("later")  # break
            return x


        later_compiled = fusions.compile(later)


        class Opt:
            def __init__(self):
                self._run = fusions.compile(self._run)
                self._direct = torch.compile(self._direct, backend="eager")

            def _run(self, x):
                print("run")  # break
                return x + 1

            def _direct(self, x):
                print("direct")  # break
                return x + 2

            def _eager(self, x):
                print("eager")
                return x

            def step(self, x):
                return self._run(x) + self._direct(x) + self._eager(x)


        def everything(x):
            return scale(x) + shift(x) + offset(x) + plain(x) + later_compiled(x) + Opt().step(x)
    """,
}


def _marked(path: Path) -> set[int]:
    return {row for row, line in enumerate(path.read_text().splitlines(), 1) if line.endswith("# break")}


def _logged_break_lines(root: Path) -> set[int]:
    """The lines of hpkg/utils.py Dynamo's graph-break log names while `everything` runs plainly:
    only what the package's helpers compile is traced."""
    path = root / "hpkg" / "utils.py"
    sys.path.insert(0, str(root))
    try:
        everything = importlib.import_module("hpkg.utils").everything
        torch._dynamo.reset()
        with warnings.catch_warnings(), graph_break_log() as log:
            warnings.simplefilter("ignore")
            everything(torch.ones(3))
        torch._dynamo.reset()
    finally:
        sys.path.remove(str(root))
        for name in [name for name in sys.modules if name.split(".")[0] == "hpkg"]:
            del sys.modules[name]
    explained = mapped_breaks(0, 0, [], log.messages, Tree([str(root / "hpkg")]))
    return {line for file, line in explained.lines if file == normalise(str(path))}


def test_what_a_package_compiles_through_its_helpers_breaks_where_marked(write_tree) -> None:
    root = write_tree(HELPERS_TREE)
    broken = _logged_break_lines(root)
    assert broken == _marked(root / "hpkg" / "utils.py"), f"Dynamo broke on {sorted(broken)}"


def test_what_a_package_compiles_through_its_helpers_is_reported(write_tree) -> None:
    """In the model scope, whose roots are what is compiled: `auto`'s public-api scope would also
    root the public `everything`, which reaches `plain` and `Opt._eager` run eagerly here."""
    root = write_tree(HELPERS_TREE)
    result = check([str(root / "hpkg")], Config(scope="model"))
    assert not result.errors
    assert {f.location.row for f in result.findings if f.path.endswith("utils.py")} == _marked(
        root / "hpkg" / "utils.py"
    )


def test_the_helpers_and_their_roots(write_tree) -> None:
    root = write_tree(HELPERS_TREE)
    program = Program(Workspace([str(root / "hpkg")], Config(), jobs=1).summaries.values(), scope="model")
    assert program.helper_compiled_roots() == {
        ("hpkg.utils", name) for name in ("scale", "shift", "offset", "later", "Opt._run", "Opt._direct")
    }
    traced = program.traced_functions()
    assert ("hpkg.utils", "helper") in traced
    assert not {("hpkg.utils", "plain"), ("hpkg.utils", "Opt._eager"), ("hpkg.utils", "everything")} & traced
