"""`dependencies` in the config: breaks inside an installed package, reported at the call line.

The fixture is a fake installed package (tests/fixtures/dependency/site/fakedep, put on sys.path
here) and a project calling it (tests/fixtures/dependency/project). TorchDynamo is the ground
truth: the project's innermost frame on each break's stack is the line that must be reported.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from test_rule_fixtures import expected

from graphmend_bot.config import Config, ConfigError, parse_config
from graphmend_bot.engine import Workspace, check

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "dependency"
SITE = FIXTURE / "site"
PROJECT = FIXTURE / "project"
MODEL = PROJECT / "fakeproject" / "model.py"
# Values of fakedep's LinOp class known only by annotations: properties, methods and operators.
TYPED = PROJECT / "fakeproject" / "typed.py"
# Values of fakedep's `...Tensor` classes known by annotations: a plain class and a tensor subclass.
COMPLEX = PROJECT / "fakeproject" / "complex_ops.py"
# Keyword arguments fakedep's `Lazy.__init__` sorts: values that are not Python constants.
KEYWORDS = PROJECT / "fakeproject" / "keywords.py"
# Dynamo breaks at every line the project's fixtures mark (none is a known miss).
KNOWN_MISSES: set[int] = set()


@pytest.fixture
def installed(monkeypatch: pytest.MonkeyPatch) -> None:
    """fakedep importable (findable) as an installed package would be."""
    monkeypatch.syspath_prepend(str(SITE))


def findings(config: Config, path: Path = MODEL) -> list[tuple[int, str, str]]:
    result = check([str(PROJECT)], config, jobs=1)
    assert not result.errors, result.errors
    return [(f.location.row, f.code, f.message) for f in result.findings if Path(f.path).name == path.name]


def test_calls_that_break_inside_the_dependency_are_reported_at_the_call(installed: None) -> None:
    found = findings(Config(dependencies=["fakedep"]))
    assert {(row, code) for row, code, _ in found} == expected(MODEL)
    messages = {row: message for row, _, message in found}
    assert messages[17] == (
        "breaks inside fakedep.ops.branching (fakedep/ops.py:9): `if` condition depends on tensor values"
    )
    # through a helper inside the dependency: the finding quoted is the helper's
    assert messages[18].startswith("breaks inside fakedep.ops._inner (fakedep/ops.py:15): ")
    assert messages[11].startswith("breaks inside fakedep.ops.Operator.__init__ (fakedep/ops.py:43)")
    # the construction of a class whose `super().__init__` breaks inside is a break of its own
    assert messages[35] == f"constructing Wrapped breaks: its `super().__init__` {messages[11]}"


def test_the_break_quoted_is_one_every_call_meets(installed: None) -> None:
    """`fakedep.integrate.solve` reaches a warning on a misspelt option (nearer) and branching's `if` (on
    every call, where Dynamo breaks: GM608's rule fixture): the call is quoted with the `if`, and
    is not said to break only on a rare branch."""
    fixture = Path(__file__).resolve().parent / "fixtures" / "rules" / "GM608_break_inside_dependency.py"
    result = check([str(fixture)], Config(dependencies=["fakedep"]), jobs=1)
    (finding,) = [f for f in result.findings if "solve(" in f.source_line]
    assert finding.message.startswith("breaks inside fakedep.ops.branching (fakedep/ops.py:9): `if` condition")
    assert not finding.rare


def test_values_a_dependency_sorts_by_keyword_break_unless_python_constants(installed: None) -> None:
    """`sorted(kwargs.items())` in fakedep's `Lazy.__init__`: a tensor, the instance, or a parameter
    that receives one, passed by keyword directly or forwarded through an in-tree `__init__` or a
    dependency subclass, is reported at the call; constants, functions and `sorted(kwargs)` are not."""
    found = findings(Config(dependencies=["fakedep"]), KEYWORDS)
    assert {(row, code) for row, code, _ in found} == expected(KEYWORDS)
    messages = {row: message for row, _, message in found}
    sort = "breaks inside fakedep.linop.Lazy.__init__ (fakedep/linop.py:57): it sorts its keyword arguments, and "
    assert messages[15] == sort + "`kernel=` here is a parameter a caller gives an object, a tensor or a " \
        "tensor size, not a Python constant Dynamo can sort"  # forwarded to the sort
    assert messages[22].startswith(sort + "`kernel=` here is an object (the instance)")  # the construction
    assert messages[29].startswith(sort + "`weight=` here is a tensor")
    assert messages[30].startswith(sort + "`diag_shape=` here is a tensor")  # through ConstantDiag.__init__
    assert messages[36].startswith(sort + "`kernel=` here is a parameter")  # a caller passes `self`
    assert messages[67].startswith(sort + "`diag_shape=` here is a tensor size (a SymInt once Dynamo recompiles")
    assert messages[68].startswith(sort + "`rows=` here is a tensor size")
    assert {message.partition(": ")[0] for message in messages.values()} == {"breaks inside fakedep.linop.Lazy.__init__ (fakedep/linop.py:57)"}


def test_keyword_facts_are_recorded_only_with_dependencies(installed: None) -> None:
    workspace = Workspace([str(PROJECT)], Config(dependencies=[]), jobs=1)
    functions = [f for m in workspace.summaries.values() for f in m.functions.values()]
    assert all(not f.passed_names and not f.sorts_keyword_items for f in functions)
    workspace = Workspace([str(PROJECT)], Config(dependencies=["fakedep"]), jobs=1)
    sorts = {(m.module, q) for m in workspace.dependency_summaries for q, f in m.functions.items() if f.sorts_keyword_items}
    # not KeysOnly's sorted(kwargs), nor `unsorted`, whose `sorted` is a local binding
    assert sorts == {("fakedep.linop", "Lazy.__init__"), ("fakedep.ops", "scaled")}


def test_values_of_a_dependency_class_reach_its_methods_properties_and_operators(installed: None) -> None:
    """`covar: LinOp` (a parameter), `d.covariance` (a property `-> LinOp`), `covar.evaluate()`
    (a method `-> LinOp`) are LinOps: a property read,
    a method call and `+` on them run LinOp's functions, and each break there is reported at the
    line; the traceable ones (`clean`, `dense`) are not."""
    found = findings(Config(dependencies=["fakedep"]), TYPED)
    assert {(row, code) for row, code, _ in found} == expected(TYPED)
    messages = {row: message for row, _, message in found}
    assert messages[29].startswith("breaks inside fakedep.linop.LinOp.shape (fakedep/linop.py:19)")  # via batch_shape
    assert messages[32].startswith("breaks inside fakedep.linop.LinOp.logdet ")
    assert messages[47].startswith("breaks inside fakedep.linop.LinOp.__add__ ")
    assert messages[48].startswith("breaks inside fakedep.linop.LinOp.logdet ")


@pytest.mark.parametrize(
    ("path", "known_misses"), [(MODEL, KNOWN_MISSES), (TYPED, set()), (KEYWORDS, set()), (COMPLEX, set())],
    ids=["calls", "typed", "keywords", "complex"]
)
def test_every_dynamo_break_in_the_project_is_found(installed: None, path: Path, known_misses: set[int]) -> None:
    torch = pytest.importorskip("torch")
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    from ground_truth import Tree, dynamo_breaks, normalise
    from test_dynamo_ground_truth import load

    tree = Tree([str(PROJECT)])
    breaks: set[int] = set()
    for fn, args in load(path).dynamo_cases():
        explained = dynamo_breaks(fn, tuple(args), {}, tree)
        breaks |= {line for file, line in explained.lines if file == normalise(str(path))}
    torch._dynamo.reset()
    found = {row for row, _, _ in findings(Config(dependencies=["auto"]), path)}  # `auto` finds fakedep
    assert breaks >= known_misses, "Dynamo no longer breaks there: drop it from KNOWN_MISSES"
    assert breaks - known_misses <= found, f"Dynamo breaks at {sorted(breaks - found)}, not reported"
    assert found <= breaks, f"reported at {sorted(found - breaks)}, where Dynamo does not break"


def test_an_empty_list_reads_no_dependency(installed: None) -> None:
    workspace = Workspace([str(PROJECT)], Config(dependencies=[]), jobs=1)
    assert workspace.dependency_summaries == []
    assert all(not f.dependency_call_drafts for m in workspace.summaries.values() for f in m.functions.values())
    assert workspace.result().findings == []


def test_the_dependency_is_read_not_imported(installed: None) -> None:
    for config in (Config(dependencies=["fakedep"]), Config(dependencies=["auto"])):
        for name in [name for name in sys.modules if name == "fakedep" or name.startswith("fakedep.")]:
            del sys.modules[name]
        workspace = Workspace([str(PROJECT)], config, jobs=1)
        assert {m.module for m in workspace.dependency_summaries} == {
            "fakedep", "fakedep.ops", "fakedep.linop", "fakedep.cplx"}
        assert not any(name == "fakedep" or name.startswith("fakedep.") for name in sys.modules)


def test_a_dependency_that_is_not_installed_is_a_clear_error_and_the_run_goes_on(installed: None) -> None:
    result = check([str(PROJECT)], Config(dependencies=["no_such_package_here", "fakedep"]), jobs=1)
    assert [(e.path, e.message) for e in result.errors] == [
        ("no_such_package_here", "dependency not installed (or has no Python source): skipped")
    ]
    assert {(f.location.row, f.code) for f in result.findings if Path(f.path).name == MODEL.name} == expected(MODEL)


def test_auto_finds_the_installed_torch_library(installed: None) -> None:
    """fakedep's distribution requires torch (site/fakedep-0.1.dist-info): with `auto` it is read,
    and the calls that break inside it are reported as when it is named; torch itself, the
    project's own package and the standard library are not candidates. Without the key nothing is
    read (auto is opt-in)."""
    assert Config().dependencies == parse_config({}).dependencies == []
    assert Workspace([str(PROJECT)], Config(), jobs=1).packages == []
    workspace = Workspace([str(PROJECT)], Config(dependencies=["auto"]), jobs=1)
    assert workspace.packages == ["fakedep"]
    assert findings(Config(dependencies=["auto"])) == findings(Config(dependencies=["fakedep"]))
    assert findings(Config(dependencies=["auto", "fakedep"])) == findings(Config(dependencies=["fakedep"]))


def test_auto_reads_nothing_outside_a_confined_workspace(installed: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The GitHub review bot confines reads to the checked-out workspace (files.confine_reads):
    an installed torch library lies outside it, so auto finds none there, and says nothing."""
    from graphmend_bot.analysis.files import READ_ROOT_VARIABLE

    monkeypatch.setenv(READ_ROOT_VARIABLE, str(PROJECT.resolve()))
    result = check([str(PROJECT)], Config(dependencies=["auto"]), jobs=1)
    assert not result.errors
    assert not [f for f in result.findings if f.code == "GM608"]


