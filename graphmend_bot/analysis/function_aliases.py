"""Locals that name a function chosen by the code around them: `fn = quadratic_spline` in one arm,
`fn = splines.rational_quadratic_spline` in the other, then `fn(inputs=x)` (nflows' transforms),
or one fetched from a module's table of functions: `kernel = KERNELS[name]`, then `kernel(x, y)`
(geomloss' `kernel_routines`), which calls what the table holds (`registry:KERNELS`).

The call runs one of them with the call's arguments, so each is recorded as a call site of its
own: the arguments' kinds reach every candidate, not only the first the scope solver meets as a
referenced name (which it reaches with no argument kinds).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping, Sequence

from graphmend_bot.analysis.callee_refs import callee_ref
from graphmend_bot.analysis.held_callables import HeldValues, may_hold
from graphmend_bot.analysis.local_nodes import local_nodes, local_statements
from graphmend_bot.vocabulary.dotted_names import dotted_name


def function_aliases(body: Sequence[ast.stmt]) -> FunctionAliases:
    """The aliases of `body`, worked out when a call first asks for one (`FunctionAliases`)."""
    return FunctionAliases(body)


class FunctionAliases(Mapping[str, tuple[str, ...]]):
    """Each local every assignment of which (outside nested scopes) binds a bare name or dotted
    attribute, with the callee refs of those, in source order. A local also bound any other way
    (a call result, a loop target, an augmented assignment) is left out: its value is unknown.

    Asked only about the bare names functions call, and most functions bind none of those by
    such an assignment: the statements alone show it, and the body's expressions (where a
    walrus or a comprehension binds names too) are walked only for a name that might be one."""

    def __init__(self, body: Sequence[ast.stmt]) -> None:
        self._body = body
        self._candidates: frozenset[str] | None = None
        self._table: dict[str, tuple[str, ...]] | None = None
        self._choices: dict[str, list[ast.expr]] | None = None
        self.held = HeldValues(body)  # the value a local holds at a call (call_spellings.py)

    def _might_alias(self, name: str) -> bool:
        if self._candidates is None:
            assigned: set[str] = set()  # `NAME = partial(...)` / `NAME = t.item`, for `held` (one walk for both)
            candidates: set[str] = set()
            for statement in local_statements(self._body):
                if isinstance(statement, ast.Assign) and may_hold(statement.value):
                    assigned.update(target.id for target in statement.targets if isinstance(target, ast.Name))
                if isinstance(statement, ast.Assign) and (found := _alias(statement)) is not None:
                    candidates.add(found[0].id)
            self._candidates, self.held.assigned = frozenset(candidates), frozenset(assigned)
        return name in self._candidates

    def held_value(self, name: str, row: int) -> ast.expr | None:
        """The value the local `name` holds at `row` (held_callables.py)."""
        self._might_alias(name)
        return self.held.value_at(name, row)

    def holds_callable(self, name: str) -> bool:
        """The local `name` is bound somewhere to a `partial(...)` or a tensor's bound method."""
        self._might_alias(name)
        return name in self.held.assigned

    def called_choices(self, name: str) -> list[ast.expr]:
        """The names or dotted attributes every assignment of the local `name` binds, an arm of a
        conditional expression each (posteriors' `tm = tree_map_inplacify_ if inplace else
        tree_map`); none when one binds anything else. Asked of a local the function calls, so
        a choice of bare names is one of functions (unlike `_chosen_refs`). One walk per function."""
        if self._choices is None:
            self._choices = _called_choices(self._body)
        return self._choices.get(name, [])

    def _whole(self) -> dict[str, tuple[str, ...]]:
        if self._table is None:
            self._table = _aliases(self._body)
        return self._table

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._might_alias(name) and name in self._whole()

    def __getitem__(self, name: str) -> tuple[str, ...]:
        if not self._might_alias(name):
            raise KeyError(name)
        return self._whole()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._whole())

    def __len__(self) -> int:
        return len(self._whole())


