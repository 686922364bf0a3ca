"""Calls into installed third-party packages Dynamo does not trace (GM650, GM651, GM652).

The skip list is generated from the pinned torch (benchmarks/third_party_skips.py) and must stay in
step. Compiled callees are found by reading an installed package's files: here a stand-in package
in a `site-packages` folder under tmp_path, with "extension modules" that are only files holding
the marks a compiler leaves, shows how re-exports and star imports are followed, and that nothing
is imported. The real packages (tqdm, yaml._yaml, regex._regex, pywt) are measured under Dynamo
in tests/coverage_probes/ and tests/fixtures/rules/GM65*.
"""

from __future__ import annotations

import importlib.machinery
import sys
import textwrap
from pathlib import Path

import pytest

from graphmend_bot.analysis import installed_packages, installed_wrappers
from graphmend_bot.analysis.files import READ_ROOT_VARIABLE
from graphmend_bot.analysis.installed_packages import extension_callee
from graphmend_bot.analysis.installed_wrappers import compiled_call_inside
from graphmend_bot.vocabulary.compiled_code import CompiledModule
from graphmend_bot.vocabulary.third_party_skips import HANDLED_PACKAGES, SKIPPED_PACKAGES

pytest.importorskip("torch")

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from sample_modules import graphmend_findings
from third_party_skips import build

SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


def test_skip_list_is_the_pinned_torchs() -> None:
    _, skipped, handled = build()
    assert (set(skipped), set(handled)) == (SKIPPED_PACKAGES, HANDLED_PACKAGES), "run benchmarks/third_party_skips.py"
    assert "numpy" in HANDLED_PACKAGES and "numpy" not in SKIPPED_PACKAGES


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A `site-packages` folder on sys.path holding the stand-in package `fakecy`."""
    root = tmp_path / "site-packages"
    package = root / "fakecy"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text(textwrap.dedent("""\
        from ._core import *
        from ._pyfuncs import *
        from .sub import Helper as Exported
        try:
            from ._fast import speedy
        except ImportError:
            def speedy():
                return 0
        """))
    (package / "_core").with_name("_core" + SUFFIX).write_bytes(b"\0cython_function_or_method\0")
    (package / "_pyfuncs.py").write_text("def python_function():\n    return 1\n\nConstant = 3\n")
    (package / "sub" / "__init__.py").write_text("from ._impl import Helper\n")
    (package / "sub" / "_impl").with_name("_impl" + SUFFIX).write_bytes(b"\0plain C\0")
    (package / "_fast").with_name("_fast" + SUFFIX).write_bytes(b"\0plain C\0")
    (package / "_rusty").with_name("_rusty" + SUFFIX).write_bytes(b"\0pyo3 runtime\0")
    (package / "_mypyc").with_name("_mypyc" + SUFFIX).write_bytes(b"\0plain C\0")
    (package / "_mypyc.py").write_text("def compiled_here():\n    return 1\n")
    monkeypatch.syspath_prepend(str(root))
    _forget_lookups()
    yield root
    _forget_lookups()


@pytest.fixture
def python_recursion_limit():
    """`deep`'s 800-term expression is left unjudged by the RecursionError its walk meets at Python's
    default limit (1000); a Dynamo compile earlier in the same process raises the limit to 2000
    (eval_frame), and the walk then succeeds, so the two tests reading `deep` pin the default."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    yield
    sys.setrecursionlimit(limit)


def _forget_lookups() -> None:
    installed_packages.forget()
    installed_wrappers.forget()


def test_star_import_from_a_compiled_module(site: Path) -> None:
    """`fakecy.Wavelet`: no Python module star-imported binds it, so it comes from `_core`."""
    assert extension_callee("fakecy.Wavelet") == CompiledModule("fakecy._core", True)


def test_python_binding_wins_over_a_compiled_star(site: Path) -> None:
    assert extension_callee("fakecy.python_function") is None
    assert extension_callee("fakecy.Constant") is None


def test_re_export_followed_to_a_c_module(site: Path) -> None:
    assert extension_callee("fakecy.Exported") == CompiledModule("fakecy.sub._impl", False)


def test_a_python_fallback_beside_a_compiled_import_is_not_judged(site: Path) -> None:
    """`try: from ._fast import speedy / except ImportError: def speedy()`: either may run."""
    assert extension_callee("fakecy.speedy") is None


def test_compiled_module_wins_over_the_py_beside_it(site: Path) -> None:
    assert extension_callee("fakecy._mypyc.compiled_here") == CompiledModule("fakecy._mypyc", False)


def test_unmeasured_bindings_are_not_judged(site: Path) -> None:
    assert extension_callee("fakecy._rusty.Thing") is None


