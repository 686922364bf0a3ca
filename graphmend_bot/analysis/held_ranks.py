"""Tensors a module holds with a rank its writes show, read back as an index (GM302).

Measured on torch 2.13 (benchmarks/spellings/dd_attribute_rank.py, tests/fixtures/rules/
flow_held_ranks.py): a 1-d buffer or attribute (`register_buffer("order", torch.arange(n))`,
`self.perm = torch.randperm(n)`) yields 0-d tensors when iterated (`for i in self.order`) or indexed
by a number (`self.perm[0]`), and indexing with one reads it back as an int (GB0033,
`aten._local_scalar_dense`: flowtorch's inverse over its permutation buffer); a 0-d integer
counter (`register_buffer("step", torch.tensor(0))`) does so once computed on
(`self.history[(self.step + 1) % n]`), while the buffer itself as the index is an input of the
graph Dynamo specializes on, and traces. The rows of a 2-d buffer are 1-d and gather.

The function analysis drafts such an index with what it needs of each attribute ("1:order",
"0:step", `FunctionSummary.held_rank_drafts`); the draft stands when every write of the attribute
in the class, its bases and its subclasses stores a tensor of that rank by construction
(`FunctionSummary.attribute_ranks`, read from the writes' text) or keeps it (`self.step += 1`).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping, Set
from typing import TYPE_CHECKING

from graphmend_bot.analysis import tensor_rank
from graphmend_bot.analysis.local_nodes import all_statements
from graphmend_bot.vocabulary.kind import Kind

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import FunctionId, Program, TracedDraft

Resolve = Callable[[ast.expr], str | None]
KEEPS = -1  # a write that keeps the rank the attribute had (`self.step += 1`)
_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)
# Methods that keep a 0-d integer tensor 0-d when given no tensor (casts, copies, int arithmetic).
_RANK_KEEPING = frozenset(
    {"long", "int", "detach", "clone", "add", "sub", "mul", "remainder", "floor_divide"}
)


def loop_attributes(target: ast.expr, iterable: ast.expr, self_name: str | None, resolve: Resolve) -> dict[str, str]:
    """`for i in self.order` (or `enumerate(self.order)`, `cast(T, self.order)`): {"i": "order"}."""
    iterable = tensor_rank.uncast(iterable, resolve)
    if (
        isinstance(target, ast.Tuple)
        and len(target.elts) == 2
        and isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Name)
        and iterable.func.id == "enumerate"
        and len(iterable.args) == 1
    ):
        target, iterable = target.elts[1], tensor_rank.uncast(iterable.args[0], resolve)
    attribute = _held(iterable, self_name)
    return {target.id: attribute} if attribute is not None and isinstance(target, ast.Name) else {}


def needs(
    node: ast.expr,
    loops: Mapping[str, str],
    numbers: Set[str],
    resolve: Resolve,
    self_name: str | None,
    top: bool = True,
) -> frozenset[str] | None:
    """What `node`, an index, needs of held attributes to be a 0-d tensor: "1:NAME" for an element
    of `self.NAME`, "0:NAME" for `self.NAME` computed on; None when it is none of these."""
    attribute = _held(node, self_name)
    if attribute is not None:
        return None if top else frozenset({f"0:{attribute}"})  # the buffer itself is a graph input
    if isinstance(node, ast.Name):
        return frozenset({f"1:{loops[node.id]}"}) if node.id in loops else None
    if isinstance(node, ast.Subscript):
        element_of = _held(node.value, self_name)
        number = tensor_rank.python_number(node.slice, numbers, resolve)
        return frozenset({f"1:{element_of}"}) if element_of is not None and number else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, _ARITHMETIC):
        left = needs(node.left, loops, numbers, resolve, self_name, top=False)
        right = needs(node.right, loops, numbers, resolve, self_name, top=False)
        if left is not None and (right is not None or _int(node.right, numbers, resolve)):
            return left | (right or frozenset())
        return right if right is not None and _int(node.left, numbers, resolve) else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return needs(node.operand, loops, numbers, resolve, self_name, top=False)
    node = node.value if isinstance(node, ast.Expr) else node  # `self.register_buffer(...)`
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in _RANK_KEEPING
        and not node.keywords
        and all(_int(arg, numbers, resolve) for arg in node.args)
    ):
        return needs(node.func.value, loops, numbers, resolve, self_name, top=False)
    return None


def written_ranks(
    function: ast.FunctionDef | ast.AsyncFunctionDef, self_name: str | None, resolve: Resolve
) -> tuple[tuple[str, int], ...]:
    """(NAME, rank) for each attribute every write of which in `function` stores a 0-d integer or a
    1-d tensor by construction, or keeps its rank (`self.step += 1`: KEEPS, when that is its
    only kind of write here); any other write leaves the attribute out."""
    if self_name is None:
        return ()
    ranks: dict[str, set[int | None]] = {}
    for node in all_statements(function.body):
        for name, value in _writes(node, self_name):
            ranks.setdefault(name, set()).add(_rank(value, resolve) if value is not None else KEEPS)
    known = {name: found - {KEEPS} or {KEEPS} for name, found in ranks.items()}
    return tuple(
        sorted(
            (name, rank)
            for name, found in known.items()
            if len(found) == 1
            for rank in found
            if rank is not None
        )
    )


def held_rank_indices(program: Program, holds: Callable[[FunctionId, Kind], bool]) -> list[TracedDraft]:
    """The drafts of traced `x[key]` whose key is a 0-d tensor read from what the module holds."""
    from graphmend_bot.analysis.scope import TracedDraft

    found: list[TracedDraft] = []
    for fid in program.traced_in_order():
        function = program.function(fid)
        if (
            not function.held_rank_drafts
            or fid[0] in program.dependency_modules
            or function.class_qualname is None
        ):
            continue
        cls = (fid[0], function.class_qualname)
        for wanted, draft in function.held_rank_drafts:
            if holds(fid, draft.deps) and all(_holds_rank(program, cls, need) for need in wanted):
                found.append(TracedDraft(program.modules[fid[0]], function, draft))
    return found


def _holds_rank(program: Program, cls: tuple[str, str], need: str) -> bool:
    """Whether the methods of `cls`, its bases and subclasses write `self.NAME`, each time a tensor
    of the rank `need` names (and no property of that name hides it)."""
    rank, _, attribute = need.partition(":")
    written = False
    for module, cls_qualname in program.hierarchy.related(cls):
        functions = program.modules[module].functions
        for method in program.modules[module].classes[cls_qualname].methods:
            writer = functions.get(f"{cls_qualname}.{method}")
            if method == attribute:
                return False  # a property or method of that name
            if writer is None or not any(name == attribute for name, _ in writer.attribute_writes):
                continue
            if (attribute, int(rank)) in writer.attribute_ranks:
                written = True
            elif (attribute, KEEPS) not in writer.attribute_ranks:
                return False
    return written


def _writes(node: ast.AST, self_name: str) -> list[tuple[str, ast.expr | None]]:
    """The attribute writes of one node: (NAME, value), value None for one keeping the rank
    (`self.step += 1`), an unknowable value as a non-tensor constant."""
    unknown = ast.Constant(None)
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        found: list[tuple[str, ast.expr | None]] = []
        for target in targets:
            if _held(target, self_name) is not None:
                found.append((_held(target, self_name) or "", node.value or unknown))
            elif isinstance(target, (ast.Tuple, ast.List)):
                found += [(name, unknown) for e in target.elts if (name := _held(e, self_name)) is not None]
        return found
    if isinstance(node, ast.AugAssign) and (name := _held(node.target, self_name)) is not None:
        keeps = isinstance(node.op, (ast.Add, ast.Sub)) and isinstance(node.value, ast.Constant)
        return [(name, None if keeps else unknown)]
    node = node.value if isinstance(node, ast.Expr) else node  # `self.register_buffer(...)`
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "register_buffer"
        and _is_self(node.func.value, self_name)
        and len(node.args) >= 2
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return [(node.args[0].value, node.args[1])]
    return []


def _rank(value: ast.expr, resolve: Resolve) -> int | None:
    """1 for a 1-d tensor by construction (tensor_rank.iterates_scalars), 0 for an integer constant
    0-d one (`torch.tensor(0)`, `torch.zeros((), dtype=torch.long)`), else None."""
    if tensor_rank.iterates_scalars(value, frozenset(), resolve):
        return 1
    if not isinstance(value, ast.Call):
        return None
    name = resolve(value.func)
    dtype = [k.value for k in value.keywords if k.arg == "dtype"]
    integer_dtype = all(resolve(d) in ("torch.long", "torch.int64", "torch.int") for d in dtype)
    if name in ("torch.tensor", "torch.as_tensor") and len(value.args) == 1:
        number = value.args[0]
        integer = isinstance(number, ast.Constant) and type(number.value) is int
        return 0 if integer and integer_dtype else None
    # `torch.zeros((), dtype=torch.long)`: of size `()`, with an integer dtype written out
    # (benchmarks/spellings/dd_counter_factories.py; of size 1 it is 1-d and gathers)
    return 0 if dtype and integer_dtype and tensor_rank.empty_size_factory(value, resolve) else None


def _held(node: ast.expr, self_name: str | None) -> str | None:
    return node.attr if isinstance(node, ast.Attribute) and _is_self(node.value, self_name) else None


def _is_self(node: ast.expr, self_name: str | None) -> bool:
    return self_name is not None and isinstance(node, ast.Name) and node.id == self_name


def _int(node: ast.expr, numbers: Set[str], resolve: Resolve) -> bool:
    return tensor_rank.python_number(node, numbers, resolve) and not (
        isinstance(node, ast.Constant) and isinstance(node.value, float)
    )
