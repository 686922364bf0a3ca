"""Each rule's documentation runs: its example is reported with that rule, its "use instead" is
not, and where the rule has fixes, fixing the example removes the finding and TorchDynamo breaks
on it less (like Fixit's VALID/INVALID examples, so the docs cannot drift from the detector).

A snippet becomes the `forward` of an `nn.Module` (forward's parameters are tensors); the names
it reads but never binds become forward's parameters.
"""

from __future__ import annotations

import ast
import builtins
import importlib.util
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

from graphmend_bot.config import Config
from graphmend_bot.engine import check
from graphmend_bot.rewrite import fix_paths
from graphmend_bot.rules import RULES, Rule

torch = pytest.importorskip("torch")

PRELUDE = "import contextlib\nimport dataclasses\nimport logging\nimport time\nimport typing\nimport warnings\n\nimport pydantic\nimport torch\nfrom torch import nn\n\nlogger = logging.getLogger(__name__)\n"
MODULE_NAMES = frozenset({"contextlib", "dataclasses", "pydantic", "logging", "time", "typing", "warnings", "torch", "nn", "logger", "self"})


def _free_names(snippet: str, defined: frozenset[str] = frozenset()) -> list[str]:
    tree = ast.parse(snippet)
    bound = defined | {
        node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
    }
    names: list[str] = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Name)
            and isinstance(node.ctx, ast.Load)
            and node.id not in bound | MODULE_NAMES
            and not hasattr(builtins, node.id)
            and node.id not in names
        ):
            names.append(node.id)
    return names


def _module_level(node: ast.stmt) -> bool:
    """A leading import, class definition or upper-case constant (`ORDER = itertools.cycle(...)`)."""
    if isinstance(node, ast.Assign):
        return all(isinstance(target, ast.Name) and target.id.isupper() for target in node.targets)
    return isinstance(node, (ast.ClassDef, ast.Import, ast.ImportFrom))


def _hoist_classes(snippet: str) -> tuple[str, str]:
    """Split the snippet's leading imports, class definitions and upper-case constants (module
    level: `from tqdm import tqdm` for a third-party package) from the statements after them; and the
    functions before a `def forward(` too (a module's helper, which forward calls)."""
    tree = ast.parse(snippet)
    helpers = any(isinstance(node, ast.FunctionDef) and node.name == "forward" for node in tree.body)
    classes = [node for node in tree.body if _module_level(node) or (
        helpers and isinstance(node, ast.FunctionDef) and node.name != "forward")]
    if not classes or tree.body[: len(classes)] != classes:
        return "", snippet
    lines = snippet.splitlines()
    split = classes[-1].end_lineno or 0
    return "\n".join(lines[:split]) + "\n", "\n".join(lines[split:]).strip("\n")


def _class_names(source: str) -> list[str]:
    """The names the hoisted part binds: its classes and what it imports."""
    if not source:
        return []
    body = ast.parse(source).body
    imported = [(a.asname or a.name).partition(".")[0] for n in body if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names]
    constants = [t.id for n in body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)]
    return [node.name for node in body if isinstance(node, ast.ClassDef)] + imported + constants


def as_module(snippet: str) -> tuple[str, list[str]]:
    """The snippet as a module with a traced `M.forward`, and forward's parameter names. Class
    definitions at the start of the snippet are placed at module level, before `M`; a snippet that
    is only classes, one of them `M` (a rule about the compiled module's own attributes, GM657),
    is the whole module."""
    classes, snippet = _hoist_classes(textwrap.dedent(snippet).strip("\n"))
    if not snippet and "M" in _class_names(classes):
        model = next(n for n in ast.parse(classes).body if isinstance(n, ast.ClassDef) and n.name == "M")
        forward = next(n for n in model.body if isinstance(n, ast.FunctionDef) and n.name == "forward")
        return f"{PRELUDE}\n\n{classes}", [a.arg for a in forward.args.args[1:]]
    if snippet.startswith("def forward("):
        header = ast.parse(snippet).body[0]
        assert isinstance(header, ast.FunctionDef)
        params = [a.arg for a in header.args.args[1:]]
        body = textwrap.indent(snippet, "    ")
    else:
        params = _free_names(snippet, frozenset(_class_names(classes))) or ["x"]
        # Tensor work before and after the snippet, so that Dynamo has graphs to split.
        before = f"warmup = {params[0]} * 1"
        code = "\n".join([before, snippet, f"return {params[0]} + warmup"])
        body = f"    def forward(self{''.join(', ' + p for p in params)}):\n" + textwrap.indent(code, "        ")
    return f"{PRELUDE}\n\n{classes}\n\nclass M(nn.Module):\n{body}\n", params