def test_nothing_is_imported(site: Path) -> None:
    extension_callee("fakecy.Wavelet")
    assert "fakecy" not in sys.modules


def test_a_package_outside_site_packages_is_not_third_party(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A module of the checked tree (found on sys.path, not installed) is never judged."""
    (tmp_path / "localext").mkdir()
    (tmp_path / "localext" / "__init__.py").write_text("from ._core import *\n")
    (tmp_path / "localext" / "_core").with_name("_core" + SUFFIX).write_bytes(b"cython_function_or_method")
    monkeypatch.syspath_prepend(str(tmp_path))
    installed_packages.forget()
    assert extension_callee("localext.Thing") is None


@pytest.mark.parametrize("name", ["numpy.sqrt", "torch.sum", "os.getcwd", "math.sqrt"])
def test_packages_dynamo_handles_are_never_judged(name: str) -> None:
    assert extension_callee(name) is None


WRAPPERS = textwrap.dedent('''\
    import torch

    from ._core import transform as _transform, Modes


    def always(n, mode):
        """Every call runs `Modes.from_object` first, then `_transform`."""
        n = int(n)
        return _transform(n, Modes.from_object(mode))


    def early_return(n, mode):
        if mode is None:
            return n
        return _transform(n, mode)


    def in_branch(n, flag):
        if flag:
            _transform(n)
        return n


    def deferred(n):
        return lambda: _transform(n)


    def python_only(n):
        return int(n)


    @torch.library.custom_op("fakecy::op", mutates_args=())
    def custom_op(n):
        """A custom op around compiled code: Dynamo puts it in the graph whole."""
        return _transform(n, Modes.from_object(n))


    def rebound(n, mode):
        return _transform(n, Modes.from_object(mode))


    rebound = torch.compiler.allow_in_graph(rebound)

    def deep(n):
        return _transform(n, Modes.from_object(n)) + 1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1
    ''')


def test_a_python_wrapper_calling_compiled_code_on_every_path(site: Path, python_recursion_limit: None) -> None:
    """installed_wrappers.py: only the statements every call runs; the first call Python makes."""
    (site / "fakecy" / "wrappers.py").write_text(WRAPPERS)
    assert compiled_call_inside("fakecy.wrappers.always") == ("fakecy._core.Modes.from_object",
                                                               CompiledModule("fakecy._core", True))
    for name in ("early_return", "in_branch", "deferred", "python_only", "missing", "custom_op", "rebound", "deep"):
        assert compiled_call_inside(f"fakecy.wrappers.{name}") is None, name
    assert compiled_call_inside("fakecy.Wavelet") is None  # compiled itself: GM651's first question
    assert "fakecy" not in sys.modules


def test_a_python_wrapper_call_is_reported_where_it_always_breaks(
    site: Path, tmp_path: Path, python_recursion_limit: None
) -> None:
    (site / "fakecy" / "wrappers.py").write_text(WRAPPERS)
    source = textwrap.dedent("""\
        import torch
        from fakecy import wrappers


        class Model(torch.nn.Module):
            def forward(self, x):
                n = wrappers.always(x.shape[0], "zero")
                m = wrappers.early_return(n, None) + wrappers.python_only(n)
                k = wrappers.deep(n) + wrappers.custom_op(n)
                print(k)
                return x + n + m
        """)
    # The 800-term expression of `deep` is not judged, and the caller's own print still is.
    assert set(graphmend_findings(source, tmp_path)) == {(7, "GM651", "GB0156"), (10, "GM401", "GB0059")}


def test_calls_reported_in_a_traced_function(site: Path, tmp_path: Path) -> None:
    source = textwrap.dedent("""\
        import fakecy
        import torch


        class Model(torch.nn.Module):
            def forward(self, x):
                w = fakecy.Wavelet("db2")
                n = len(w)
                m = fakecy.python_function()
                return x + n + m
        """)
    found = {(line, code, gb) for line, code, gb in graphmend_findings(source, tmp_path)}
    assert found == {(7, "GM651", "GB0156"), (8, "GM652", "GB6012")}


def test_len_is_judged_only_of_an_object_built_on_every_path(site: Path, tmp_path: Path) -> None:
    """GM652 needs every path to give the compiled object: a helper that builds one only on some
    paths (and returns its argument or None on the others) or a local built under an `if` may hold
    what the caller passed, whose len Dynamo takes; a helper that raises on its other path counts."""
    source = textwrap.dedent("""\
        import fakecy
        import torch


        def maybe(name):
            if name:
                return fakecy.Wavelet(name)


        def passed_through(w):
            if isinstance(w, str):
                return fakecy.Wavelet(w)
            return w


        def strict(name):
            if not name:
                raise ValueError(name)
            return fakecy.Wavelet(name)


        class Model(torch.nn.Module):
            def forward(self, x, name):
                a = len(maybe(name))
                b = len(passed_through((1, 2)))
                c = len(strict(name))
                w = (1, 2)
                if name:
                    w = fakecy.Wavelet(name)
                return x + a + b + c + len(w)
        """)
    assert {line for line, code, _ in graphmend_findings(source, tmp_path) if code == "GM652"} == {26}


def test_a_class_is_told_from_a_function_through_aliases(site: Path) -> None:
    """A method call counts (GM650) only on an object a class built: `tqdm = asyncio_tqdm` aliases one."""
    (site / "fakecy" / "bars.py").write_text(textwrap.dedent("""\
        from ._pyfuncs import python_function
        class Bar:
            pass
        if Bar:
            class Fancy(Bar):
                pass
        else:
            Fancy = Bar
        make = python_function
        """))
    assert installed_packages.python_class("fakecy.bars.Bar")
    assert installed_packages.python_class("fakecy.bars.Fancy")
    assert not installed_packages.python_class("fakecy.bars.make")
    assert not installed_packages.python_class("fakecy.python_function")


def test_the_checked_packages_own_modules_are_not_read_again(site: Path) -> None:
    """A module of the package being checked calling into its own modules: the scope solver
    follows those, and reading the package's files once more per call would double the work."""
    from graphmend_bot.config import Config
    from graphmend_bot.engine import check

    user = site / "fakecy" / "user.py"
    user.write_text(textwrap.dedent("""\
        import torch
        from ._core import Wavelet


        class Model(torch.nn.Module):
            def forward(self, x):
                return x + len(Wavelet("db2").name)
        """))
    result = check([str(user)], Config(), jobs=1)
    assert not result.errors
    assert [f.code for f in result.findings if f.code.startswith("GM65")] == []


def test_star_import_cycles_are_searched_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Modules that all star-import each other (a hostile or odd package): asked for a name none
    binds, each module is looked in a bounded number of times, not once per path through the
    cycles (which was exponential: 5 such modules took minutes), and the compiled module they
    star-import is still found."""
    root = tmp_path / "site-packages"
    package = root / "starcycle"
    package.mkdir(parents=True)
    modules = [f"m{i}" for i in range(12)]
    stars = "".join(f"from .{name} import *\n" for name in modules)
    (package / "__init__.py").write_text(stars)
    for name in modules:
        (package / f"{name}.py").write_text(stars + ("from ._c import *\n" if name == "m11" else ""))
    (package / "_c").with_name("_c" + SUFFIX).write_bytes(b"\0cython_function_or_method\0")
    monkeypatch.syspath_prepend(str(root))
    _forget_lookups()
    looked_up: list[str] = []
    module_file = installed_packages._module_file

    def counted(locations: list[Path], module: str) -> Path | None:
        looked_up.append(module)
        assert len(looked_up) < 5000, "the star imports are searched once per path through them"
        return module_file(locations, module)

    monkeypatch.setattr(installed_packages, "_module_file", counted)
    assert extension_callee("starcycle.unbound") == CompiledModule("starcycle._c", True)
    assert not installed_packages.python_class("starcycle.unbound")
    assert len(looked_up) < 50 * len(modules)
    looked_up.clear()
    assert installed_packages.python_definition("starcycle.unbound") is None  # GM651's question
    assert compiled_call_inside("starcycle.unbound") is None
    assert len(looked_up) < 50 * len(modules)
    _forget_lookups()


def test_an_extension_linked_outside_the_read_root_is_not_read(
    site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A compiled module that is a symlink out of the workspace is never opened, as read_source
    never opens such a Python file: the bot confines reads to the checked-out tree."""
    outside = tmp_path / "outside" / "secret.so"
    outside.parent.mkdir()
    outside.write_bytes(b"\0cython_function_or_method\0")
    (site / "fakecy" / "_core").with_name("_core" + SUFFIX).unlink()
    (site / "fakecy" / "_core").with_name("_core" + SUFFIX).symlink_to(outside)
    monkeypatch.setenv(READ_ROOT_VARIABLE, str(site))
    assert extension_callee("fakecy.Wavelet") is None
    monkeypatch.delenv(READ_ROOT_VARIABLE)
    assert extension_callee("fakecy.Wavelet") == CompiledModule("fakecy._core", True)  # read without a root


def test_the_bot_reads_no_installed_package(site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The review bot confines reads to the workspace (GRAPHMEND_READ_ROOT): an installed package
    lies outside it, so GM650-GM652 are never judged there (docs/github-action.md says so)."""
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    monkeypatch.setenv(READ_ROOT_VARIABLE, str(workspace))
    assert installed_packages.installed_package("fakecy") == []
    assert extension_callee("fakecy.Wavelet") is None
