"""A sorted tensor searched through a Python list, `bisect.bisect(table.tolist(), v)`, kept a tensor.

torchdiffeq's adaptive solvers find the next prescribed time point once per integration
(`_impl/rk_common.py`, `_before_integrate`):

    self.next_step_index = min(bisect.bisect(self.step_t.tolist(), t[0]), len(self.step_t) - 1)

`.tolist()` copies the table to Python and `bisect` is a C function Dynamo cannot trace: two
breaks. `torch.searchsorted` is the same search on the tensor (`right=True` is `bisect_right`, the
default `right=False` is `bisect_left`), and `min(i, n)` of a 0-d tensor is `i.clamp(max=n)`:

    self.next_step_index = torch.searchsorted(self.step_t, t[0], right=True).clamp(max=len(self.step_t) - 1)

Measured on torch 2.13 against `min(bisect(T.tolist(), v), len(T) - 1)` (tests/rewrite/
test_bisect_search.py): equal over empty and non-empty tables, values below, between, at and above
the entries, ties, infinities, and for `bisect_right` NaN (both give `len(T)`); `bisect_left` puts a
NaN first where `searchsorted` puts it last. The comparisons differ in one more way: `bisect`
compares the value with the Python floats `tolist()` made, a 0-d tensor value in its own dtype;
`searchsorted` promotes the two, which differs where the value's dtype is not the table's (or is a
Python float with a table below float64). Both are assumptions of the fix.

The result is a 0-d long tensor where it was an `int`. It is kept only where every read of the
name in its scope (the class for `self.<attr>`, the function for a local) is a position where the
two behave alike: an index of the searched table (`table[i]`, a view either way), an operand of a
comparison that is an `if`/`while` test, or `+=`/`-=` of an integer literal. Anything else (a
call argument, `range`, a return, an f-string, `is`, a read outside the class) refuses the fix.
An integer `+=` on the tensor adds in place: the tensor is the fix's own and is never shared, as
the reads allowed show.

Preconditions, otherwise no fix: `bisect` is the standard library's (an `import bisect` or
`from bisect import ...` the module binds once, not shadowed where it is called); exactly two
positional arguments (no `lo`, `hi`, `key`); the list is `<table>.tolist()` of a table not shown
to be a non-tensor (a numpy array, a Python list), and `min` and `len` are the builtins. A table
that is not a tensor makes `torch.searchsorted` raise rather than compute another index. A table
of another rank: `bisect` over a 2-d table compares the value with rows, `searchsorted` raises.
"""

from __future__ import annotations

import ast

import libcst as cst

from graphmend_bot.findings import Finding, Fix
from graphmend_bot.rewrite.branching import LocalFacts, enclosing_function, torch_import
from graphmend_bot.rewrite.class_attributes import enclosing_class, inherited_assumption, self_attribute
from graphmend_bot.rewrite.context import FixContext, Rejected
from graphmend_bot.rewrite.purity import dotted
from graphmend_bot.rewrite.well_typed import TypeEvidence

# bisect's functions -> searchsorted's `right`
BISECTS = {"bisect": True, "bisect_right": True, "bisect_left": False}
STEPS = (cst.AddAssign, cst.SubtractAssign)


def build_fix(ctx: FixContext, finding: Finding) -> Fix | None:
    """GM303's fix: the finding is `T.tolist()`, the first argument of the bisect call (the call's
    own GM604 finding goes with it)."""
    node = ctx.node_at(finding)
    arg = ctx.parent(node) if node is not None else None
    call = ctx.parent(arg) if isinstance(arg, cst.Arg) and arg.value is node else None
    if not isinstance(call, cst.Call):
        return None
    try:
        return _search_fix(ctx, call)
    except Rejected:
        return None


