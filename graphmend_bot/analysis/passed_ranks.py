"""0-d tensors a function is handed, as an index: `grid[torch.bucketize(t, grid)]` in a helper every
traced caller of which passes a 0-d `t` (GM302).

Measured on torch 2.13 (tests/test_passed_ranks.py): indexing with a 0-d integer tensor reads it
back as an int (GB0033, `aten._local_scalar_dense`) wherever the 0-d tensor was made, in the caller
too; of a 1-d argument the same index gathers, and traces. The function analysis keeps, per local,
the parameters it is 0-d by when each of them is (`_passed_ranks`: `t` by `t`, `i =
torch.bucketize(t, grid)` by `t`, `torch.as_tensor(t)` keeps it), and drafts `x[key]` with a key 0-d
by parameters (`FunctionSummary.passed_rank_drafts`); each call site notes which of its arguments are
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
from graphmend_bot.analysis.model import CallSite
from graphmend_bot.vocabulary.kind import NOT_TENSOR, TENSOR, Kind

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import FunctionId, Program, TracedDraft

Resolve = Callable[[ast.expr], str | None]
Ranks = Mapping[str, frozenset[str]]


def parameter_ranks(function: ast.FunctionDef | ast.AsyncFunctionDef, self_name: str | None) -> dict[str, frozenset[str]]:
    """Each named parameter is 0-d when what it is handed is (not `self`, `*args`, `**kwargs`)."""
    args = function.args
    return {arg.arg: frozenset({arg.arg}) for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs)
            if arg.arg != self_name}


class _Either:
    """`name in scalars or name in ranks`, without building their union on every binding."""

    __slots__ = ("first", "second")

    def __init__(self, first: Set[str], second: Ranks) -> None:
        self.first, self.second = first, second

    def __contains__(self, name: object) -> bool:
        return name in self.first or name in self.second


def needs(node: ast.expr, ranks: Ranks, scalars: Set[str], numbers: Set[str], resolve: Resolve,
          vectors: Set[str]) -> frozenset[str] | None:
    """The parameters `node` is a 0-d tensor by, when each of them is one; None when it is not
    0-d by parameters (or is by construction, which tensor_rank says)."""
    if not ranks or not _mentions(node, ranks):
        return None
    either = cast(Set[str], _Either(scalars, ranks))
    if not tensor_rank.is_scalar(node, either, numbers, resolve, vectors):
        return None
    found = frozenset().union(*(ranks[name] for name in _names(node) if name in ranks and name not in scalars))
    return found or None


def _mentions(node: ast.expr, ranks: Ranks) -> bool:
    """Cheaply: whether `node` may be 0-d by a name of `ranks`, on the paths tensor_rank.is_scalar
    follows (a name, arithmetic on one, a method called on one, a torch function given one)."""
    if isinstance(node, ast.Name):
        return node.id in ranks
    if isinstance(node, ast.BinOp):
        return _mentions(node.left, ranks) or _mentions(node.right, ranks)
    if isinstance(node, ast.UnaryOp):
        return _mentions(node.operand, ranks)
    if isinstance(node, ast.Call):
        func, args = node.func, node.args
        if isinstance(func, ast.Attribute) and _mentions(func.value, ranks):
            return True
        return bool(args) and (_mentions(args[0], ranks) or (len(args) > 1 and _mentions(args[1], ranks)))
    return False


def _names(node: ast.expr) -> Iterator[str]:
    for child in ast.walk(node):
        if isinstance(child, ast.Name):
            yield child.id


def forget(ranks: dict[str, frozenset[str]], name: str) -> None:
    """`name` is bound again: what it was 0-d by is kept under "." (and the name under "..") for the
    value being bound (`t = torch.as_tensor(t)` reads the parameter; the analysis forgets first)."""
    prior = ranks.pop(name, None)
    if prior:
        ranks["."], ranks[".."] = prior, frozenset((name,))
    elif "." in ranks:
        del ranks["."]


def bind(ranks: dict[str, frozenset[str]], name: str, value: ast.expr, scalars: Set[str], numbers: Set[str],
         resolve: Resolve, vectors: Set[str]) -> None:
    """`name = value`, not 0-d by construction: 0-d by the parameters `value` is."""
    prior = ranks.pop(".", None)
    if prior and name in ranks.pop("..", ()):
        ranks[name] = prior  # the value reads the name's previous binding
    found = needs(value, ranks, scalars, numbers, resolve, vectors)
    if found is None:
        ranks.pop(name, None)
    else:
        ranks[name] = found


# Calls of torch itself: never a function of the tree, so what they are handed is not noted.
NOT_IN_TREE = ("dotted:torch.", "dotted:math.", "dotted:numpy.")
# What may be 0-d by construction (tensor_rank.is_scalar): a name is so when it is in `scalars`.
_MAY_BE_SCALAR = (ast.Call, ast.BinOp, ast.UnaryOp, ast.Subscript, ast.Attribute)


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
    return isinstance(node, _MAY_BE_SCALAR) and is_scalar(node)


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
