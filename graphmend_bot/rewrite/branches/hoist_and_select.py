"""Hoist and select (the LongRoPE shape): arms that end in the same statement differing in one tensor
value, after preparation steps safe to run unconditionally, become the hoisted steps and one
`torch.where` (predicate.py's last form).
"""

from __future__ import annotations

import libcst as cst

from graphmend_bot.findings import Fix
from graphmend_bot.rewrite.branches.where_assumptions import Verdict
from graphmend_bot.rewrite.branches.where_rendering import (
    block_code,
    chain_comments,
    expression_code,
    wrap_call_statement,
)
from graphmend_bot.rewrite.branching import torch_import
from graphmend_bot.rewrite.context import FixContext
from graphmend_bot.rewrite.purity import ArmAnalyzer, dotted
from graphmend_bot.rewrite.statements import Chain


def merge_form(ctx: FixContext, chain: Chain, condition: str, analyzer: ArmAnalyzer) -> Fix | None:
    """Arms `[prep..., S(A)]` and `[prep..., S(B)]` -> `prep...; prep...; S(torch.where(c, A, B))`."""
    first, second = chain.bodies[0], chain.orelse
    assert second is not None
    if not first or not second:
        return None
    last_a, last_b = first[-1], second[-1]
    difference = _single_difference(last_a, last_b)
    if difference is None:
        return None
    value_a, value_b = difference
    if not isinstance(value_a, cst.BaseExpression) or not isinstance(value_b, cst.BaseExpression):
        return None
    if not isinstance(last_a, cst.SimpleStatementLine) or len(last_a.body) != 1:
        return None
    if isinstance(last_a.body[0], cst.Return | cst.Raise):
        return None  # returns are the return form's; raising is never merged
    prep_a, prep_b = list(first[:-1]), list(second[:-1])
    writes_a = _hoistable_writes(prep_a)
    writes_b = _hoistable_writes(prep_b)
    if writes_a is None or writes_b is None:
        return None
    if _reads(value_a) & writes_b or _reads(value_b) & writes_a:
        return None  # a value would see the other arm's preparation
    if any(_reads(s) & writes_b for s in prep_a) or any(_reads(s) & writes_a for s in prep_b):
        return None  # one arm's preparation would see the other's
    if _reads(last_a) & (writes_a | writes_b) - _reads(value_a) - _reads(value_b):
        return None
    verdict = Verdict()
    arms = [(expression_code(ctx, value_a), analyzer.analyze(value_a)), (expression_code(ctx, value_b), analyzer.analyze(value_b))]
    verdict.compare(arms, analyzer.known_float)
    verdict.copy_of_shared(ctx, chain.top, [value_a, value_b], analyzer.python_scalars)
    hoisted = [dotted(t) for t in map(_write_target, (*prep_a, *prep_b)) if t is not None]
    prepared = ", ".join(f"`{h}`" for h in dict.fromkeys(h for h in hoisted if h))
    if prepared:
        verdict.assumptions.insert(0, f"prepares {prepared} on both paths (a lazily filled cache or an idempotent `.to()`)")
    selected = f"torch.where({condition}, {arms[0][0]}, {arms[1][0]})"
    merged = _replace_node(last_a, value_a, cst.parse_expression(selected))
    merged_code = wrap_call_statement(ctx, merged.with_changes(leading_lines=()))
    pieces = [block_code(ctx, s) for s in (*prep_a, *prep_b)]
    comments = chain_comments(chain, skip_bodies=True)
    code = "\n".join([*comments, *pieces, merged_code.rstrip("\n")])
    edits = [*torch_import(ctx), ctx.replace_statement(chain.top, code)]
    return verdict.fix("Run both arms' preparation and select the differing value with `torch.where` instead of branching on a tensor", edits)


def _hoistable_writes(statements: list[cst.BaseStatement]) -> set[str] | None:
    """Attributes written by preparation steps that are safe to run on both paths, or None."""
    writes: set[str] = set()
    for statement in statements:
        target = _write_target(statement)
        name = dotted(target) if target is not None else None
        if name is None:
            return None
        writes.add(name)
    return writes