def _search_fix(ctx: FixContext, call: cst.Call) -> Fix:
    right = _stdlib_bisect(ctx, call.func)
    if len(call.args) != 2 or any(arg.keyword is not None or arg.star for arg in call.args):
        raise Rejected("not a two-argument bisect: `lo`, `hi` and `key` have no searchsorted form")
    listed, value = call.args[0].value, call.args[1].value
    if not (isinstance(listed, cst.Call) and isinstance(listed.func, cst.Attribute) and listed.func.attr.value == "tolist"
            and not listed.args):
        raise Rejected("the list searched is not `<table>.tolist()`")
    table = dotted(listed.func.value)
    if table is None:
        raise Rejected("the table is not a name or attribute")
    function = enclosing_function(ctx, call)
    facts = LocalFacts.of(ctx, function)
    evidence = TypeEvidence(ctx, facts, call)
    evidence.require_tensors(listed.func.value, "the table")
    if self_attribute(listed.func.value) is not None:
        for assigned in _assignments(enclosing_class(ctx, call), table):
            evidence.require_tensors(assigned, f"a value assigned to `{table}`")
    else:
        # The index reads allowed are `table[i]`: a local `table` rebound to a dict after the search
        # would be looked up with the tensor's hash (measured: KeyError where the int found the key).
        for bound in facts.values(table):
            if bound is None:
                raise Rejected(f"`{table}` is bound by a loop, `with` or an augmented assignment")
            evidence.require_tensors(bound, f"a value assigned to `{table}`")
    search = f"torch.searchsorted({table}, {ctx.code_for(value).strip()}{', right=True' if right else ''})"
    replaced: cst.BaseExpression = call
    arg = ctx.parent(call)
    outer = ctx.parent(arg) if arg is not None else None
    if isinstance(outer, cst.Call) and _is_last_index_cap(ctx, outer, call, table):
        replaced, search = outer, f"{search}.clamp(max=len({table}) - 1)"
    target = _assigned_name(ctx, replaced)
    search = _wrapped(ctx, replaced, target, search)
    cls = enclosing_class(ctx, call) if target.startswith("self.") else None
    scope = cls or function
    if scope is None:
        raise Rejected("the result is assigned at module level")
    _require_int_like_reads(ctx, scope, target, table)
    if cls is not None:
        _require_no_outside_reads(ctx, cls, target.removeprefix("self."))
    assumptions = [
        f"`{table}` is sorted ascending, as bisect requires",
        f"`{ctx.code_for(value).strip()}` has `{table}`'s dtype: bisect compared it in its own dtype with "
        "the Python numbers `tolist()` made, searchsorted compares in the promoted dtype",
        f"`{target}` is now a 0-d long tensor: nothing outside the code read here uses it as a Python int",
    ]
    if not right:
        assumptions.append(f"`{ctx.code_for(value).strip()}` is not NaN: bisect_left puts NaN first, searchsorted last")
    if cls is not None:
        assumptions.extend(filter(None, [inherited_assumption(cls, [target])]))
    return Fix.of(
        "Search the sorted tensor with `torch.searchsorted` instead of bisecting its Python list",
        (*torch_import(ctx), ctx.replace_expression(replaced, search)),
        tuple(assumptions),
    )


def _wrapped(ctx: FixContext, replaced: cst.BaseExpression, target: str, search: str) -> str:
    """`search` split after `.clamp(` (black's layout) when the assignment would run past the longer of
    100 characters and the line it replaces."""
    statement = ctx.statement_of(replaced)
    indent = ctx.indentation_of(statement) if statement is not None else ""
    head, separator, cap = search.partition(".clamp(")
    replaced_line = ctx.line(ctx.span(replaced)[0].row).rstrip()
    if not separator or len(f"{indent}{target} = {search}") <= max(100, len(replaced_line)):
        return search
    return f"{head}.clamp(\n{indent}{ctx.indent_unit}{cap.removesuffix(')')}\n{indent})"


def _stdlib_bisect(ctx: FixContext, func: cst.BaseExpression) -> bool:
    """searchsorted's `right` for a call of the standard library's bisect (`bisect.bisect_left`,
    or a name `from bisect import ...` binds); raises Rejected for anything else."""
    imports = ctx.top_level_imports()
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.attr.value in BISECTS:
        module = func.value.value
        bound = f"import bisect as {module}" if module != "bisect" else "import bisect"
        if bound in imports and ctx.module_bindings(module) == 1 and ctx.resolves_to_module(func.value):
            return BISECTS[func.attr.value]
    if isinstance(func, cst.Name) and ctx.module_bindings(func.value) == 1 and ctx.resolves_to_module(func):
        for name, right in BISECTS.items():
            if {f"from bisect import {name}", f"from bisect import {name} as {func.value}"} & imports and (
                name == func.value or f"from bisect import {name} as {func.value}" in imports
            ):
                return right
    raise Rejected("the call is not the standard library's bisect")


def _is_builtin(ctx: FixContext, name: cst.BaseExpression, builtin: str) -> bool:
    if not (isinstance(name, cst.Name) and name.value == builtin) or ctx.module_bindings(builtin):
        return False
    function = enclosing_function(ctx, name)
    facts = LocalFacts.of(ctx, function)
    return builtin not in facts.params and not facts.values(builtin)


def _is_last_index_cap(ctx: FixContext, outer: cst.Call, call: cst.Call, table: str) -> bool:
    """`min(<call>, len(<table>) - 1)`, with the builtins."""
    if not _is_builtin(ctx, outer.func, "min") or len(outer.args) != 2:
        return False
    if any(arg.keyword is not None or arg.star for arg in outer.args) or outer.args[0].value is not call:
        return False
    cap = outer.args[1].value
    return (
        isinstance(cap, cst.BinaryOperation) and isinstance(cap.operator, cst.Subtract)
        and isinstance(cap.right, cst.Integer) and cap.right.value == "1"
        and isinstance(cap.left, cst.Call) and _is_builtin(ctx, cap.left.func, "len")
        and len(cap.left.args) == 1 and cap.left.args[0].keyword is None and not cap.left.args[0].star
        and dotted(cap.left.args[0].value) == table
    )


