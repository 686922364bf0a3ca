"""The nodes of a function body outside its nested scopes, fast: what several per-function scans read.

`ast.iter_child_nodes` goes through `ast.iter_fields`, a generator per node that reads every
field, names and numbers included; walking each function's body that way twice (function
aliases, scalar arguments) cost a third of summarising transformers' files. This walk reads only
the fields that can hold nodes and leaves out the context and operator nodes (`Load`, `Add`,
`Eq`): they carry nothing a scan looks for.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator

# Nested scopes: their bodies run in frames of their own (a lambda's and a nested def's
# defaults and decorators are left out with them, as the scans always did).
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_SCOPE_TYPES = frozenset(SCOPES)

# Fields that never hold a node worth visiting: names and numbers, contexts and operators.
_LEAF_FIELDS = frozenset({
    "id", "attr", "arg", "name", "module", "level", "kind", "type_comment", "conversion", "is_async",
    "ctx", "op", "ops", "rest", "tag", "kwd_attrs",
})
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {ast.Constant: ()}  # a Constant's value is no node


def _child_fields(node_type: type) -> tuple[str, ...]:
    fields = _CHILD_FIELDS.get(node_type)
    if fields is None:
        fields = _CHILD_FIELDS[node_type] = tuple(f for f in node_type._fields if f not in _LEAF_FIELDS)  # type: ignore[attr-defined]
    return fields


def local_nodes(body: Iterable[ast.AST]) -> list[ast.AST]:
    """Every node of `body` outside nested scopes (and not the scopes themselves), breadth-first,
    each node's children in field order: `ast.walk`'s order, less contexts and operators."""
    nodes = [node for node in body if type(node) not in _SCOPE_TYPES]
    for node in nodes:  # the list grows while it is read: breadth-first
        for field in _child_fields(type(node)):
            value = getattr(node, field, None)
            if isinstance(value, list):
                nodes.extend(item for item in value if isinstance(item, ast.AST) and type(item) not in _SCOPE_TYPES)
            elif isinstance(value, ast.AST) and type(value) not in _SCOPE_TYPES:
                nodes.append(value)
    return nodes


def every_node(root: ast.AST) -> list[ast.AST]:
    """`ast.walk(root)` as a list, nested scopes included and in its order, less the context and
    operator nodes: for scans that look for neither (walking each node's fields by generator, as
    `ast.walk` does, cost about 3% of summarising transformers' models/)."""
    nodes = [root]
    for node in nodes:  # the list grows while it is read: breadth-first
        for field in _child_fields(type(node)):
            value = getattr(node, field, None)
            if isinstance(value, list):
                nodes.extend(item for item in value if isinstance(item, ast.AST))
            elif isinstance(value, ast.AST):
                nodes.append(value)
    return nodes


def child_nodes(node: ast.AST) -> list[ast.AST]:
    """`ast.iter_child_nodes(node)` as a list, in its order, less the context and operator nodes:
    for walks that look for neither (its generator reads every field of every node)."""
    found: list[ast.AST] = []
    for field in _child_fields(type(node)):
        value = getattr(node, field, None)
        if isinstance(value, list):
            found.extend(item for item in value if isinstance(item, ast.AST))
        elif isinstance(value, ast.AST):
            found.append(value)
    return found


def local_statements(body: Iterable[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of `body` and of the blocks inside it (branches, loops, `with`, `try`,
    `match` cases), not entering nested functions and classes: where an assignment can be."""
    pending: list[ast.AST] = list(body)
    while pending:
        node = pending.pop()
        node_type = type(node)
        if node_type in _SCOPE_TYPES:
            continue
        if isinstance(node, ast.stmt):
            yield node
        for field in _block_fields(node_type):
            block = getattr(node, field, None)
            if isinstance(block, list):
                pending.extend(block)


def fields_present(wanted: tuple[str, ...]) -> Callable[[type], tuple[str, ...]]:
    """Per node type, the fields of `wanted` it has, in that order (cached): most statements
    (assignments, calls) have none of the block fields, and asking each for all of them with
    getattr was half of a statement walk's time."""
    cache: dict[type, tuple[str, ...]] = {}

    def fields_of(node_type: type) -> tuple[str, ...]:
        fields = cache.get(node_type)
        if fields is None:
            fields = cache[node_type] = tuple(f for f in wanted if f in node_type._fields)  # type: ignore[attr-defined]
        return fields

    return fields_of


# The fields holding statement lists (and the handlers and cases that hold more).
_block_fields = fields_present(("body", "orelse", "finalbody", "handlers", "cases"))


def all_statements(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """Every statement of `body`, nested blocks and definitions included: attribute writes are
    statements, and walking only them (not every expression node, as `ast.walk` does) keeps a
    search for them cheap on large `__init__`s."""
    stack: list[ast.AST] = list(reversed(body))
    while stack:
        statement = stack.pop()
        yield statement
        for field in ("handlers", "finalbody", "orelse", "body"):
            block = getattr(statement, field, None)
            if isinstance(block, list):
                stack.extend(reversed(block))
        for case in getattr(statement, "cases", ()):  # `match`
            stack.extend(reversed(case.body))
