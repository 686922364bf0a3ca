"""local_nodes: ast.walk's nodes and order, less nested scopes, contexts and operators."""

from __future__ import annotations

import ast

from graphmend_bot.analysis.local_nodes import SCOPES, every_node, local_nodes

SOURCE = '''
def f(x, k=None):
    y = x + 1 if k is None else x[k]
    for i, (a, b) in enumerate(pairs):
        with ctx(mode=k) as (c, d):
            z = [w * 2 for w in b if (n := w) > 0]
            del c
    def inner(q=default_value):
        return q
    g = lambda t: t.sum()
    class Local:
        attribute = 1
    match y:
        case [first, *rest]:
            pass
    return f"{y!r:>{k}}", {**kw}, not b
'''


def expected(body: list[ast.stmt]) -> list[ast.AST]:
    """The walk spelled out: ast.iter_child_nodes breadth-first, not entering nested scopes."""
    found: list[ast.AST] = []
    pending: list[ast.AST] = list(body)
    while pending:
        node = pending.pop(0)
        if isinstance(node, SCOPES):
            continue
        pending.extend(ast.iter_child_nodes(node))
        if not isinstance(node, (ast.expr_context, ast.operator, ast.unaryop, ast.boolop, ast.cmpop)):
            found.append(node)
    return found


def test_local_nodes_is_the_breadth_first_walk_outside_nested_scopes() -> None:
    function = ast.parse(SOURCE).body[0]
    assert isinstance(function, ast.FunctionDef)
    nodes = local_nodes(function.body)
    assert nodes == expected(function.body)
    kinds = {type(node) for node in nodes}
    assert {ast.NamedExpr, ast.comprehension, ast.withitem, ast.match_case, ast.MatchStar,
            ast.FormattedValue, ast.keyword, ast.Delete} <= kinds
    assert not kinds & {ast.FunctionDef, ast.Lambda, ast.ClassDef, ast.Load, ast.Store, ast.Add}
    names = {node.id for node in nodes if isinstance(node, ast.Name)}
    assert "default_value" not in names and "t" not in names  # inside the nested def / lambda


def test_every_node_is_ast_walk_less_contexts_and_operators_nested_scopes_included() -> None:
    tree = ast.parse(SOURCE)
    walked = [
        node
        for node in ast.walk(tree)
        if not isinstance(node, (ast.expr_context, ast.operator, ast.unaryop, ast.boolop, ast.cmpop))
    ]
    nodes = every_node(tree)
    assert nodes == walked
    names = {node.id for node in nodes if isinstance(node, ast.Name)}
    assert {"default_value", "t"} <= names  # inside the nested def / lambda
