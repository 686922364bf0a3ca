"""0-d tensors a function is handed, as an index: `grid[torch.bucketize(t, grid)]` in a helper every
traced caller of which passes a 0-d `t` (GM302).

Measured on torch 2.13 (tests/test_passed_ranks.py): indexing with a 0-d integer tensor reads it
back as an int (GB0033, `aten._local_scalar_dense`) wherever the 0-d tensor was made, in the caller
too; of a 1-d argument the same index gathers, and traces. The function analysis reads, per local
of an index, the parameters it is 0-d by when each of them is (`Bindings`, only when an index asks:
`t` by `t`, `i = torch.bucketize(t, grid)` by `t`, `torch.as_tensor(t)` keeps it), and drafts `x[key]`
with a key 0-d by parameters (`FunctionSummary.passed_rank_drafts`); each call site notes which of its arguments are
0-d by construction (`FunctionSummary.scalar_arguments`: positions, `=NAME` for a keyword). The draft
stands when the function is no entry point, has traced callers, and every traced call site that
reaches it passes a 0-d tensor by construction for each of those parameters (a parameter left to
its default, or passed a tensor of unknown rank, leaves it standing not).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator, Mapping, Set
from typing import TYPE_CHECKING, cast

from graphmend_bot.analysis import tensor_rank
from graphmend_bot.analysis.local_nodes import local_nodes
from graphmend_bot.analysis.model import CallSite
from graphmend_bot.vocabulary.kind import NOT_TENSOR, TENSOR, Kind

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import FunctionId, Program, TracedDraft

Resolve = Callable[[ast.expr], str | None]
Ranks = Mapping[str, frozenset[str]]


class _Either:
    """`name in scalars or name in ranks`, without building their union."""

    __slots__ = ("first", "second")

    def __init__(self, first: Set[str], second: Ranks) -> None:
        self.first, self.second = first, second

    def __contains__(self, name: object) -> bool:
        return name in self.first or name in self.second


class Bindings:
    """What the locals of one function are 0-d by, read from its bindings when an index asks (a few
    functions in a tree): a parameter never rebound is 0-d by itself, a local bound once by
    `name = value` by what `value` is 0-d by (`t = torch.as_tensor(t)` reads the parameter)."""

    def __init__(self, function: ast.FunctionDef | ast.AsyncFunctionDef, self_name: str | None) -> None:
        args = function.args
        self.params = {arg.arg for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs)} - {self_name}
        self.counts: dict[str, int] = {}
        self.values: dict[str, ast.expr] = {}
        for node in local_nodes(function.body):
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                self.counts[node.id] = self.counts.get(node.id, 0) + 1
            elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                self.values[node.targets[0].id] = node.value
        self._ranks: dict[str, frozenset[str] | None] = {}

    def needs(self, node: ast.expr, scalars: Set[str], numbers: Set[str], resolve: Resolve,
              vectors: Set[str]) -> frozenset[str] | None:
        """The parameters `node` is a 0-d tensor by, when each of them is one; None when it is not
        0-d by parameters (or is by construction, which tensor_rank says)."""
        ranks: dict[str, frozenset[str]] = {}
        for name in _names(node):
            if name not in scalars and (found := self._rank(name, scalars, numbers, resolve, vectors)):
                ranks[name] = found
        if not ranks or not tensor_rank.is_scalar(node, cast(Set[str], _Either(scalars, ranks)), numbers, resolve,
                                                  vectors):
            return None
        return frozenset().union(*ranks.values())

    def _rank(self, name: str, scalars: Set[str], numbers: Set[str], resolve: Resolve,
              vectors: Set[str]) -> frozenset[str] | None:
        if name in self._ranks:
            return self._ranks[name]
        self._ranks[name] = None  # a cycle is no rank
        bound = self.counts.get(name, 0)
        found: frozenset[str] | None = None
        if name in self.params and bound == 0:
            found = frozenset({name})
        elif bound == 1 and (value := self.values.get(name)) is not None:
            if name in self.params:
                self._ranks[name] = frozenset({name})  # the value reads the parameter it replaces
            found = self.needs(value, scalars, numbers, resolve, vectors)
        self._ranks[name] = found
        return found


def _names(node: ast.expr) -> Iterator[str]:
    for child in ast.walk(node):
        if isinstance(child, ast.Name):
            yield child.id


# Calls of torch itself: never a function of the tree, so what they are handed is not noted.
NOT_IN_TREE = ("dotted:torch.", "dotted:math.", "dotted:numpy.", "dotted:np.")
# What may be 0-d by construction (tensor_rank.is_scalar): a name is so when it is in `scalars`.
_MAY_BE_SCALAR = (ast.Call, ast.BinOp, ast.UnaryOp, ast.Subscript)


def scalar_arguments(call: ast.Call, scalars: Set[str], is_scalar: Callable[[ast.expr], bool]) -> tuple[str, ...]:
    """The arguments of `call` that are 0-d tensors by construction: their positions ("0") up to
    the first `*args`, and "=NAME" for a keyword."""
    found: list[str] = []
    for position, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            break
        if _scalar(arg, scalars, is_scalar):
            found.append(str(position))
    found += [f"={keyword.arg}" for keyword in call.keywords
              if keyword.arg is not None and _scalar(keyword.value, scalars, is_scalar)]
    return tuple(found)


def _scalar(node: ast.expr, scalars: Set[str], is_scalar: Callable[[ast.expr], bool]) -> bool:
    if isinstance(node, ast.Name):
        return node.id in scalars
    if isinstance(node, ast.Attribute):  # `v.max(0).indices`; `self.NAME` is none by construction
        return node.attr in tensor_rank.PAIR_FIELDS and is_scalar(node)
    return isinstance(node, _MAY_BE_SCALAR) and is_scalar(node)


class _EveryName:
    """Every name is 0-d here: whether an index can be 0-d by its names at all, before reading them."""

    def __contains__(self, name: object) -> bool:
        return True


EVERY_NAME = cast(Set[str], _EveryName())


def passed_rank_indices(
    program: Program,
    targets: Mapping[tuple[FunctionId, int], list[FunctionId]],
    holds: Callable[[FunctionId, Kind], bool],
    bind: Callable[[CallSite, FunctionId], dict[str, Kind]],
) -> list[TracedDraft]:
    """The drafts of traced `x[key]` whose key is 0-d by parameters every traced caller passes a
    0-d tensor for. `bind`: the solver's binding of a site's arguments to a callee's parameters."""
    from graphmend_bot.analysis.scope import TracedDraft

    drafted = [fid for fid in program.traced_in_order()
               if program.function(fid).passed_rank_drafts and fid[0] not in program.dependency_modules]
    if not drafted:
        return []
    wanted = set(drafted)
    sites: dict[FunctionId, list[tuple[FunctionId, int]]] = {}
    for (caller, index), callees in targets.items():
        for callee in callees:
            if callee in wanted:
                sites.setdefault(callee, []).append((caller, index))
    entries = program.entry_points()
    found: list[TracedDraft] = []
    for fid in drafted:
        if fid not in sites or fid in entries or program.declared_entry(fid):
            continue  # handed what code outside the tree passes
        scalar_params = _passed_scalars(program, fid, sites[fid], bind)
        function = program.function(fid)
        for params, draft in function.passed_rank_drafts:
            if scalar_params.issuperset(params) and holds(fid, draft.deps):
                found.append(TracedDraft(program.modules[fid[0]], function, draft))
    return found


def _passed_scalars(program: Program, callee: FunctionId, sites: list[tuple[FunctionId, int]],
                    bind: Callable[[CallSite, FunctionId], dict[str, Kind]]) -> set[str]:
    """The parameters of `callee` every one of `sites` passes a 0-d tensor by construction."""
    common: set[str] | None = None
    for caller, index in sites:
        function = program.function(caller)
        site = function.calls[index]
        scalars = next((found for at, found in function.scalar_arguments if at == index), ())
        marked = CallSite(
            site.ref, tuple(TENSOR if str(i) in scalars else NOT_TENSOR for i in range(len(site.args))),
            tuple((name, TENSOR if f"={name}" in scalars else NOT_TENSOR) for name, _ in site.kwargs),
            site.bound, site.row,
        )
        passed = {name for name, kind in bind(marked, callee).items() if kind.always}
        common = passed if common is None else common & passed
        if not common:
            return set()
    return common or set()
