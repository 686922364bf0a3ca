"""Boolean masks made elsewhere: `x[positive(x)]`, `x[self._mask(x)]`, `x[self.keep]` (GM502).

Measured on torch 2.13 (tests/coverage_probes/gb0036_mask_from_helper.py, tests/fixtures/rules/
GM502_boolean_mask_indexing.py): indexing a tensor with a bool tensor breaks with GB0036 wherever
the mask was built, in a helper whose result is the key or in `__init__` as a buffer or attribute
(`register_buffer("keep", x > 0)`, `self.keep = torch.zeros(n, dtype=torch.bool)`); assigning
through one (`y[self.keep] = 0`, index_put) does not break. The function analysis drafts `x[key]`
when the key is only call results and `self.NAME` reads (`FunctionSummary.mask_index_drafts`);
the draft stands when every callee of each such call returns a mask on every path (itself, or
what a helper it calls returns: `FunctionSummary.mask_returns`) and every write of each such
attribute in the class, its bases and its subclasses stores one (`FunctionSummary.mask_attributes`),
or the attribute is a property that returns one. A helper that returns a mask
on some paths only, or an attribute some method rebinds to another value, is not judged.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from graphmend_bot.analysis.conditional_blocks import tail_in
from graphmend_bot.analysis.local_nodes import every_node
from graphmend_bot.analysis.modes import modes_named
from graphmend_bot.analysis.value_class import is_property
from graphmend_bot.vocabulary.kind import Kind

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import FunctionId, Program, TracedDraft


def masks_made_elsewhere(
    program: Program, targets: Mapping[tuple[FunctionId, int], list[FunctionId]],
    holds: Callable[[FunctionId, Kind], bool], loop_rows: dict[FunctionId, list[int]],
) -> list[TracedDraft]:
    """The drafts of traced `x[key]` whose key is a mask a helper returns or an attribute holds;
    the rows of those in a loop body go to `loop_rows` (`loop_rests`)."""
    from graphmend_bot.analysis.scope import TracedDraft

    returns_mask = MaskReturns(program, targets)
    found: list[TracedDraft] = []
    for fid in program.traced_in_order():
        function = program.function(fid)
        if not function.mask_index_drafts or fid[0] in program.dependency_modules:
            continue
        for masks, draft, in_loop in function.mask_index_drafts:
            if holds(fid, draft.deps) and all(
                returns_mask.at(fid, int(mask[1:].removesuffix(".0")), mask.endswith(".0"))
                if mask.startswith("@") else returns_mask.held(fid, mask[5:])
                for mask in masks
            ):
                found.append(TracedDraft(program.modules[fid[0]], function, draft))
                if in_loop and not modes_named(draft.message):
                    loop_rows.setdefault(fid, []).append(draft.row)
    return found


def loop_rests(program: Program, loop_rows: dict[FunctionId, list[int]], rests: dict[FunctionId, list[tuple[int, int]]]) -> None:
    """A mask draft that stands in a loop body makes Dynamo skip the frame as any break there does
    (loop_calls.py; measured: tests/test_mask_reductions.py): the rows after it, to the end of the
    conditional block holding it, else of the function, run eagerly and break nowhere."""
    for fid, rows in loop_rows.items():
        spans = program.conditional_spans(program.modules[fid[0]], program.function(fid))
        rests.setdefault(fid, []).extend((row + 1, tail_in(spans, row)) for row in sorted(set(rows)))


class MaskReturns:
    """Which functions return a mask on every path: each `return` one itself, or what a call
    site returns whose callees all do (`FunctionSummary.mask_returns`), recursion not counted.
    With `field="scalar_returns"`, the same for 0-d tensors (scalar_returns.py)."""

    def __init__(self, program: Program, targets: Mapping[tuple[FunctionId, int], list[FunctionId]],
                 field: str = "mask_returns") -> None:
        self.program = program
        self.targets = targets
        self.field = field
        self.known: dict[FunctionId, bool] = {}

    def at(self, fid: FunctionId, site: int, pair: bool = False) -> bool:
        """Whether call site `site` of `fid` gives a mask: it has callees, and each returns one
        (`pair`: element 0 of the call, each callee returning `mask.max(dim)`)."""
        callees = self.targets.get((fid, site), ())
        return bool(callees) and all(
            self.returns_mask(callee) and (not pair or self.program.function(callee).mask_pair_returns)
            for callee in callees)

    def held(self, fid: FunctionId, attribute: str) -> bool:
        """Whether `self.ATTRIBUTE` in `fid` is a mask: a property returning one, or state every
        write stores one in."""
        class_qualname = self.program.function(fid).class_qualname
        if class_qualname is None or "." in attribute:
            return False
        getter = self.program.class_method(fid[0], class_qualname, attribute)
        if getter is not None:
            return is_property(self.program.function(getter).decorators) and self.returns_mask(getter)
        return _holds_mask(self.program, (fid[0], class_qualname), attribute)

    def returns_mask(self, fid: FunctionId) -> bool:
        if fid not in self.known:
            self.known[fid] = False  # a cycle back to it gives no mask
            sites: tuple[int, ...] | None = getattr(self.program.function(fid), self.field)
            self.known[fid] = sites is not None and all(self.at(fid, site) for site in sites)
        return self.known[fid]


def _holds_mask(program: Program, cls: tuple[str, str], attribute: str) -> bool:
    """Whether the methods of class `cls`, its bases and subclasses write `self.ATTRIBUTE`, each
    time a mask."""
    written = False
    for module, cls_qualname in program.hierarchy.related(cls):
        functions = program.modules[module].functions
        for method in program.modules[module].classes[cls_qualname].methods:
            writer = functions.get(f"{cls_qualname}.{method}")
            if writer is None or not any(name == attribute for name, _ in writer.attribute_writes):
                continue
            if attribute not in writer.mask_attributes:
                return False
            written = True
    return written


def bool_literal(node: ast.Call, name: str) -> bool:
    """`torch.tensor([True, False])`: a tensor of bool constants is a mask (measured, GB0036:
    tests/coverage_probes/gb0036_mask_buffer.py)."""
    if name not in ("tensor", "as_tensor") or not node.args:
        return False
    pending, seen = [node.args[0]], 0
    while pending:
        value = pending.pop()
        if isinstance(value, (ast.List, ast.Tuple)):
            pending.extend(value.elts)
        elif isinstance(value, ast.Constant) and isinstance(value.value, bool):
            seen += 1
        else:
            return False
    return seen > 0


# Ops that only move, copy or pad a tensor's elements keep its dtype: on a mask they give a mask, and
# indexing with it breaks as the mask itself does (measured, GB0036: F.pad(x.diff() != 0, [0, 1],
# value=1.0), (x > 0).flip(0), .view(-1), .clone(): tests/coverage_probes/gb0036_mask_layout.py), and
# so do `.cpu()` and `.numpy()`, a bool array Dynamo traces as a tensor (torchio's `array[mask.numpy()]`).
MASK_LAYOUT_OPS = frozenset({
    "pad", "flip", "fliplr", "flipud", "roll", "view", "view_as", "reshape", "reshape_as", "flatten",
    "unflatten", "squeeze", "unsqueeze", "permute", "transpose", "swapaxes", "swapdims", "movedim", "t",
    "expand", "expand_as", "repeat", "tile", "narrow", "clone", "contiguous", "detach",
    "numpy", "cpu",
})  # fmt: skip


# Reductions that keep a bool tensor's dtype: `mask.amax(-1)`, and the values of `mask.max(-1)`
# (a mask; its indices are not: `masks.pair_elements`). Measured, GB0036 on indexing with each
# (tests/test_mask_reductions.py); `mask.sum(-1)`, `mask.max(-1).indices` do not break.
MASK_REDUCTIONS = frozenset({"max", "min", "amax", "amin"})
_PAIR_REDUCTIONS = frozenset({"max", "min"})  # with a dim: (values, indices)


def keeps_mask(op: str, args: list[Kind]) -> bool:
    """`op` (a torch function or tensor method) on the mask `args[0]` gives a mask."""
    if not (args and args[0].boolean and args[0].is_tensor):
        return False
    # `torch.max(mask, other)` is elementwise: a mask only when `other` is one too
    return op in MASK_LAYOUT_OPS or (op in MASK_REDUCTIONS and all(a.boolean or not a.is_tensor for a in args[1:]))


def pair_elements(value: ast.expr, kind: Kind) -> tuple[Kind, Kind] | None:
    """(values, indices) of `mask.max(dim)` / `torch.min(mask, dim=d)` when `kind`, the call's, is
    a mask: the values are one, the indices are integers."""
    if kind.boolean and kind.is_tensor and _pair_reduction(value):
        return kind, kind.without_flags()
    return None


def field_kind(node: ast.Attribute, owner: Kind) -> Kind:
    """`r.values` / `r.indices` of a reduction result: the indices are never a mask."""
    return owner.without_flags() if node.attr == "indices" else owner


def element_kind(node: ast.Subscript, owner: Kind) -> Kind:
    """`t[k]`: a mask's element is taken as no mask (its rows are, but a mask indexed so is rare),
    except `mask.max(dim)[0]`, the values of the pair."""
    first = isinstance(node.slice, ast.Constant) and node.slice.value == 0
    return owner if first and owner.boolean and _pair_reduction(node.value) else owner.without_flags()


def _pair_reduction(value: ast.expr) -> bool:
    """`t.max(dim)`, `t.min(dim=d)`, `torch.max(t, d)`: a call that returns (values, indices)."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _PAIR_REDUCTIONS):
        return False
    receiver_is_torch = isinstance(value.func.value, ast.Name) and value.func.value.id == "torch"
    dims = value.args[1:] if receiver_is_torch else value.args
    return any(k.arg == "dim" for k in value.keywords) or (
        len(dims) == 1 and isinstance(dims[0], (ast.Constant, ast.UnaryOp, ast.Name)))