def _library(site: Path, name: str, metadata: str | None, init: str) -> None:
    (site / name).mkdir(parents=True)
    (site / name / "__init__.py").write_text(init)
    if metadata is not None:
        (site / f"{name}-1.0.dist-info").mkdir()
        (site / f"{name}-1.0.dist-info" / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n{metadata}")


BRANCHING = "def gate(x):\n    if x.sum() > 0:\n        return x\n    return -x\n"


@pytest.mark.parametrize(("metadata", "init", "read"), [
    ("Requires-Dist: torch (>=1.8)\n", BRANCHING, True),
    (None, "import torch\n" + BRANCHING, True),  # no distribution found: its source imports torch
    ("Requires-Dist: numpy\n", "import torch\n" + BRANCHING, False),  # numpy-like: not a torch library
    ("Requires-Dist: torch; extra == \"torch\"\n", BRANCHING, False),  # torch only as an option
    ("Requires-Dist: torchvision\n", BRANCHING, False),
    (None, BRANCHING, False),
], ids=["requires-torch", "imports-torch", "requires-numpy", "torch-extra", "torchvision-only", "no-torch"])
def test_auto_reads_only_torch_libraries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, metadata: str | None,
                                         init: str, read: bool) -> None:
    site, project = tmp_path / "site", tmp_path / "proj"
    _library(site, "plainlib", metadata, init)
    project.mkdir()
    (project / "model.py").write_text(
        "import torch\nimport os\nfrom plainlib import gate\n\n\nclass M(torch.nn.Module):\n"
        "    def forward(self, x):\n        return gate(x) + 1\n")
    monkeypatch.syspath_prepend(str(site))
    workspace = Workspace([str(project)], Config(dependencies=["auto"]), jobs=1)
    assert workspace.packages == (["plainlib"] if read else [])
    assert bool(workspace.dependency_summaries) == read
    assert [(f.location.row, f.code) for f in workspace.result().findings] == ([(8, "GM608")] if read else [])