def _called_choices(body: Sequence[ast.stmt]) -> dict[str, list[ast.expr]]:
    found: dict[str, list[ast.expr]] = {}
    other: set[str] = set()
    for statement in local_statements(body):
        if isinstance(statement, ast.Assign):
            for target in statement.targets:
                if type(target) is ast.Name:
                    if chosen := _choice(statement.value):
                        found.setdefault(target.id, []).extend(chosen)
                    else:
                        other.add(target.id)
    return {name: held for name, held in found.items() if name not in other}


def _choice(value: ast.expr) -> list[ast.expr]:
    if isinstance(value, ast.IfExp):
        body, orelse = _choice(value.body), _choice(value.orelse)
        return [*body, *orelse] if body and orelse else []
    return [value] if dotted_name(value) is not None else []


def _alias(node: ast.AST) -> tuple[ast.Name, list[str]] | None:
    """(target, callee refs) of `NAME = a.b.c`: one target, a bare name, and a name or dotted
    attribute, or a choice of them (`odeint = torchdiffeq.odeint_adjoint if adjoint else torchdiffeq.odeint`)."""
    if (
        isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(target := node.targets[0], ast.Name)
        and (refs := _chosen_refs(node.value))
    ):
        return target, refs
    return None


def _chosen_refs(value: ast.expr) -> list[str]:
    """The callee refs `value` may name: a name or dotted attribute, or each arm of a conditional
    expression of functions of imported modules (`torchdiffeq.odeint_adjoint if adjoint else
    torchdiffeq.odeint`, nested ones too). A choice between bare names or attributes of objects
    is left out: `out = self.cached if out is None else out` picks a value (a tensor, a parameter
    given one), and the call would send its arguments to both."""
    if (table := _table(value)) is not None:
        return [f"registry:{table}"]
    if isinstance(value, ast.IfExp):
        body, orelse = _module_functions(value.body), _module_functions(value.orelse)
        return [*body, *orelse] if body and orelse else []
    ref = callee_ref(value) if dotted_name(value) is not None else None
    return [] if ref is None else [ref]


def _table(value: ast.expr) -> str | None:
    """NAME of `NAME[key]` (or `NAME[a][b]`): an entry of a table the scope solver reads as the
    module's registry NAME when one is defined or imported there (a local table is none: nothing
    is reached through it)."""
    if not isinstance(value, ast.Subscript):
        return None
    while isinstance(value, ast.Subscript):
        value = value.value
    return value.id if isinstance(value, ast.Name) else None


def _module_functions(value: ast.expr) -> list[str]:
    """The refs of an arm naming `module.function` (or a choice of such), else none."""
    if isinstance(value, ast.IfExp):
        return _chosen_refs(value)
    ref = callee_ref(value) if isinstance(value, ast.Attribute) and dotted_name(value) is not None else None
    return [ref] if ref is not None and ref.startswith("dotted:") else []


def _aliases(body: Sequence[ast.stmt]) -> dict[str, tuple[str, ...]]:
    refs: dict[str, list[str]] = {}
    other: set[str] = set()
    aliasing: set[int] = set()  # ids of the targets of those assignments
    for node in local_nodes(body):
        found = _alias(node)
        if found is not None:
            refs.setdefault(found[0].id, []).extend(found[1])
            aliasing.add(id(found[0]))
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)) and id(node) not in aliasing:
            other.add(node.id)
    return {name: tuple(dict.fromkeys(found)) for name, found in refs.items() if name not in other}


def method_refs(aliases: Mapping[str, tuple[str, ...]], receiver: ast.expr, method: str) -> list[str]:
    """`backend.reshape(x)` after `backend = TorchJitBackend` (einops' `apply_for_scriptable_torch`):
    the call of the method of what the local names, "dotted:TorchJitBackend.reshape", which the
    scope solver resolves as if it were spelled so (a static or class method, or one a base
    defines). Dynamo traces it (measured on torch 2.13, tests/test_scope_edges.py)."""
    if not isinstance(receiver, ast.Name) or receiver.id not in aliases:
        return []
    return [f"dotted:{ref.partition(':')[2]}.{method}" for ref in aliases[receiver.id]
            if ref.startswith(("name:", "dotted:"))]