def made_mask(node: ast.Call, resolve: Callable[[ast.expr], str | None], op: str, args: list[Kind]) -> bool:
    """The call gives a mask: by its dtype (`bool_dtype`) or as a layout op on one (`keeps_mask`)."""
    return bool_dtype(node, resolve) or keeps_mask(op, args)


def bool_dtype(node: ast.Call, resolve: Callable[[ast.expr], str | None]) -> bool:
    """The call makes a mask by its dtype: `torch.zeros(n, dtype=torch.bool)`, `t.to(torch.bool)`,
    `t.type(torch.bool)`, `t.new_ones(n, dtype=torch.bool)` (measured: indexing with one breaks,
    GB0036, tests/fixtures/rules/GM502_boolean_mask_indexing.py)."""
    dtypes = [keyword.value for keyword in node.keywords if keyword.arg == "dtype"]
    if isinstance(node.func, ast.Attribute) and node.func.attr in ("to", "type") and node.args:
        dtypes.append(node.args[0])
    return any(resolve(dtype) == "torch.bool" for dtype in dtypes)


def returns_pairs(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether every `return` of the function's own body is `t.max(dim)` / `torch.min(t, d)`
    (asked only of functions whose returns are all masks: few)."""
    returns = [n for n in every_node(node) if isinstance(n, ast.Return)]
    return bool(returns) and all(r.value is not None and _pair_reduction(r.value) for r in returns)
