"""Writing a branch rewrite as source: expressions as written, nested `torch.where`, statements
wrapped at MAX_LINE, and the comments of the arms carried over.
"""

from __future__ import annotations

import libcst as cst

from graphmend_bot.rewrite.context import FixContext
from graphmend_bot.rewrite.purity import nodes_in
from graphmend_bot.rewrite.statements import Chain

MAX_LINE = 100



def expression_code(ctx: FixContext, node: cst.BaseExpression) -> str:
    code = ctx.code_for(node).strip()
    return " ".join(part.strip() for part in code.splitlines()) if "\n" in code and not _has_string(node) else code


def _has_string(node: cst.CSTNode) -> bool:
    return any(isinstance(child, cst.BaseString) for child in nodes_in(node))


def nested_where(conditions: list[str], values: list[str]) -> str:
    """`torch.where(c1, v1, torch.where(c2, v2, v3))` for an elif chain."""
    if len(conditions) == 1 and conditions[0].startswith("torch.logical_not(") and _one_call(conditions[0]):
        # `torch.where(torch.logical_not(c), a, b)` reads better as `torch.where(c, b, a)`.
        return f"torch.where({conditions[0][len('torch.logical_not('):-1]}, {values[1]}, {values[0]})"
    if len(conditions) == 1 and conditions[0].startswith("~") and _one_call(conditions[0][1:]):
        return f"torch.where({conditions[0][1:]}, {values[1]}, {values[0]})"  # `~c`: swap the arms
    expression = values[-1]
    for condition, value in zip(reversed(conditions), reversed(values[:-1])):
        expression = f"torch.where({condition}, {value}, {expression})"
    return expression


def _one_call(code: str) -> bool:
    """`code` is a single call: its first opening parenthesis closes at the very end."""
    depth = 0
    for index, char in enumerate(code):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0 and char == ")":
            return index == len(code) - 1
    return False


def format_statement(prefix: str, expression: str, suffix: str) -> str:
    """One line, or the outer call's arguments one per line when it would be too long."""
    line = f"{prefix}{expression}{suffix}"
    if len(line) <= MAX_LINE or not expression.startswith("torch.where(") or "\n" in expression:
        return line
    arguments = _split_arguments(expression[len("torch.where("):-1])
    if arguments is None:
        return line
    inner = "".join(f"    {argument},\n" for argument in arguments)
    return f"{prefix}torch.where(\n{inner}){suffix}"


def _split_arguments(text: str) -> list[str] | None:
    parts: list[str] = []
    depth, start, quote = 0, 0, ""
    for index, char in enumerate(text):
        if quote:
            if char == quote:
                quote = ""
            continue
        if char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:index].strip())
            start = index + 1
    parts.append(text[start:].strip())
    return parts if len(parts) == 3 and all(parts) else None


def chain_comments(chain: Chain, skip_bodies: bool = False) -> list[str]:
    """Comment lines written inside the chain's arms, kept above the rewrite."""
    found: list[str] = []

    class Visitor(cst.CSTVisitor):
        def visit_Comment(self, comment: cst.Comment) -> None:
            found.append(comment.value)

    if skip_bodies:
        # Statements are copied with their own comments; keep only those on the `if`/`else` lines.
        for node in (chain.top.body, chain.top.orelse):
            header = getattr(node, "header", None) if isinstance(node, cst.IndentedBlock) else None
            if isinstance(node, cst.Else) and isinstance(node.body, cst.IndentedBlock):
                header = node.body.header
            if header is not None and header.comment is not None:
                found.append(header.comment.value)
        return found
    # Comments above the `if` (its leading_lines) stay where they are: outside the replaced range.
    chain.top.with_changes(leading_lines=()).visit(Visitor())
    return found


def block_code(ctx: FixContext, statement: cst.BaseStatement) -> str:
    """A statement's code with its own comments, continuation lines relative to its first line."""
    return ctx.relative_code(statement).rstrip("\n")


def wrap_call_statement(ctx: FixContext, statement: cst.CSTNode) -> str:
    """The statement's code; a one-line call statement that got too long gets one argument per line."""
    code = ctx.module.code_for_node(statement).rstrip("\n")
    if len(code) <= MAX_LINE or "\n" in code or not isinstance(statement, cst.SimpleStatementLine):
        return code
    small = statement.body[0]
    if not isinstance(small, cst.Expr) or not isinstance(small.value, cst.Call):
        return code
    call = small.value
    arguments = [
        ctx.module.code_for_node(arg.with_changes(comma=cst.MaybeSentinel.DEFAULT)).strip() for arg in call.args
    ]
    inner = "".join(f"    {argument},\n" for argument in arguments)
    return f"{ctx.module.code_for_node(call.func)}(\n{inner})"
