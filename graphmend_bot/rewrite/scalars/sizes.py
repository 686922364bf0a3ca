"""Sizes read by iterating a tensor that was built from a Python list: pass the list instead.

    spatial_shapes = torch.as_tensor(spatial_shapes_list, dtype=torch.long)
    reference_points = self.get_reference_points(spatial_shapes, ...)
    # get_reference_points: for level, (height, width) in enumerate(spatial_shapes): torch.linspace(..., height)

Iterating a tensor gives 0-d tensors, and using one as a size (a step count, a `view` size, a
slice bound) copies it to Python: a graph break (GB0124). The call site is changed to pass the
list the tensor was built from, as transformers itself does in Deformable DETR and Mask2Former.
The called method is left untouched, so its other callers keep working.

When is that the same computation? The method must use the parameter only as the iterable of
one `for` loop that unpacks each row into names, and use those names only where a Python int and
a 0-d int64 tensor give the same result:
- size arguments (`torch.linspace/arange/zeros/...`, `.view/.reshape/.expand/...`, `range`) and
  slice bounds;
- `+ - *` with int literals and other sizes, whose results are sizes again (through names and
  `+=` as well);
- an operand of `+ - * /` next to a tensor that cannot be 0-d (`t[:, None, i]`): promotion
  takes that tensor's dtype category either way, and the size converts to the same value;
- a start/end of `torch.linspace`/`torch.arange` (a Scalar either way). With a float literal
  (`height - 0.5`) the tensor computes in float32 and Python in float64: equal for sizes below
  2**23, which the fix message states as an assumption.

The list: the argument was assigned once, outside loops, as `torch.as_tensor(L)` or
`torch.tensor(L)` with an integer dtype, where `L` is only ever a list of tuples of Python sizes
(`x.shape` entries, ints) and is not modified after; or the argument is a parameter `A` of the
calling method next to a required parameter `A_list` / `A_tuple` (the transformers convention),
which assumes callers pass matching values.

`self.method(...)` may reach an override in a subclass defined anywhere, which could need the
tensor: the fix states that and every other assumption (fix safety: GM302's rule docs).
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from graphmend_bot.findings import Edit, Finding, Fix
from graphmend_bot.rewrite.branching import LocalFacts, enclosing_function, is_python_number
from graphmend_bot.rewrite.context import FixContext, FixUnavailable, Rejected
from graphmend_bot.rewrite.purity import dotted
from graphmend_bot.vocabulary.known_names import SIZE_FACTORIES, SIZE_METHODS, VALUE_FACTORIES

INTEGER_DTYPES = frozenset({"torch.long", "torch.int64", "torch.int", "torch.int32"})
TWIN_SUFFIXES = ("_list", "_tuple")
BUILDERS = frozenset({"torch.as_tensor", "torch.tensor"})
SIZE_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply)


@dataclass(frozen=True)
class Loop:
    function: cst.FunctionDef
    parameter: str
    names: frozenset[str]  # the names each row is unpacked into


def build_fix(ctx: FixContext, finding: Finding) -> Fix | None:
    node = ctx.node_at(finding)
    if node is None:
        return None
    try:
        loop = _row_loop(ctx, node)
        assumptions = _sizes_only(ctx, loop)
        method = _method_of(ctx, loop.function)
        edits: list[Edit] = []
        sources: list[str] = []
        replaced: list[cst.Name] = []
        for call, argument in _call_sites(ctx, method, loop):
            twin = _twin(ctx, call, argument)
            if twin is None:
                continue
            name, notes = twin
            edits.append(ctx.replace_expression(argument, name))
            replaced.append(argument)
            sources.append(f"`{name}` for `{argument.value}` (line {ctx.position(call).start.line})")
            assumptions.extend(notes)
        deletions = _unused_builders(ctx, replaced)
        edits.extend(deletions)
    except (Rejected, FixUnavailable):
        return None
    if not edits:
        return None
    method_name = loop.function.name.value
    # `self.method(...)` dispatches at run time, and a subclass anywhere may override it.
    assumptions.insert(0, f"assumes no subclass overrides `{method_name}` with one that needs a tensor")
    title = (
        f"Pass the Python list the tensor holds to `{method_name}`: {', '.join(sources)}; its rows "
        "unpack into Python ints, so the sizes are known while tracing"
    )
    if deletions:
        title += "; the tensor is no longer used, so the line building it is removed"
    return Fix.of(title, tuple(edits), tuple(dict.fromkeys(assumptions)), wording="clause")


# -- the method: a loop over the parameter, whose rows are used only as sizes ----------------------


def _row_loop(ctx: FixContext, node: cst.CSTNode) -> Loop:
    """The `for ... in [enumerate(]P[)]` around `node` that unpacks rows of parameter P."""
    function = enclosing_function(ctx, node)
    if function is None:
        raise Rejected("not in a function")
    facts = LocalFacts.of(ctx, function)
    for ancestor in ctx.ancestors(node):
        if ancestor is function:
            break
        if not isinstance(ancestor, cst.For) or ancestor.asynchronous is not None:
            continue
        iterable: cst.BaseExpression = ancestor.iter
        target: cst.BaseExpression = ancestor.target
        if isinstance(iterable, cst.Call) and dotted(iterable.func) == "enumerate" and iterable.args:
            iterable = iterable.args[0].value
            if not isinstance(target, cst.Tuple) or len(target.elements) != 2:
                continue
            target = target.elements[1].value
        if not isinstance(iterable, cst.Name) or iterable.value not in facts.params:
            continue
        names = _unpacked_names(target)
        if names and all(facts.values(name) == [None] for name in names):  # bound only by this loop
            return Loop(function, iterable.value, frozenset(names))
    raise Rejected("no loop unpacking the rows of a parameter")


def _unpacked_names(target: cst.BaseExpression) -> list[str]:
    if not isinstance(target, cst.Tuple | cst.List):
        return []
    names = [element.value for element in target.elements]
    if not all(isinstance(name, cst.Name) for name in names):
        return []
    return [name.value for name in names if isinstance(name, cst.Name)]


def _sizes_only(ctx: FixContext, loop: Loop) -> list[str]:
    """Check the parameter is read only by the loop and the row names only as sizes; return the
    assumptions that needs."""
    reads = _name_reads(loop.function.body)
    if len(reads.get(loop.parameter, [])) != 1:
        raise Rejected("the parameter is used outside the loop")
    facts = LocalFacts.of(ctx, loop.function)
    sizes = set(loop.names)
    changed = True
    while changed:  # names computed from sizes are sizes (`position = 0; position += height * width`)
        changed = False
        for name, values in facts.assignments.items():
            if name not in sizes and _computed_from_sizes(loop.function, name, values, sizes):
                sizes.add(name)
                changed = True
    assumptions: list[str] = []
    for name in sizes:
        for read in reads.get(name, []):
            if _size_use(ctx, read, sizes):
                note = "assumes the sizes are below 2**23 (a float literal next to a size is float32 arithmetic on a tensor)"
                assumptions.append(note)
    return assumptions


def _computed_from_sizes(
    function: cst.FunctionDef, name: str, values: list[cst.BaseExpression | None], sizes: set[str]
) -> bool:
    """Every binding of `name` is an int literal, a size expression or `name += <size>` (also
    -= and *=), and at least one of them reads a size."""
    assigned = [v for v in values if v is not None]
    if not all(isinstance(v, cst.Integer) or _is_size_expression(v, sizes) for v in assigned):
        return False
    augmented = [
        node for node in _augmented_assignments(function, name)
        if isinstance(node.operator, cst.AddAssign | cst.SubtractAssign | cst.MultiplyAssign)
        and _is_size_expression(node.value, sizes | {name})
    ]
    if len(values) - len(assigned) != len(augmented):
        return False  # bound some other way (a loop target, unpacking, another operator)
    return bool(augmented) or any(_is_size_expression(v, sizes) for v in assigned)


def _augmented_assignments(function: cst.FunctionDef, name: str) -> list[cst.AugAssign]:
    found: list[cst.AugAssign] = []

    class Visitor(cst.CSTVisitor):
        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            if isinstance(node.target, cst.Name) and node.target.value == name:
                found.append(node)

    function.body.visit(Visitor())
    return found


def _is_size_expression(node: cst.BaseExpression, sizes: set[str]) -> bool:
    """Built from size names with `+ - *` and int literals, and reads at least one size."""
    if isinstance(node, cst.Name):
        return node.value in sizes
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, SIZE_ARITHMETIC):
        parts = (node.left, node.right)
        return any(_is_size_expression(p, sizes) for p in parts) and all(
            _is_size_expression(p, sizes) or isinstance(p, cst.Integer) for p in parts
        )
    return False


def _size_use(ctx: FixContext, read: cst.Name, sizes: set[str]) -> bool:
    """Raise Rejected unless `read` (a size name) is used where a 0-d int64 tensor and a Python int
    give the same result; return True when that holds only for sizes below 2**23."""
    node: cst.CSTNode = read
    with_float = False
    while True:
        parent = ctx.parent(node)
        if isinstance(parent, cst.BinaryOperation):
            other = parent.right if parent.left is node else parent.left
            if isinstance(parent.operator, cst.Divide | cst.Add | cst.Subtract | cst.Multiply) and _not_zero_dim(other):
                return with_float  # a tensor result, computed the same way either way
            if not isinstance(parent.operator, SIZE_ARITHMETIC):
                raise Rejected("a size in an operator other than + - *")
            if isinstance(other, cst.Float):
                with_float = True
            elif not (isinstance(other, cst.Integer) or _is_size_expression(other, sizes)):
                raise Rejected("a size combined with something that is not a size")
            node = parent
            continue
        if isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Minus):
            node = parent
            continue
        break
    parent = ctx.parent(node)
    if isinstance(parent, cst.Arg) and parent.value is node and not parent.star:
        call = ctx.parent(parent)
        if isinstance(call, cst.Call) and _takes_sizes(call, parent, with_float):
            return with_float
    if isinstance(parent, cst.Slice) and not with_float:
        return False
    if isinstance(parent, cst.Assign | cst.AugAssign) and parent.value is node and not with_float:
        return False  # the target is a size name, checked on its own
    if isinstance(parent, cst.For) and parent.iter is node:
        raise Rejected("iterating a size")
    raise Rejected("a size used where a tensor and an int may differ")


def _takes_sizes(call: cst.Call, arg: cst.Arg, with_float: bool) -> bool:
    name = dotted(call.func)
    if name == "range":
        return not with_float
    if name is not None and name.startswith("torch.") and name.count(".") == 1:
        function = name.split(".", 1)[1]
        if function not in SIZE_FACTORIES:
            return False
        if arg.keyword is not None and arg.keyword.value in ("dtype", "device", "layout", "requires_grad", "generator", "out"):
            return False
        if with_float:
            return function in VALUE_FACTORIES and arg is not _steps_argument(call, function)
        return True
    if isinstance(call.func, cst.Attribute) and call.func.attr.value in SIZE_METHODS:
        return not with_float and arg.keyword is None
    return False


def _steps_argument(call: cst.Call, function: str) -> cst.Arg | None:
    """`steps` of linspace/logspace (an int: a float there raises in both versions alike)."""
    if function == "arange":
        return None
    for index, arg in enumerate(call.args):
        if (arg.keyword is None and index == 2) or (arg.keyword is not None and arg.keyword.value == "steps"):
            return arg
    return None


def _not_zero_dim(node: cst.BaseExpression) -> bool:
    """A tensor indexing with a slice or None keeps a dimension, so it is never 0-d."""
    return isinstance(node, cst.Subscript) and any(
        isinstance(element.slice, cst.Slice)
        or (isinstance(element.slice, cst.Index) and isinstance(element.slice.value, cst.Name) and element.slice.value.value == "None")
        for element in node.slice
    )


def _name_reads(body: cst.CSTNode) -> dict[str, list[cst.Name]]:
    """Every `Name` read in `body` (not assignment targets, attribute names or keywords)."""
    reads: dict[str, list[cst.Name]] = {}

    class Visitor(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> bool:
            node.value.visit(self)
            return False

        def visit_Arg(self, node: cst.Arg) -> bool:
            node.value.visit(self)
            return False

        def visit_AssignTarget(self, node: cst.AssignTarget) -> bool:
            if not isinstance(node.target, cst.Name):
                node.target.visit(self)
            return False

        def visit_For(self, node: cst.For) -> bool:
            node.iter.visit(self)
            node.body.visit(self)
            if node.orelse is not None:
                node.orelse.visit(self)
            return False

        def visit_AugAssign(self, node: cst.AugAssign) -> bool:
            node.value.visit(self)  # `x += 1` reads x too, but as a size it was checked as one
            return False

        def visit_Name(self, node: cst.Name) -> None:
            reads.setdefault(node.value, []).append(node)

    body.visit(Visitor())
    return reads


# -- the callers: self.method(..., <tensor>, ...) in the same class -----------------------------


def _method_of(ctx: FixContext, function: cst.FunctionDef) -> tuple[cst.ClassDef, bool]:
    """The class defining `function`, and whether it is a staticmethod."""
    block = ctx.parent(function)
    owner = ctx.parent(block) if block is not None else None
    if not isinstance(owner, cst.ClassDef):
        raise Rejected("not a method")
    decorators = {dotted(d.decorator) for d in function.decorators}
    if decorators - {"staticmethod", None} or None in decorators:
        raise Rejected("a decorated method")
    return owner, "staticmethod" in decorators


def _call_sites(ctx: FixContext, method: tuple[cst.ClassDef, bool], loop: Loop) -> list[tuple[cst.Call, cst.Name]]:
    """`self.f(...)` calls in the class, and the argument each passes for the loop's parameter
    when it is a plain name."""
    owner, static = method
    params = loop.function.params
    positional = [p.name.value for p in (*params.posonly_params, *params.params)]
    if not static:
        positional = positional[1:]
    name = loop.function.name.value
    found: list[tuple[cst.Call, cst.Name]] = []

    class Visitor(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> None:
            callee = dotted(call.func)
            if callee != f"self.{name}" and not (static and callee == f"{owner.name.value}.{name}"):
                return
            if any(arg.star for arg in call.args):
                return
            for index, arg in enumerate(call.args):
                matches = (
                    arg.keyword.value == loop.parameter
                    if arg.keyword is not None
                    else index < len(positional) and positional[index] == loop.parameter
                )
                if matches and isinstance(arg.value, cst.Name):
                    found.append((call, arg.value))

    owner.body.visit(Visitor())
    return found


def _twin(ctx: FixContext, call: cst.Call, argument: cst.Name) -> tuple[str, list[str]] | None:
    """The Python list the tensor `argument` holds the values of, and the assumptions that takes."""
    caller = enclosing_function(ctx, call)
    if caller is None:
        return None
    facts = LocalFacts.of(ctx, caller)
    name = argument.value
    if name in facts.params:
        return _parameter_twin(caller, facts, name)
    values = facts.values(name)
    if len(values) != 1 or not isinstance(values[0], cst.Call):
        return None
    built = values[0]
    assignment = ctx.statement_of(built)
    if assignment is None or _inside_loop(ctx, assignment, caller) or not _builds_int_tensor(built):
        return None
    source = built.args[0].value
    if not isinstance(source, cst.Name) or not _holds_sizes(ctx, caller, facts, source.value):
        return None
    built_row = ctx.position(assignment).end.line
    if not built_row < ctx.position(call).start.line:
        return None
    last_row = None if _inside_loop(ctx, call, caller) else ctx.position(call).start.line
    notes = _passed_on(ctx, caller, source, built_row, last_row)
    if notes is None:
        return None
    return source.value, notes


def _unused_builders(ctx: FixContext, replaced: list[cst.Name]) -> list[Edit]:
    """Delete `A = torch.as_tensor(L)` when every read of `A` was replaced by `L`. It cannot
    raise (`_holds_sizes`: a list of equal-length tuples of ints), so only dead code goes."""
    edits: list[Edit] = []
    for name in dict.fromkeys(argument.value for argument in replaced):
        arguments = [a for a in replaced if a.value == name]
        caller = enclosing_function(ctx, arguments[0])
        if caller is None:
            continue
        facts = LocalFacts.of(ctx, caller)
        if name in facts.params or any(read not in arguments for read in _name_reads(caller.body).get(name, [])):
            continue
        (value,) = facts.values(name)
        line = ctx.statement_of(value) if value is not None else None
        if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1:
            edits.append(ctx.delete_line(line))
    return edits


def _parameter_twin(caller: cst.FunctionDef, facts: LocalFacts, name: str) -> tuple[str, list[str]] | None:
    for suffix in TWIN_SUFFIXES:
        twin = facts.params.get(name + suffix)
        if twin is None or twin.default is not None or facts.values(twin.name.value):
            continue
        return twin.name.value, [
            f"assumes callers of `{caller.name.value}` pass `{twin.name.value}` holding the sizes in `{name}`"
        ]
    return None


def _builds_int_tensor(call: cst.Call) -> bool:
    """`torch.as_tensor(L)` / `torch.tensor(L)`, with an integer dtype or none (ints give int64)."""
    if dotted(call.func) not in BUILDERS or not call.args or call.args[0].keyword is not None or call.args[0].star:
        return False
    for arg in call.args[1:]:
        if arg.keyword is None or arg.keyword.value not in ("dtype", "device"):
            return False
        if arg.keyword.value == "dtype" and dotted(arg.value) not in INTEGER_DTYPES:
            return False
    return True


def _holds_sizes(ctx: FixContext, function: cst.FunctionDef, facts: LocalFacts, name: str) -> bool:
    """`name` is assigned once, a list display of tuples of sizes (often `[]`), and only ever
    grows by `.append(<tuple of sizes>)`."""
    values = facts.values(name)
    if len(values) != 1 or not isinstance(values[0], cst.List):
        return False
    scalars = facts.python_scalars()
    lengths = {_size_tuple(element.value, facts, scalars) for element in values[0].elements}
    for read in _name_reads(function.body).get(name, []):
        parent = ctx.parent(read)
        if isinstance(parent, cst.Subscript) and isinstance(ctx.parent(parent), cst.AssignTarget | cst.AugAssign | cst.Del):
            return False  # `L[i] = ...`, `del L[i]`
        if isinstance(parent, cst.Attribute) and parent.value is read:
            call = ctx.parent(parent)
            if not isinstance(call, cst.Call) or call.func is not parent or parent.attr.value != "append":
                return False
            if len(call.args) != 1:
                return False
            lengths.add(_size_tuple(call.args[0].value, facts, scalars))
    return len(lengths) == 1 and None not in lengths  # equal-length rows: as_tensor cannot fail


def _size_tuple(node: cst.BaseExpression, facts: LocalFacts, scalars: frozenset[str]) -> int | None:
    """The length of a tuple display of Python sizes (or a name assigned only that), else None."""
    if isinstance(node, cst.Name) and node.value not in facts.params:
        values = facts.values(node.value)
        return _size_tuple(values[0], facts, scalars) if len(values) == 1 and values[0] is not None else None
    if isinstance(node, cst.Tuple) and all(
        not isinstance(e, cst.StarredElement) and is_python_number(e.value, scalars) for e in node.elements
    ):
        return len(node.elements)
    return None


def _passed_on(
    ctx: FixContext, function: cst.FunctionDef, source: cst.Name, built_row: int, last_row: int | None
) -> list[str] | None:
    """None when the list may change after the tensor is built from it (a method call on it);
    else a note for each other call it is passed to before the call site (`last_row`; None when
    the call site is in a loop), which could modify it."""
    notes: list[str] = []
    for read in _name_reads(function.body).get(source.value, []):
        row = ctx.position(read).start.line
        if read is source or (last_row is not None and row >= last_row):
            continue
        parent = ctx.parent(read)
        if isinstance(parent, cst.Attribute) and row > built_row:
            return None
        if isinstance(parent, cst.Arg):
            call = ctx.parent(parent)
            callee = dotted(call.func) if isinstance(call, cst.Call) else None
            notes.append(f"assumes `{callee or 'the call'}` (line {row}) does not modify `{source.value}`")
    return notes


def _inside_loop(ctx: FixContext, node: cst.CSTNode, function: cst.FunctionDef) -> bool:
    for ancestor in ctx.ancestors(node):
        if ancestor is function:
            return False
        if isinstance(ancestor, cst.For | cst.While):
            return True
    return False