def _write_target(statement: cst.BaseStatement) -> cst.BaseExpression | None:
    """The attribute a hoistable step fills: `if not hasattr(o, "a"): o.a[, ...] = v` (a lazy
    cache) or `o.a = o.a.to(...)` (idempotent refresh)."""
    if isinstance(statement, cst.If) and statement.orelse is None and isinstance(statement.body, cst.IndentedBlock):
        test = statement.test
        if not (isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)):
            return None
        call = test.expression
        if not (isinstance(call, cst.Call) and dotted(call.func) == "hasattr" and len(call.args) == 2):
            return None
        owner, attribute = call.args[0].value, call.args[1].value
        if not isinstance(attribute, cst.SimpleString) or dotted(owner) is None:
            return None
        key = attribute.evaluated_value
        wanted = f"{dotted(owner)}.{key if isinstance(key, str) else key.decode()}"
        body = statement.body.body
        if len(body) != 1 or not isinstance(body[0], cst.SimpleStatementLine) or len(body[0].body) != 1:
            return None
        assign = body[0].body[0]
        if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
            return None
        target = assign.targets[0].target
        elements = [e.value for e in target.elements] if isinstance(target, cst.Tuple) else [target]
        if not any(dotted(e) == wanted for e in elements):
            return None
        if any(not isinstance(e, cst.Name | cst.Attribute) for e in elements):
            return None
        if any(isinstance(e, cst.Attribute) and dotted(e) != wanted for e in elements):
            return None
        return next(e for e in elements if dotted(e) == wanted)
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        assign = statement.body[0]
        if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
            return None
        target = assign.targets[0].target
        value = assign.value
        if not isinstance(target, cst.Attribute) or dotted(target) is None:
            return None
        if (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Attribute)
            and value.func.attr.value == "to"
            and dotted(value.func.value) == dotted(target)
            and all(isinstance(a.value, cst.Name | cst.Attribute) for a in value.args)
        ):
            return target
    return None


def _single_difference(a: cst.CSTNode, b: cst.CSTNode) -> tuple[cst.CSTNode, cst.CSTNode] | None:
    """The one pair of differing subtrees of `a` and `b` (ignoring whitespace), or None."""
    found: list[tuple[cst.CSTNode, cst.CSTNode]] = []

    def walk(x: cst.CSTNode, y: cst.CSTNode, parent: cst.CSTNode | None) -> None:
        if _same(x, y):
            return
        xs, ys = _significant_children(x), _significant_children(y)
        atomic = isinstance(x, cst.Attribute | cst.Name)
        if type(x) is type(y) and len(xs) == len(ys) and xs and not atomic and _same_leaf_fields(x, y):
            for cx, cy in zip(xs, ys):
                walk(cx, cy, x)
        elif isinstance(parent, cst.Arg | cst.Assign | cst.AnnAssign) and isinstance(x, cst.BaseExpression):
            found.append((x, y))
        else:
            found.append((x, x))  # a difference outside a value position: not mergeable
            found.append((y, y))

    walk(a, b, None)
    return found[0] if len(found) == 1 else None


def _same(x: cst.CSTNode, y: cst.CSTNode) -> bool:
    module = cst.Module(body=())
    return type(x) is type(y) and _normalized(module, x) == _normalized(module, y)


def _normalized(module: cst.Module, node: cst.CSTNode) -> str:
    code = module.code_for_node(node)
    return "".join(code.split())


def _significant_children(node: cst.CSTNode) -> list[cst.CSTNode]:
    return [c for c in node.children if not isinstance(c, cst.BaseParenthesizableWhitespace | cst.Comma | cst.EmptyLine | cst.TrailingWhitespace | cst.Newline | cst.LeftParen | cst.RightParen | cst.AssignEqual | cst.Dot)]


def _same_leaf_fields(x: cst.CSTNode, y: cst.CSTNode) -> bool:
    for name in ("value", "keyword"):
        vx, vy = getattr(x, name, None), getattr(y, name, None)
        if isinstance(vx, str) and vx != vy:
            return False
    return True


def _replace_node(tree: cst.CSTNode, old: cst.CSTNode, new: cst.CSTNode) -> cst.CSTNode:
    class Replacer(cst.CSTTransformer):
        def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode) -> cst.CSTNode:  # type: ignore[override]
            return new if original is old else updated

    replaced = tree.visit(Replacer())
    assert isinstance(replaced, cst.CSTNode)
    return replaced


def _reads(node: cst.CSTNode) -> set[str]:
    """Dotted attribute chains and names read in `node`."""
    found: set[str] = set()

    class Visitor(cst.CSTVisitor):
        def visit_Attribute(self, attribute: cst.Attribute) -> bool:
            name = dotted(attribute)
            if name is not None:
                found.add(name)
                return False
            return True

        def visit_Name(self, name: cst.Name) -> None:
            found.add(name.value)

    node.visit(Visitor())
    return found
