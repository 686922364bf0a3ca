"""A 0-d index tensor breaks the graph at its first read in a frame, not at each read.

Measured with the census on torch 2.13 (tests/test_index_reads.py): `grid[j]` with `j = i + 1`, a
0-d tensor the graph built, breaks with GB0033 (`aten._local_scalar_dense`); Dynamo then resumes in
a new frame where `j` is an input, and indexing with a 0-d input traces (`grid[j]`, `m[j, j]`,
`m[:, j] = v` later in the same function do not break; a forward argument used as an index never
does). So a read of `name` as an index element is its frame's first only when no earlier statement
on the way to it (one that always runs before it: an earlier statement of the same block or of an
enclosing one, not one inside another statement's arms) already indexed with `name`, unless `name`
was bound anew in between. `x[j + 1]` builds a new tensor each time and breaks each time.
"""

from __future__ import annotations

import ast

Function = ast.FunctionDef | ast.AsyncFunctionDef
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def read_before(function: Function, subscript: ast.Subscript, name: str) -> bool:
    """An earlier statement that always runs before `subscript`'s indexes a value with `name` itself
    as an index element, and none between binds `name`."""
    path = _statement_path(function.body, subscript)
    if path is None:
        return False
    seen = False
    for level, (block, statement) in enumerate(path):
        for earlier in block[: block.index(statement)]:
            if any(_stores(node, name) for node in _own_nodes(earlier)):
                seen = False
            elif not _compound(earlier) and any(_indexes_with(node, name) for node in _own_nodes(earlier)):
                seen = True
        # a compound statement on the way that binds `name` (`for i in idx:`) makes it new again
        if level < len(path) - 1 and any(_stores(node, name) for node in _own_nodes(statement)):
            seen = False
    return seen


def _statement_path(body: list[ast.stmt], target: ast.AST) -> list[tuple[list[ast.stmt], ast.stmt]] | None:
    """The (block, statement) pairs from `body` down to the statement holding `target`."""
    for statement in body:
        if not any(node is target for node in _own_nodes(statement)):
            continue
        for block in _blocks(statement):
            deeper = _statement_path(block, target)
            if deeper is not None:
                return [(body, statement), *deeper]
        return [(body, statement)]
    return None


def _blocks(statement: ast.stmt) -> list[list[ast.stmt]]:
    """The statement lists a compound statement holds: arms, loop bodies, handlers, cases."""
    blocks = [getattr(statement, field, None) or [] for field in ("body", "orelse", "finalbody")]
    blocks += [handler.body for handler in getattr(statement, "handlers", [])]
    blocks += [case.body for case in getattr(statement, "cases", [])]
    return [block for block in blocks if block and isinstance(block[0], ast.stmt)]


def _compound(statement: ast.stmt) -> bool:
    return isinstance(statement, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try,
                                  ast.Match, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))


def _stores(node: ast.AST, name: str) -> bool:
    """`node` binds `name` (an assignment's, a loop's, a `with`'s or a walrus's target), or makes it global."""
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return name in node.names
    return isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, (ast.Store, ast.Del))


def _indexes_with(node: ast.AST, name: str) -> bool:
    if not isinstance(node, ast.Subscript):
        return False
    elements = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    return any(isinstance(element, ast.Name) and element.id == name for element in elements)


def _own_nodes(root: ast.AST) -> list[ast.AST]:
    """`root` and the nodes under it, not those of nested functions, lambdas or classes."""
    nodes, pending = [], [root]
    while pending:
        node = pending.pop()
        nodes.append(node)
        pending.extend(child for child in ast.iter_child_nodes(node) if not isinstance(child, _SCOPES))
    return nodes