def _assigned_name(ctx: FixContext, node: cst.BaseExpression) -> str:
    """`self.attr` or `name` that the statement `<target> = <node>` assigns."""
    assign = ctx.parent(node)
    if not (isinstance(assign, cst.Assign) and assign.value is node and len(assign.targets) == 1):
        raise Rejected("the index is not assigned to one name or attribute")
    target = assign.targets[0].target
    if isinstance(target, cst.Name):
        return target.value
    if self_attribute(target) is not None:
        return dotted(target) or ""
    raise Rejected("the index is not assigned to a local or a `self` attribute")


def _require_int_like_reads(ctx: FixContext, scope: cst.CSTNode, target: str, table: str) -> None:
    """Every occurrence of `target` in `scope` is a store, an index of `table`, a comparison
    operand in an `if`/`while` test, or `+=`/`-=` of an integer literal."""
    occurrences: list[cst.BaseExpression] = []

    class Visitor(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> bool:
            if dotted(node) == target:
                occurrences.append(node)
                return False
            return True

        def visit_Name(self, node: cst.Name) -> None:
            if node.value == target:
                occurrences.append(node)

    scope.visit(Visitor())
    for node in occurrences:
        reason = _unlike_int(ctx, node, table, scope)
        if reason is not None:
            raise Rejected(f"`{target}` is read where a tensor is not an int: {reason}")


def _scope_of(ctx: FixContext, node: cst.CSTNode) -> cst.CSTNode | None:
    """The innermost function or lambda holding `node`, where a local `table` is looked up."""
    return next((a for a in ctx.ancestors(node) if isinstance(a, cst.FunctionDef | cst.Lambda)), None)


def _unlike_int(ctx: FixContext, node: cst.BaseExpression, table: str, scope: cst.CSTNode) -> str | None:
    parent = ctx.parent(node)
    if isinstance(parent, cst.AssignTarget):
        return None
    if isinstance(parent, cst.AugAssign) and parent.target is node:
        if isinstance(parent.operator, STEPS) and isinstance(parent.value, cst.Integer):
            return None
        return "an augmented assignment other than `+=`/`-=` of an integer"
    if isinstance(parent, cst.Index):
        element = ctx.parent(parent)
        subscript = ctx.parent(element) if element is not None else None
        if (isinstance(subscript, cst.Subscript) and len(subscript.slice) == 1 and dotted(subscript.value) == table
                and (isinstance(scope, cst.ClassDef) or _scope_of(ctx, node) is scope)):
            return None
        return "an index of something other than the table"
    comparison = parent if isinstance(parent, cst.Comparison) else (
        ctx.parent(parent) if isinstance(parent, cst.ComparisonTarget) else None
    )
    if isinstance(comparison, cst.Comparison):
        if any(isinstance(t.operator, cst.Is | cst.IsNot | cst.In | cst.NotIn) for t in comparison.comparisons):
            return "an identity or membership test"
        test_of = ctx.parent(comparison)
        if isinstance(test_of, cst.If | cst.While) and test_of.test is comparison:
            return None
        return "a comparison whose result is kept, not an `if` test"
    return f"`{ctx.code_for(parent).strip()[:60]}`" if parent is not None else "an unknown position"


def _assignments(cls: cst.ClassDef, attribute: str) -> list[cst.BaseExpression]:
    """The values `self.<attribute> = value` assigns in the class; each arm of `a if c else b`."""
    values: list[cst.BaseExpression] = []

    class Visitor(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            if any(dotted(target.target) == attribute for target in node.targets):
                values.append(node.value)

    cls.visit(Visitor())
    arms: list[cst.BaseExpression] = []
    while values:
        value = values.pop()
        if isinstance(value, cst.IfExp):
            values.extend((value.body, value.orelse))
        elif not (isinstance(value, cst.Name) and value.value == "None"):
            arms.append(value)
    return arms


def _require_no_outside_reads(ctx: FixContext, cls: cst.ClassDef, attribute: str) -> None:
    """No `<anything>.<attribute>` in the module but `self.<attribute>` in the class (another
    object's read, `solver.next_step_index` or a method's `other.next_step_index`, would get the
    tensor), nor the name as a string (`getattr`). Read
    on the whole source: the context blanks the functions and classes that hold no finding."""
    first, last = ctx.span(cls)
    for node in ast.walk(ast.parse(ctx.source)):
        if (isinstance(node, ast.Attribute) and node.attr == attribute and first.row <= node.lineno <= last.row
                and isinstance(node.value, ast.Name) and node.value.id == "self"):
            continue  # `other.<attribute>` in the class is another object's read, never checked as `self.`'s
        if (isinstance(node, ast.Attribute) and node.attr == attribute) or (
            isinstance(node, ast.Constant) and node.value == attribute
        ):
            raise Rejected(f"`{attribute}` is read outside the class or by name")
