"""Where a tensor hook's body changes state that lives outside the hook (GB0067, GM645).

Dynamo traces a hook registered in traced code (`y.register_hook(h)` on a tensor the frame computed)
as a higher-order op, a subgraph that may not mutate anything from outside its own scope. Measured
on torch 2.13 (tests/fixtures/rules/GM645_hook_mutates_outer_state.py): the hook breaks the graph
("HOP: Unsafe side effect") at its first statement that stores into an outer value
(`store[k] = g`, `self.last = g`), rebinds a `nonlocal` or `global` name (`n += 1`), or calls a
container's mutating method on one (`store.append(g)`, `self.grads.append(g)`, `LST.append(g)`).
A hook that only reads outer values, or fills a container it made itself, traces; one that fills a
container a parameter's default holds (`def keep(g, store=store)`) breaks as on `store` itself.
"""

from __future__ import annotations

import ast

# The list, dict, set and deque methods that change their container.
MUTATING_METHODS = frozenset({
    "append", "appendleft", "extend", "extendleft", "insert", "pop", "popleft", "popitem", "remove",
    "clear", "update", "setdefault", "discard",  # not `add`: `torch.add(g, 1)` changes nothing
})


def _root(node: ast.expr) -> str | None:
    """The name a chain of attributes and subscripts starts from (`self` of `self.d[k]`)."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _own_nodes(hook: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> list[ast.AST]:
    """The hook's nodes, not those of functions or lambdas defined inside it (they run later, if ever)."""
    body: list[ast.AST] = [hook.body] if isinstance(hook, ast.Lambda) else list(hook.body)
    found: list[ast.AST] = []
    while body:
        node = body.pop()
        found.append(node)
        body.extend(child for child in ast.iter_child_nodes(node)
                    if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)))
    return found


def outer_mutation(hook: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> tuple[ast.AST, str] | None:
    """The hook's first node (in source order) that mutates an outer value, and that value's name."""
    nodes = _own_nodes(hook)
    args = hook.args
    declared = {name for node in nodes if isinstance(node, (ast.Nonlocal, ast.Global)) for name in node.names}
    # a parameter defaulting to a value the enclosing code made (`def keep(g, store=store)`,
    # `cache={}`) holds that value itself, from outside the hook (GB0067, measured); a constant does not
    positional = [*args.posonlyargs, *args.args]
    defaults = [*zip(positional[len(positional) - len(args.defaults):], args.defaults), *zip(args.kwonlyargs, args.kw_defaults)]
    shared = {a.arg for a, default in defaults if default is not None and not isinstance(default, ast.Constant)}
    local = {a.arg for a in (*positional, *args.kwonlyargs, args.vararg, args.kwarg) if a} - shared
    local |= {node.id for node in nodes if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)} - declared
    hits: list[tuple[ast.AST, str]] = []
    for node in nodes:
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and (node.value is not None or isinstance(node, ast.AugAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Delete):
            targets = node.targets
        for target in targets:
            for part in ast.walk(target):  # tuple targets: `a, self.b = ...`
                if isinstance(part, ast.Name) and isinstance(part.ctx, (ast.Store, ast.Del)) and part.id in declared:
                    hits.append((node, part.id))
                elif (isinstance(part, (ast.Attribute, ast.Subscript)) and isinstance(part.ctx, (ast.Store, ast.Del))
                      and (name := _root(part)) is not None and name not in local):
                    hits.append((node, name))
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATING_METHODS
                and (name := _root(node.func.value)) is not None and name not in local):
            hits.append((node, name))
    return min(hits, key=lambda hit: (hit[0].lineno, hit[0].col_offset)) if hits else None  # type: ignore[attr-defined]
