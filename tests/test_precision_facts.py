"""Facts that keep findings off lines Dynamo does not break on, each measured on torch 2.13 with
`torch._dynamo.explain` (benchmarks/ground_truth.py), beside a line that does break and stays found."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

from graphmend_bot.analysis.modes import GRAD_ENABLED, modes_named
from graphmend_bot.engine import check

FIXTURES = Path(__file__).parent / "fixtures" / "precision"
BREAK = re.compile(r"# break$")


def _marked(fixture: Path) -> set[int]:
    return {row for row, line in enumerate(fixture.read_text(encoding="utf-8").splitlines(), 1) if BREAK.search(line)}


def _found(fixture: Path) -> set[int]:
    return {f.location.row for f in check([str(fixture)]).findings}


def _load(fixture: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"gm_precision_{fixture.stem}", fixture)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # Dynamo imports a traced function's module
    spec.loader.exec_module(module)
    return module


def _dynamo_rows(fixture: Path, build: str, *args: object) -> set[int]:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    from ground_truth import Tree, dynamo_breaks, normalise

    module = _load(fixture)
    explained = dynamo_breaks(getattr(module, build)().eval(), args, {}, Tree([str(fixture)]))
    return {b.location[1] for b in explained.breaks if b.location and b.location[0] == normalise(str(fixture))}


def test_a_field_of_an_output_class_returned_beside_a_tuple_is_read_by_position() -> None:
    """`pad` is the int element 2 of `encode`'s tuple, also returned as `EncoderOutput(frames, total,
    pad)`: unpacking the result gives `decode` an int, so `if pad > 0` is no break; `if total > 0`
    (element 1, a tensor) is."""
    fixture = FIXTURES / "output_or_tuple.py"
    assert _found(fixture) == _marked(fixture)


def test_dynamo_breaks_on_the_tensor_field_only() -> None:
    torch = pytest.importorskip("torch")
    fixture = FIXTURES / "output_or_tuple.py"
    assert _dynamo_rows(fixture, "Codec", torch.ones(2, 5)) == _marked(fixture)


def test_a_type_predicate_helper_proves_its_argument_no_tensor() -> None:
    """`is_positive_int(n)` is `is_int(n) and n > 0`, `is_int` an isinstance test: `n > 0` runs on
    Python ints only, and after `if not is_positive_int(n): raise` `n` is a Python int."""
    fixture = FIXTURES / "type_predicate.py"
    assert _found(fixture) == _marked(fixture)


def test_dynamo_breaks_on_the_tensor_test_only() -> None:
    torch = pytest.importorskip("torch")
    fixture = FIXTURES / "type_predicate.py"
    assert _dynamo_rows(fixture, "Sampler", torch.ones(2, 3), 3) == _marked(fixture)


def test_shape_dtype_and_flag_values_are_no_tensors() -> None:
    """The premises the branch rules rest on (issue 27.4): `len(x)`, `.dim()`, `.shape[i]`,
    `.size(i)`, `.numel()`, dtype, device and layout tests, sizes through helpers, tuples and
    dicts: none is a tensor, and Dynamo breaks on none of them; only `.tolist()` breaks."""
    fixture = FIXTURES / "shape_values.py"
    assert _found(fixture) == _marked(fixture)


def test_dynamo_breaks_on_no_shape_value() -> None:
    torch = pytest.importorskip("torch")
    fixture = FIXTURES / "shape_values.py"
    mask = torch.ones(2, 3, dtype=torch.bool)
    assert _dynamo_rows(fixture, "Shapes", torch.ones(2, 3), mask) == set()
    assert _dynamo_rows(fixture, "Helpers", torch.ones(2, 3), [torch.ones(2)]) == _marked(fixture)


def test_requires_grad_names_grad_mode_only_on_a_tensor_the_function_builds() -> None:
    """A parameter may be a graph input: its finding stands (the function may be inlined and given
    an intermediate) but claims no mode; one on a tensor built here says `(with grad enabled)`."""
    fixture = FIXTURES / "grad_input.py"
    messages = {f.location.row: f.message for f in check([str(fixture)]).findings}
    assert {row: modes_named(message) for row, message in messages.items()} == {10: [], 16: [GRAD_ENABLED]}


def test_explain_counts_a_break_for_requires_grad_of_a_built_tensor_only() -> None:
    torch = pytest.importorskip("torch")
    spec = importlib.util.spec_from_file_location("gm_precision_grad_input", FIXTURES / "grad_input.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    counts = {}
    for name in ("Input", "Built"):
        torch._dynamo.reset()
        with torch.enable_grad():
            counts[name] = len(torch._dynamo.explain(getattr(module, name)())(torch.ones(3)).break_reasons)
    torch._dynamo.reset()
    assert counts == {"Input": 0, "Built": 1}


def test_iterating_a_dict_gives_its_keys_not_its_values() -> None:
    """review9 #1: a loop or comprehension over a local dict of tensors gives its keys (names):
    sorting or choosing among them was reported as sorting tensors (GM618, GM627) and `int(k == "a")`
    as a read-back (GM302). Sorting the values themselves breaks, and stays found."""
    fixture = FIXTURES / "dict_keys.py"
    assert _found(fixture) == _marked(fixture)


def test_dynamo_breaks_on_the_sorted_values_only() -> None:
    torch = pytest.importorskip("torch")
    fixture = FIXTURES / "dict_keys.py"
    models = ("SortedKeys", "LongestKey", "KeysAppended", "SortedValues")
    assert set().union(*(_dynamo_rows(fixture, name, torch.ones(1)) for name in models)) == _marked(fixture)


def test_a_tuple_of_ints_hint_yields_to_tensors_but_not_to_other_elements_of_a_tuple() -> None:
    """`paddings: tuple[int, int]` is handed 0-d tensors, so `length <= max_pad` breaks; `dims:
    tuple[int, int]` is handed shape ints read from element 1 of what a stage returns, a tuple of a
    tensor, a tuple of ints and, past them, tensors appended by `+=`: `if height > 1` is no break.
    Returns of two lengths share their first elements: element 1 is an int in both."""
    fixture = FIXTURES / "tuple_hints.py"
    assert _found(fixture) == _marked(fixture)


def test_dynamo_breaks_on_the_tensor_paddings_only() -> None:
    torch = pytest.importorskip("torch")
    fixture = FIXTURES / "tuple_hints.py"
    found = set().union(*(_dynamo_rows(fixture, build, torch.ones(2, 5)) for build in ("Padder", "Model", "Splitter")))
    assert found == _marked(fixture)


def test_a_builtin_name_the_module_or_function_binds_is_no_builtin() -> None:
    """review16 #1: a module-level `def print`, `repr = ...`, `int = ...`, a `global open` bound by
    a function, a local, parameter or enclosing function's `pow`: calls of those are no builtin's,
    so no GM401/GM622/GM302/GM602/GM654 finding (and no fix). `builtins.pow`/`builtins.print` is.
    review17 #3: so is a `pow` only the `if __name__ == "__main__":` block binds (it never runs on
    import), and a parameter `pow=pow` (its default is the builtin). review17 #4: nor GM681 on a
    module's own `id`."""
    fixture = FIXTURES / "shadowed_builtins.py"
    assert _found(fixture) == _marked(fixture)


def test_dynamo_compiles_the_rebound_builtins_whole_and_breaks_on_the_builtins_module_calls() -> None:
    torch = pytest.importorskip("torch")
    fixture = FIXTURES / "shadowed_builtins.py"
    compiled = ("Printed", "AsText", "Converted", "Opened", "LocalPow", "ParameterPow", "EnclosingPow", "OwnId")
    module = _load(fixture)
    for name in compiled:
        torch._dynamo.reset()
        torch.compile(getattr(module, name)(), fullgraph=True)(torch.ones(3))  # raises on any break
    assert module.LOG == [2]  # the module's own print ran, under compile
    breaking = ("BuiltinsPow", "BuiltinsPrint", "MainBlockPow", "DefaultPow")
    rows = set().union(*(_dynamo_rows(fixture, name, torch.ones(3)) for name in breaking))
    assert rows == _marked(fixture)


def test_a_walrus_a_match_capture_a_comprehension_target_and_a_star_import_bind_builtin_names() -> None:
    """review16 #1's leftovers: `(pow := torch.pow)`, `case pow:`, `[pow(...) for pow in ...]` (only
    inside the comprehension: `pow(...)` after it is the builtin) and `from torch import *`; and the
    builtins the analysis reads itself: a local `sorted` (no GM618), `len` (no `__len__` run, so
    no GM401 in it; no size, so a clamp bound by it may broadcast: no 0-d index, no GM302), `open`
    (no eager rest of the frame: the `print` after it is found), `enumerate` (its items are not
    the list's elements: no GM101 on them), `zip` (a tuple, not the lists: no GM611)."""
    for fixture in (FIXTURES / "shadowed_builtin_scopes.py", FIXTURES / "shadowed_star_import.py"):
        assert _found(fixture) == _marked(fixture), fixture.name


def test_a_local_isinstance_proves_nothing_about_its_argument() -> None:
    """`isinstance = accepts_all` then `if isinstance(x, int):`: the arm is no proof that `x` is a
    Python int (on main it was, and the tensor comparison inside went unreported)."""
    fixture = FIXTURES / "shadowed_builtin_leftovers.py"
    assert _found(fixture) == _marked(fixture)


@pytest.mark.parametrize(("fixture", "compiled", "breaking"), [
    ("shadowed_builtin_leftovers.py", ("BuiltinIsinstance",), ("LocalIsinstance",)),
    ("shadowed_builtin_scopes.py",
     ("WalrusPow", "MatchedPow", "LocalSorted", "LocalLen", "LocalLenBound", "LocalEnumerate"),
     ("ComprehensionPow", "LocalOpen", "BuiltinLenBound", "BuiltinEnumerate", "LocalZip", "BuiltinZip")),
    ("shadowed_star_import.py", ("StarPow", "StarMax"), ("StarPrint",)),
])
def test_dynamo_traces_those_bindings_and_breaks_on_the_builtins(fixture: str, compiled: tuple[str, ...],
                                                                   breaking: tuple[str, ...]) -> None:
    torch = pytest.importorskip("torch")
    path = FIXTURES / fixture
    module = _load(path)
    for name in compiled:
        torch._dynamo.reset()
        torch.compile(getattr(module, name)(), fullgraph=True)(torch.ones(3))  # raises on any break
    rows = set().union(*(_dynamo_rows(path, name, torch.ones(3)) for name in breaking))
    assert rows == _marked(path)


def test_requires_grad_is_reported_where_the_tensor_is_read_again_and_the_flag_is_true() -> None:
    """An unused `probe.requires_grad_()` is not reported (it was on main); a used one, the returned
    `zeros_like(q).requires_grad_()` and `requires_grad_(t.requires_grad)` (true with grad enabled)
    are. So is `requires_grad_(trainable)`: Dynamo traces the fixture's call, whose flag is False,
    but a caller passing True breaks (on a graph input, GB0125, whatever reads it later)."""
    fixture = FIXTURES / "requires_grad_uses.py"
    source = fixture.read_text().splitlines()
    flag_from_caller = next(i for i, line in enumerate(source, 1) if "requires_grad_(trainable)" in line)
    assert _found(fixture) == _marked(fixture) | {flag_from_caller}


def test_dynamo_breaks_on_requires_grad_only_where_the_tensor_leaves_the_graph() -> None:
    torch = pytest.importorskip("torch")
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    from ground_truth import Tree, dynamo_breaks, normalise

    fixture = FIXTURES / "requires_grad_uses.py"
    module = _load(fixture)
    rows: set[int] = set()
    for name in ("UnusedLeaf", "UsedLeaf", "FlagFromCaller", "ReturnedLeaf", "DetachedKeepingGrad", "AliasLeaf",
                 "LoopLeaves", "HelperAlias", "MethodAlias", "ContiguousResult"):
        explained = dynamo_breaks(getattr(module, name)(), (torch.ones(3, 3),), {}, Tree([str(fixture)]), no_grad=False)
        rows |= {b.location[1] for b in explained.breaks if b.location and b.location[0] == normalise(str(fixture))}
    assert rows == _marked(fixture)


def test_a_star_import_of_a_tree_module_binds_what_it_exports() -> None:
    """`from .ops import *` binds ops' own `pow` (its `__all__`), not its `print`: no GM654 on
    `pow(x - 1, 2)` (main reported one), the `print` after it still found."""
    package = FIXTURES / "star_package"
    found = {(Path(f.path).name, f.location.row) for f in check([str(package)]).findings}
    assert found == {("model.py", row) for row in _marked(package / "model.py")}


@pytest.mark.parametrize("package", ["star_package", "star_augmented"])
def test_dynamo_traces_the_star_imported_functions_and_breaks_on_the_print(package: str) -> None:
    torch = pytest.importorskip("torch")
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    sys.path.insert(0, str(FIXTURES))
    from ground_truth import Tree, dynamo_breaks, normalise

    model = importlib.import_module(f"{package}.model")
    module = next(value for name, value in vars(model).items() if name.startswith("Star"))
    path = FIXTURES / package / "model.py"
    explained = dynamo_breaks(module(), (torch.ones(3),), {}, Tree([str(FIXTURES / package)]))
    assert {b.location[1] for b in explained.breaks if b.location and b.location[0] == normalise(str(path))} == _marked(path)


def test_a_star_import_of_an_all_grown_by_plus_equals_binds_only_its_names() -> None:
    """`__all__ = ["pow"]` then `__all__ += ["scaled"]`: the star import binds those two, not the
    module's `print` (main read the `+=` as "every public name", hiding the break on `print`)."""
    package = FIXTURES / "star_augmented"
    found = {(Path(f.path).name, f.location.row) for f in check([str(package)]).findings}
    assert found == {("model.py", row) for row in _marked(package / "model.py")}


def test_the_star_imported_module_is_among_the_files_the_summary_read() -> None:
    """A change to ops.py must redo model.py's summary: the cache keys on read_files."""
    from graphmend_bot.analysis.summary import summarize_module

    path = FIXTURES / "star_package" / "model.py"
    summary = summarize_module(path.read_text(encoding="utf-8"), str(path), "star_package.model", False)
    assert "star_package/ops.py" in {name for name, digest in summary.read_files if digest}


def test_a_web_of_star_imports_in_the_tree_is_read_once_per_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every module of a package star-importing every other (a pull request can ship one): each
    summary read b**3 files (25 such modules took minutes), now each module file once; what the
    star imports bind, and the files the summary keys on, are unchanged."""
    from graphmend_bot.analysis import star_builtins

    package = tmp_path / "web"
    package.mkdir()
    modules = [f"m{i}" for i in range(12)]
    stars = "".join(f"from .{name} import *\n" for name in modules)
    (package / "__init__.py").write_text("")
    for index, name in enumerate(modules):
        helper = "def pow(a, b):\n    return a * b\n" if index == 11 else ""
        (package / f"{name}.py").write_text(stars + helper + f"def f{index}(x):\n    return x\n")
    (package / "net.py").write_text(
        "import torch\nfrom .m0 import *\n\n\nclass Net(torch.nn.Module):\n"
        "    def forward(self, x):\n        y = pow(x - 1, 2)\n        print(y)\n        return f1(y)\n"
    )
    reads: list[str] = []
    read_source = star_builtins.read_source

    def counted(path: str) -> str:
        reads.append(path)
        assert len(reads) < 5000, "the star imports are read once per path through them"
        return read_source(path)

    monkeypatch.setattr(star_builtins, "read_source", counted)
    found = {(Path(f.path).name, f.location.row, f.code) for f in check([str(package)], jobs=1).findings}
    assert found == {("net.py", 8, "GM401")}  # `pow` is m11's (no GM654), reached through m0's star imports
    assert len(reads) <= (len(modules) + 1) * len(modules)


def test_the_rest_of_a_frame_after_a_breaking_call_in_a_loop_is_not_reported() -> None:
    """`for layer in self.layers: x = layer(x)` with a layer that prints, `while ...: x = shift(x)`
    with a helper that breaks: what follows the call in its frame is eager; before it, and in a
    frame with no loop, the tests stand; so do those where the call may not run (`Branched`: the
    loop under a flag, its `else` arm and what follows the `if`), and where the callee breaks only in
    training mode or when a flag the loop does not pass is on (`EvalLayers`, `QuietLayers`)."""
    fixture = FIXTURES / "loop_calls.py"
    assert _found(fixture) == _marked(fixture)


def test_dynamo_skips_the_frame_after_a_breaking_call_in_a_loop() -> None:
    torch = pytest.importorskip("torch")
    fixture = FIXTURES / "loop_calls.py"
    x = torch.ones(2, 3)
    builds = ("Stack", "Branched", "EvalLayers", "QuietLayers")
    breaks = {row for build in builds for row in _dynamo_rows(fixture, build, x)}
    # the layers' own prints break when they run: with the flag passed, in training mode
    breaks |= _dynamo_rows(fixture, "Verbose", x, True)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    from ground_truth import Tree, dynamo_breaks

    trained = dynamo_breaks(_load(fixture).TrainingNoisy().train(), (x,), {}, Tree([str(fixture)]))
    breaks |= {b.location[1] for b in trained.breaks if b.location}
    assert breaks == _marked(fixture)
