"""Imports between graphmend_bot's packages run one way: rules -> vocabulary <- analysis.

The rule this enforces, read from every import statement in the sources (function-level and
`TYPE_CHECKING` imports included, since a cycle there is still a cycle to the reader):

- `graphmend_bot.vocabulary` imports nothing of graphmend_bot but itself: it is the bottom.
- `graphmend_bot.rules` imports only itself, the vocabulary and the leaf modules `findings` and
  `fences`: a rule never reaches into the analysis, the rewrites or the reports; it names its fix
  strategies by string and the rewrite package resolves them. The one exception is a fix kept in
  the rule's own module, which may import `graphmend_bot.rewrite` inside its function or for type
  checking (loaded only when fixing, as every strategy is).
- `graphmend_bot.analysis` imports rules only through the registry, the package
  `graphmend_bot.rules` itself, never a rule module, `rules.detect` or `rules.rule`.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "graphmend_bot"
RULES_MAY_IMPORT = ("graphmend_bot.rules", "graphmend_bot.vocabulary", "graphmend_bot.findings", "graphmend_bot.fences")


def imported_modules(package: str, deferred: bool = True) -> list[tuple[str, str]]:
    """(file, module) for every graphmend_bot module that a file of `package` imports; without
    `deferred`, only the imports that run when the file is imported (not in a function, not under
    `if TYPE_CHECKING:`)."""
    found: list[tuple[str, str]] = []
    for path in sorted((PACKAGE / package).rglob("*.py")):
        name = str(path.relative_to(PACKAGE.parent))
        for node in statements(ast.parse(path.read_text(), name), deferred):
            if isinstance(node, ast.Import):
                found.extend((name, alias.name) for alias in node.names if alias.name.startswith("graphmend_bot"))
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("graphmend_bot"):
                assert node.module is not None
                found.extend((name, submodule_or_module(node.module, alias.name)) for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level:
                raise AssertionError(f"{name}: relative import (the project uses absolute ones)")
    return found


def statements(tree: ast.Module, deferred: bool) -> list[ast.AST]:
    """Every node of `tree`, or (without `deferred`) those outside functions and TYPE_CHECKING blocks."""
    if deferred:
        return list(ast.walk(tree))
    pending: list[ast.AST] = [tree]
    nodes: list[ast.AST] = []
    while pending:
        node = pending.pop()
        nodes.append(node)
        for child in ast.iter_child_nodes(node):
            type_checking = isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test)
            if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) and not type_checking:
                pending.append(child)
    return nodes


def submodule_or_module(module: str, imported: str) -> str:
    """`from graphmend_bot.rules import detect` imports the module rules.detect; `import Rule`, the package."""
    folder = PACKAGE.parent.joinpath(*module.split("."), imported)
    return f"{module}.{imported}" if folder.with_suffix(".py").exists() or folder.is_dir() else module


def within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def test_the_vocabulary_imports_nothing_above_it() -> None:
    upward = [(file, module) for file, module in imported_modules("vocabulary")
              if not within(module, "graphmend_bot.vocabulary")]
    assert upward == []


def test_rules_import_only_the_vocabulary_and_leaf_modules() -> None:
    upward = [(file, module) for file, module in imported_modules("rules", deferred=False)
              if not any(within(module, allowed) for allowed in RULES_MAY_IMPORT)]
    assert upward == []


def test_a_fix_in_a_rule_module_may_load_only_the_rewrites_when_it_runs() -> None:
    deferred = [(file, module) for file, module in imported_modules("rules")
                if not any(within(module, allowed) for allowed in (*RULES_MAY_IMPORT, "graphmend_bot.rewrite"))]
    assert deferred == []


def test_analysis_imports_rules_only_through_the_registry() -> None:
    around = [(file, module) for file, module in imported_modules("analysis")
              if within(module, "graphmend_bot.rules") and module != "graphmend_bot.rules"]
    assert around == []


def test_the_checker_sees_imports_of_modules_and_of_names() -> None:
    """The scan itself: a rule module imported by name counts as that module."""
    analysis = dict.fromkeys(module for _, module in imported_modules("analysis"))
    assert "graphmend_bot.rules" in analysis
    assert "graphmend_bot.vocabulary.kind" in analysis
    # text.py loads the registry inside a function: deferred, and seen only when asked for
    assert ("graphmend_bot/report/text.py", "graphmend_bot.rules") in imported_modules("report")
    assert ("graphmend_bot/report/text.py", "graphmend_bot.rules") not in imported_modules("report", deferred=False)
