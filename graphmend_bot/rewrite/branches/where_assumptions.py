"""What a `torch.where` rewrite of a branch rests on: the assumptions that make it unsafe, and the
parameter reads it refuses to select (predicate.py's and cond.py's).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar, cast

import libcst as cst

from graphmend_bot.findings import Edit, Fix
from graphmend_bot.rewrite.aliasing import (
    TORCH_NAMESPACES,
    HandingSites,
    in_place_name,
    in_place_updates,
    shares_storage,
    storage_root,
    target_names,
    torch_call_writes,
)
from graphmend_bot.rewrite.class_attributes import computes_new_tensor, torch_layers_called, writes_into_input
from graphmend_bot.rewrite.context import FixContext, Rejected
from graphmend_bot.rewrite.dtype_facts import reaching_assignment
from graphmend_bot.rewrite.escapes import Exits, direct_exit
from graphmend_bot.rewrite.partial_operators import partial_assumption
from graphmend_bot.rewrite.purity import FLOAT, ArmInfo, dotted, dtype_assumption

# A module's parameter read directly (`self.zeroshot_embed.weight`): selecting it with torch.where
# gives the unselected one a zero gradient where the branch gave it none, which optimizers with
# weight decay or momentum act on (measured on MONAI VISTA3D's class embeddings): no fix.
PARAMETER_READ = re.compile(r"self(\.\w+)*\.(weight|bias)")
# Builtins that read a tensor handed to them and never write into it.
READING_BUILTINS = frozenset({
    "len", "isinstance", "print", "repr", "str", "int", "float", "bool", "tuple", "list", "type", "id", "hasattr",
    "getattr", "min", "max", "sum", "zip", "enumerate", "abs", "round",
})

AUTOGRAD_NOTE = (
    "uses {ops}: torch.where evaluates both arms and the unselected arm's gradient is 0 * (its "
    "backward), which is NaN where that backward is inf/NaN, so gradients can change"
)


class Verdict:
    """Collects why a rewrite is only right under assumptions (each makes the fix unsafe)."""

    def __init__(self) -> None:
        self.assumptions: list[str] = []

    def compare(self, arms: Sequence[tuple[str, ArmInfo]], known_float: set[str] | frozenset[str] = frozenset()) -> None:
        # Precondition: every selected value is a tensor. An arm that is a Python value (`return
        # False`, `else 0.0`) would come back as a tensor where the program gave a Python value.
        for code, info in arms:
            if not info.leaves:
                raise Rejected(f"`{code}` is a Python value: torch.where would turn it into a tensor")
        # Precondition: the selection keeps the result's dtype. torch.where promotes, so arms whose
        # own text gives them different dtypes (`torch.tensor(0)`, an int64 constant, against `x / 2`;
        # `t * 0.5` against a `t` that may be an integer tensor; a comparison against a value) would
        # come back converted: refused. Arms alike but for which tensors they read keep the
        # assumption that those tensors share dtype and shape, and `x + 1` against `x` the assumption
        # that `x` is not a bool tensor (the fix is unsafe and says so).
        first_code, first = arms[0]
        for code, info in arms[1:]:
            note = dtype_assumption(first, info, f"`{first_code}` and `{code}`", known_float)
            if note is None:
                continue
            # A float scalar changes nothing on tensors already floating: only unproven leaves count.
            unproven = (first.leaves | info.leaves) - known_float
            floating = FLOAT in (first.category, info.category) and first.category != info.category and unproven
            if first.fixed != info.fixed or floating:
                raise Rejected(f"torch.where would change the result's dtype: `{first_code}` and `{code}` "
                               f"differ in dtype unless {note.removeprefix('assumes ')}")
            if note not in self.assumptions:
                self.assumptions.append(note)
        # torch.where evaluates every arm: one that raises for its operands' dtype (`x - 1` on a bool
        # tensor) where another does not raises on a path the branch never ran it on.
        raising = partial_assumption([(code, info.partial) for code, info in arms], known_float)
        if raising is not None and raising not in self.assumptions:
            self.assumptions.append(raising)
        for code, _ in arms:
            if PARAMETER_READ.fullmatch(code):
                raise Rejected(f"`{code}` is a parameter: torch.where would give it a zero gradient where it "
                               "was not selected, instead of none (optimizers with weight decay or momentum "
                               "then move it)")
        for _, info in arms:
            for note in info.notes:
                if note not in self.assumptions:
                    self.assumptions.append(note)
        risky = sorted({op for _, info in arms for op in info.risky})
        if risky:
            note = AUTOGRAD_NOTE.format(ops=", ".join(f"`{op}`" for op in risky))
            if note not in self.assumptions:
                self.assumptions.append(note)

    def copy_of_shared(self, ctx: FixContext, selection: cst.CSTNode, arms: Sequence[cst.BaseExpression],
                       python_names: frozenset[str]) -> None:
        """torch.where returns a new tensor where the branch handed on an arm itself (`x`, a view of
        it): an in-place update after the selection (`y.add_(1)`; anywhere when a loop holds it)
        then reaches `x` in one program only."""
        shared = [arm for arm in arms if shares_storage(arm)]
        function = next((node for node in ctx.ancestors(selection) if isinstance(node, cst.FunctionDef)), None)
        if not shared or function is None:
            return
        looped = any(isinstance(node, cst.For | cst.While) for node in ctx.ancestors(selection))
        row = ctx.position(selection).end.line
        self.leaves_shared(ctx, selection, arms, function, looped)
        # A call handed the result or the shared tensor may update it in place (`self.act(y)` with
        # `nn.ReLU(inplace=True)`, `bump(y)` doing `t.add_(1)`): the same assumption, unless it is
        # known to leave its arguments alone.
        tensors = _bound_names(ctx.statement_of(selection) or selection) | {
            root for arm in shared if (root := storage_root(arm)) not in (None, "self")}
        # walked once per function, however many selections it holds (a walk each was quadratic)
        sites = _once(ctx, ("handing sites", function), lambda: HandingSites(function))
        updates = _once(ctx, ("in-place updates", function, python_names),
                        lambda: in_place_updates(function, python_names))
        handed = sites.calls_handed(tensors, lambda call: _leaves_arguments_alone(ctx, call, tensors))
        later = [node for node in [*updates, *handed]
                 if looped or ctx.position(node).start.line > row]
        # `self.act(x if c else x * 2)`: the call is handed the selection itself
        enclosing = [node for node in ctx.ancestors(selection) if isinstance(node, cst.Call)
                     and not _leaves_arguments_alone(ctx, node, tensors)]
        handed = [*handed, *enclosing]
        later += enclosing
        if later:
            update = min(later, key=lambda node: (ctx.position(node).start.line, ctx.position(node).start.column))
            kind = "in-place update" if update not in handed else "call, which may update it in place,"
            note = (f"`{ctx.code_for(shared[0]).strip()}` is selected as it is, where torch.where makes a new tensor: "
                    f"the {kind} `{ctx.code_for(update).strip()}` would no longer reach it through the result")
            if note not in self.assumptions:
                self.assumptions.append(note)

    def leaves_shared(self, ctx: FixContext, selection: cst.CSTNode, arms: Sequence[cst.BaseExpression],
                      function: cst.FunctionDef | None = None, looped: bool | None = None) -> None:
        """The branch handed on an arm that may be a caller's tensor (`x`, a parameter; `self.cache`; a
        view of one) and the selection leaves the function (returned, yielded, stored on `self`, in
        an item or a global): torch.where hands out a new tensor instead, so an in-place update
        after the call (`out = self.pick(x); out.add_(1)`) no longer reaches `x` (review7 finding 1)."""
        if function is None:
            function = next((node for node in ctx.ancestors(selection) if isinstance(node, cst.FunctionDef)), None)
        if function is None:
            return
        if looped is None:
            looped = any(isinstance(node, cst.For | cst.While) for node in ctx.ancestors(selection))
        sites = _once(ctx, ("handing sites", function), lambda: HandingSites(function))
        exits = _once(ctx, ("exits", function), lambda: Exits(function, sites, lambda call: computes_new_tensor(ctx, call)))
        statement = ctx.statement_of(selection) or selection
        span = ctx.position(statement)

        def within(node: cst.CSTNode) -> bool:
            where = ctx.position(node)
            return (span.start.line, span.start.column) <= (where.start.line, where.start.column) and (
                (where.end.line, where.end.column) <= (span.end.line, span.end.column))

        bound = _bound_names(statement)
        callers = [arm for arm in arms if _may_be_callers(ctx, arm, statement, exits, bound, within, looped)]
        if not callers:
            return
        leaving = [node for arm in [*callers, *arms] if ctx.parent(arm) is not None
                   and (node := direct_exit(ctx.ancestors(arm), exits)) is not None]
        leaving += [node for node in exits.leaving(bound) if looped or ctx.position(node).start.line > span.end.line]
        if not leaving:
            return
        exit_code = ctx.code_for(leaving[0]).strip().splitlines()[0]
        arm = ctx.code_for(callers[0]).strip()
        note = (f"`{arm}` may be a caller's tensor and the selection leaves `{function.name.value}` "
                f"(`{exit_code}`): the branch handed out `{arm}` itself, torch.where a new tensor, so an "
                f"in-place update of the result after the call would no longer reach `{arm}`")
        if note not in self.assumptions:
            self.assumptions.append(note)

    def fix(self, title: str, edits: list[Edit]) -> Fix:
        return Fix.of(title, tuple(edits), tuple(self.assumptions))


_T = TypeVar("_T")


def _may_be_callers(ctx: FixContext, arm: cst.BaseExpression, statement: cst.CSTNode, exits: Exits,
                    bound: set[str], within: Callable[[cst.CSTNode], bool], looped: bool) -> bool:
    """`arm` may hold a tensor the caller also reaches after the call. A name whose nearest
    assignment before the arm computes a new tensor (`h = self.norm(x)`, `h = x * 2`) holds one
    only where it leaves the function apart from through the selection itself."""
    root = storage_root(arm)
    if root is None:
        return False
    if root == "self":
        return True
    at = ctx.statement_of(arm) if ctx.parent(arm) is not None else statement  # `h` of an else-less update
    value = reaching_assignment(ctx, root, at) if at is not None else None
    if value is None or exits.from_outside(value):
        return exits.may_be_callers(root)
    leaving = [node for node in exits.leaving([root], skip=within) if not within(node)]
    if root in bound and not looped:  # the selection rebinds it: exits after it hand out the selection
        leaving = [node for node in leaving if ctx.position(node).start.line < ctx.position(statement).start.line]
    return bool(leaving)


def _once(ctx: FixContext, key: tuple[object, ...], build: Callable[[], _T]) -> _T:
    """`build()`, computed once per file for `key` and reused by every finding that asks."""
    if key not in ctx.memo:
        ctx.memo[key] = build()
    return cast(_T, ctx.memo[key])


def _bound_names(statement: cst.CSTNode) -> set[str]:
    """Names `statement` assigns (`y` of `y = x if c else x * 2`, of each branch's `y = ...`)."""
    found: set[str] = set()

    class Visitor(cst.CSTVisitor):
        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            found.update(name.value for name in target_names(node.target))

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            found.update(name.value for name in target_names(node.target))

    statement.visit(Visitor())
    return found


def _leaves_arguments_alone(ctx: FixContext, call: cst.Call, tensors: set[str]) -> bool:
    """Known not to write into its arguments: a torch function no part of whose name ends in `_`,
    with no `out=` and no `inplace` flag set (`torch.cat`, `F.relu(y)`), a reading builtin, a tensor
    method not ending in `_` (`x.add(y)`), a submodule built as a torch.nn layer without `inplace`."""
    name = dotted(call.func)
    if name is not None and name.startswith(TORCH_NAMESPACES):
        return not torch_call_writes(call)
    if name in READING_BUILTINS:
        return True
    if isinstance(call.func, cst.Attribute):
        if storage_root(call.func.value) in tensors and not in_place_name(call.func.attr.value):
            return True
        layers = torch_layers_called(ctx, call)
        if layers is not None:
            return not any(writes_into_input(layer) for layer in layers)
    return False