# Rules whose example needs a configuration: GM608 calls into the fake installed package of
# tests/fixtures/dependency (its site/ folder is put on sys.path for these rules).
DEPENDENCY_SITE = Path(__file__).resolve().parent / "fixtures" / "dependency" / "site"
CONFIGS = {"GM608": Config(dependencies=["fakedep"])}


def codes_in(path: Path, config: Config | None = None) -> list[str]:
    result = check([str(path)], config, jobs=1)
    assert not result.errors, result.errors
    return [finding.code for finding in result.findings]


def load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def dynamo_breaks(path: Path, name: str, params: list[str]) -> int:
    torch._dynamo.reset()
    model = load(path, name).M()
    inputs = [torch.rand(4) + 0.5 for _ in params]
    return int(torch._dynamo.explain(model.forward)(*inputs).graph_break_count)


IDS = [rule.code for rule in RULES]


@pytest.mark.parametrize("rule", RULES, ids=IDS)
def test_documented_example_is_reported_with_its_rule(
    rule: Rule, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(DEPENDENCY_SITE))
    source, _ = as_module(rule.example)
    path = tmp_path / "example.py"
    path.write_text(source, encoding="utf-8")
    assert rule.code in codes_in(path, CONFIGS.get(rule.code)), source


@pytest.mark.parametrize("rule", RULES, ids=IDS)
def test_documented_use_instead_is_not_reported(
    rule: Rule, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(DEPENDENCY_SITE))
    source, _ = as_module(rule.use_instead)
    path = tmp_path / "use_instead.py"
    path.write_text(source, encoding="utf-8")
    assert rule.code not in codes_in(path, CONFIGS.get(rule.code)), source


FIXABLE = [rule for rule in RULES if rule.fixes]
# Rules with fixes whose documented example is not one the fixes can prove safe, and why.
EXAMPLE_NOT_FIXED = {
    "GM103": "`flag` is a parameter of unknown type, neither provably a tensor nor a Python bool",
    "GM105": "the example keeps the Python bool as a value; the fix lowers only validation guards (GM201)",
    "GM302": "`n` is never used with the tensor it came from, so keeping it a tensor is not provably the same",
    # GM5xx's fix runs a module-level helper eagerly; the examples sit in a module's forward, which
    # is what is compiled (disabling it would hide every break, not remove one).
    "GM501": "the example is in a forward method, not a module-level helper, and takes every match, not the first",
    "GM502": "the example is in a forward method, not a module-level helper",
    "GM503": "the example is in a forward method, not a module-level helper",
    # GM6xx's fix marks a cached loader; the examples are I/O a compiled function does for its caller.
    "GM601": "the example saves activations from traced code, not in a cached loader",
    "GM602": "the example writes a log from traced code, not in a cached loader",
    "GM604": "the example times the model in traced code, not in a cached loader",
}


@pytest.mark.parametrize("rule", FIXABLE, ids=[rule.code for rule in FIXABLE])
def test_fixing_the_documented_example_removes_the_break(rule: Rule, tmp_path: Path) -> None:
    source, params = as_module(rule.example)
    before = tmp_path / f"example_{rule.code.lower()}.py"
    before.write_text(source, encoding="utf-8")
    changes = fix_paths([str(before)], Config(), unsafe=True, jobs=1)
    if rule.code in EXAMPLE_NOT_FIXED:
        assert changes == [], "the example is fixable now: drop it from EXAMPLE_NOT_FIXED"
        return
    assert len(changes) == 1, source
    after = tmp_path / f"fixed_{rule.code.lower()}.py"
    after.write_text(changes[0].after, encoding="utf-8")
    assert rule.code not in codes_in(after), changes[0].after
    assert dynamo_breaks(after, f"fixed_{rule.code.lower()}", params) < dynamo_breaks(
        before, f"example_{rule.code.lower()}", params
    ), changes[0].after