def test_a_break_only_on_a_warning_branch_inside_is_not_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """stable_baselines3's `if smallest_dimension == 1: warnings.warn(...)` reached from sb3_contrib's
    calls: the call meets no break (the wild corpus measured none there), so none is reported."""
    site, project = tmp_path / "site", tmp_path / "proj"
    _library(site, "plainlib", "Requires-Dist: torch\n",
             "import warnings\n\n\ndef gate(x, mode='a'):\n    if mode not in ('a', 'b'):\n"
             "        warnings.warn('unknown mode')\n    return x * 2\n")
    project.mkdir()
    (project / "model.py").write_text(
        "import torch\nfrom plainlib import gate\n\n\nclass M(torch.nn.Module):\n"
        "    def forward(self, x):\n        return gate(x) + 1\n")
    monkeypatch.syspath_prepend(str(site))
    workspace = Workspace([str(project)], Config(dependencies=["auto"]), jobs=1)
    assert workspace.packages == ["plainlib"]
    assert workspace.result().findings == []


def test_auto_never_reads_the_checked_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A folder without `__init__.py` checked from inside, whose modules import it by name
    (pytorch_tabnet's installed tree): the package holding it is the project, not a dependency."""
    site = tmp_path / "site"
    _library(site, "nslib", "Requires-Dist: torch\n", "")
    (site / "nslib" / "__init__.py").unlink()  # a namespace package: its modules are named alone
    (site / "nslib" / "ops.py").write_text(BRANCHING)
    (site / "nslib" / "model.py").write_text(
        "import torch\nfrom nslib.ops import gate\n\n\nclass M(torch.nn.Module):\n"
        "    def forward(self, x):\n        return gate(x) + 1\n")
    monkeypatch.syspath_prepend(str(site))
    assert Workspace([str(site / "nslib")], Config(dependencies=["auto"]), jobs=1).packages == []


def test_the_config_key_takes_top_level_package_names() -> None:
    assert parse_config({"dependencies": ["linear_operator"]}).dependencies == ["linear_operator"]
    assert parse_config({"dependencies": []}).dependencies == []
    assert parse_config({"dependencies": "auto"}).dependencies == ["auto"]
    assert parse_config({"dependencies": "linear_operator"}).dependencies == ["linear_operator"]
    for bad in (["linear_operator.operators"], ["../etc"], [3]):
        with pytest.raises(ConfigError, match="dependencies"):
            parse_config({"dependencies": bad})


def test_a_dependency_module_that_does_not_parse_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site, project = tmp_path / "site", tmp_path / "project"
    (site / "brokendep").mkdir(parents=True)
    (site / "brokendep" / "__init__.py").write_text("from brokendep.bad import helper\n", encoding="utf-8")
    (site / "brokendep" / "bad.py").write_text("def helper(x:\n", encoding="utf-8")
    project.mkdir()
    (project / "model.py").write_text(
        "from torch import nn\nfrom brokendep import helper\n\n\nclass M(nn.Module):\n"
        "    def forward(self, x):\n        if x.sum() > 0:\n            x = x - 1\n        return helper(x)\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(site))
    result = check([str(project)], Config(dependencies=["brokendep"]), jobs=1)
    assert [(e.path, e.message) for e in result.errors] == [
        ("brokendep/bad.py", "dependency module skipped: syntax error, line 1")
    ]
    assert [(f.location.row, f.code) for f in result.findings] == [(7, "GM101")]  # the tree's own findings stand


def test_a_dependency_class_named_like_a_tensor_is_an_object(installed: None) -> None:
    """`spec: ComplexTensor` of a dependency: its class, not a tensor type, so `spec * t` is an
    object in a tensor operator (GM623); a dependency's torch.Tensor subclass is none."""
    found = findings(Config(dependencies=["fakedep"]), COMPLEX)
    assert {(row, code) for row, code, _ in found} == expected(COMPLEX)
    # `matmul`'s `a @ b` under `isinstance(a, ...) and isinstance(b, ...)`: at the call passing two
    # objects, not at `weighted`'s, which passes a tensor first (its arm traces)
    (message,) = [message for _, code, message in found if code == "GM608"]
    assert message.startswith("breaks inside fakedep.cplx.matmul (fakedep/cplx.py:42): `@` on an object")
    assert findings(Config(dependencies=[]), COMPLEX) == []  # no dependency read: the annotation stays a tensor type
