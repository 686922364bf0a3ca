"""The traversal of one function body is split by job (issue 26): one layer per module, each a
subclass of the one below, importing only the layers below it, none too long to hold in one's
head. Also the `x is None` narrowing the statement layer takes from narrowing.py."""

from __future__ import annotations

import ast
from pathlib import Path

from graphmend_bot.analysis import narrowing
from graphmend_bot.analysis.function import FunctionAnalyzer
from graphmend_bot.vocabulary.kind import NOT_TENSOR, Kind

ANALYSIS = Path(__file__).resolve().parent.parent / "graphmend_bot" / "analysis"
# Bottom to top, as function_state.py lists them.
LAYERS = (
    ("function_state", "FunctionState"),
    ("function_reporting", "FindingReporter"),
    ("function_objects", "ObjectTracker"),
    ("function_sorts", "SortChecker"),
    ("function_calls", "CallResolver"),
    ("function_expressions", "ExpressionEvaluator"),
    ("function_statements", "StatementVisitor"),
    ("function", "FunctionAnalyzer"),
)
MOST_LINES = 400


def test_the_analyzer_is_the_layers_in_their_documented_order() -> None:
    mro = [(cls.__module__.rpartition(".")[2], cls.__name__) for cls in FunctionAnalyzer.__mro__[:-1]]
    assert mro == list(reversed(LAYERS))


def test_each_layer_imports_only_the_layers_below_it() -> None:
    modules = [module for module, _ in LAYERS]
    upward = []
    for level, module in enumerate(modules):
        tree = ast.parse((ANALYSIS / f"{module}.py").read_text())
        imported = {node.module.rpartition(".")[2] for node in ast.walk(tree)
                    if isinstance(node, ast.ImportFrom) and node.module}
        imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                     and node.module == "graphmend_bot.analysis" for alias in node.names}
        upward += [(module, other) for other in modules[level:] if other in imported]
    assert upward == []


def test_no_layer_is_too_long_to_read_at_once() -> None:
    lengths = {module: len((ANALYSIS / f"{module}.py").read_text().splitlines()) for module, _ in LAYERS}
    assert {module: n for module, n in lengths.items() if n > MOST_LINES} == {}
    assert sum(lengths.values()) > 1_000  # the whole traversal is here, not elsewhere


def test_none_test_names_the_parameter_and_the_arm_where_it_is_none() -> None:
    def test_of(source: str) -> ast.expr:
        return ast.parse(source, mode="eval").body

    assert narrowing.none_test(test_of("mask is None")) == ("mask", True)
    assert narrowing.none_test(test_of("mask is not None")) == ("mask", False)
    assert narrowing.none_test(test_of("mask == None")) is None
    assert narrowing.none_test(test_of("None is mask")) is None
    assert narrowing.none_test(test_of("self.mask is None")) is None
    assert narrowing.none_test(test_of("a is None is b")) is None


def test_narrow_to_none_clears_what_derives_from_the_parameter() -> None:
    env = {"mask": Kind.of_param("mask"), "scaled": Kind.of_param("mask") | Kind.of_param("x"),
           "x": Kind.of_param("x")}
    narrowing.narrow_to_none(env, "mask")
    assert env == {"mask": NOT_TENSOR, "scaled": Kind.of_param("x"), "x": Kind.of_param("x")}
