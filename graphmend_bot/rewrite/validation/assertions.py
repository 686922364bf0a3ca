"""`assert <tensor cond>, <computed message>` -> `torch._assert_async(<cond>, "<static message>")`.

GM202's findings: asserts Dynamo cannot lower to `torch._assert_async` itself (a computed
message, a chained comparison, `and`/`or`/`not`). The rewrite is written only when the condition
is provably a one-element tensor (`ConditionLowering`: a reduction, a comparison of such values,
`logical_*` of them), so `torch._assert_async` gets what it accepts; anything else keeps its
advice. The message stays formatted when every formatted value is provably a Python string or
number (rewrite/python_strings.py: `_assert_increasing('t', t)` keeps `'{}...'.format(name)`).
Otherwise eager calls keep the assert exactly as written, values in the message included, and only
compiled code takes the graph-safe check, whose literal message shows the formatted expressions by
their source text (reading a tensor value for the message would itself break, on every call):

    if torch.compiler.is_compiling():
        assert (t0 <= t) & (t <= t1), "bad time: t0={t0}, t={t}"
    else:
        assert t0 <= t <= t1, f"bad time: t0={t0}, t={t}"

`is_compiling()` is a constant while Dynamo traces, so the `if` itself costs no break.

Measured on torch 2.13 (tests/fixtures/rewrite/assertions): the rewritten asserts compile to one
graph; a passing condition passes eagerly, a failing one raises RuntimeError carrying the message.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import cast

import libcst as cst

from graphmend_bot.findings import Finding, Fix
from graphmend_bot.rewrite.branching import ConditionLowering, LocalFacts, enclosing_function, torch_import
from graphmend_bot.rewrite.context import FixContext
from graphmend_bot.rewrite.purity import Rejected
from graphmend_bot.rewrite.python_strings import is_python_text
from graphmend_bot.rewrite.validation.assert_tests import tensor_valued, traceable_test
from graphmend_bot.rewrite.validation.guards import _assert_call as assert_call
from graphmend_bot.rewrite.validation.handlers import inside_try_with_handlers

PREFIX = "AssertionError: "
MAX_LINE = 100


def build_fix(ctx: FixContext, finding: Finding) -> Fix | None:
    test = ctx.node_at(finding)
    statement = ctx.parent(test) if test is not None else None
    if not isinstance(statement, cst.Assert) or statement.test is not test:
        return None
    line = ctx.parent(statement)
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
        return None  # `assert a; b = 1` on one line: leave it
    if inside_try_with_handlers(ctx, line):
        return None  # Dynamo would lower the rewritten assert, whose failure escapes the handler (handlers.py)
    facts = LocalFacts.of(ctx, enclosing_function(ctx, statement))
    function = enclosing_function(ctx, statement)
    formatted = _formatted_message(ctx, statement.msg, function, facts)
    if formatted is None:
        kept = _constant_message_fix(ctx, line, statement) or _split_conjunction_fix(ctx, line, statement)
        if kept is not None:
            return kept
    # Eager calls keep the assert as written (AssertionError, its formatted values, `python -O`); only
    # compiled code, where the assert breaks the graph, takes torch._assert_async (issue 24).
    # The call evaluates the condition once, where the assert did.
    lowering = ConditionLowering(ctx, facts, evaluated_as_written=True, operators=True)
    try:
        condition = _condition(ctx, lowering, statement.test)
    except Rejected:
        # torchdiffeq's `diff.all() or (~diff).all()`: not provably 0-d, but a tensor, and
        # torch._assert_async checks any element count as the assert did (see assert_tests).
        traced = traceable_test(ctx.relative_code, statement.test) if tensor_valued(statement.test) else None
        if traced is None:
            return None
        condition = traced
    message = formatted or _static_message(ctx, statement.msg)
    if message is None:
        return None
    call = assert_call(condition, message, ctx.indent_unit)
    where = "under torch.compile, "
    assumptions = [
        f"{where}it raises RuntimeError instead of AssertionError (on CUDA at the next synchronisation), so "
        "code catching AssertionError no longer catches it",
        f"{where}the program is not run with `python -O`, which strips `assert` but not this call",
    ]
    if statement.msg is not None and not isinstance(statement.msg, cst.SimpleString) and not message.endswith(")"):
        assumptions.append(f"{where}the message shows the source of what it formatted, not the values")
    assumptions.extend(lowering.assumptions)
    summary = ("Lower the assert to `torch._assert_async` under torch.compile (the check stays in the "
               "graph; eager calls keep the assert as written)")
    return Fix.of(
        summary,
        (*torch_import(ctx), ctx.replace_statement(line, _compiled_arm(ctx, call, line))),
        tuple(assumptions),
        wording="clause",
    )


def _formats_values(message: cst.BaseExpression | None) -> bool:
    """Whether the message formats values at run time (an f-string with fields, `.format`, `%`, a
    call), which a constant message would lose."""
    if message is None or isinstance(message, cst.SimpleString):
        return False
    if isinstance(message, cst.ConcatenatedString):
        return _formats_values(message.left) or _formats_values(message.right)
    if isinstance(message, cst.FormattedString):
        return any(isinstance(part, cst.FormattedStringExpression) for part in message.parts)
    return True


def _compiled_arm(ctx: FixContext, compiled: str, line: cst.SimpleStatementLine) -> str:
    """`compiled` for code Dynamo traces; the original statement, as written, for eager calls."""
    original = ctx.relative_span_code(line, line)
    return f"if torch.compiler.is_compiling():\n{ctx.indent_block(compiled)}\nelse:\n{ctx.indent_block(original)}"


def _constant_message_fix(ctx: FixContext, line: cst.SimpleStatementLine, statement: cst.Assert) -> Fix | None:
    """`assert <test>, "<constant message>"` with the test as one traceable expression
    (rewrite/validation/assert_tests.py): Dynamo lowers that to torch._assert_async itself, and eager code
    keeps the assert and AssertionError. Formatted values are shown by their source text."""
    test = traceable_test(ctx.relative_code, statement.test)
    if test is None:
        return None
    literal = _static_message(ctx, statement.msg, prefix="") if statement.msg is not None else None
    if statement.msg is not None and literal is None:
        return None
    if isinstance(statement.msg, cst.SimpleString):
        literal = ctx.code_for(statement.msg).strip()  # a constant already: as written
    code = f"assert {test}, {literal}" if literal is not None else f"assert {test}"
    if len(code) + len(ctx.indentation_of(line)) > MAX_LINE:
        code = f"assert {test}, (\n{ctx.indent_unit}{literal}\n)"
    changes = []
    if test != ctx.relative_code(statement.test).strip():
        changes.append("`and`/`or`/chains become `&`/`|`, which evaluate every operand (each is a "
                       "comparison or predicate that cannot raise)")
    if not _formats_values(statement.msg):
        return Fix.of(
            "Keep the assert as one tensor expression with a constant message (Dynamo then keeps the "
            "check in the graph as `torch._assert_async`; eager code still raises AssertionError)",
            (ctx.replace_statement(line, code),),
            tuple(changes),
            wording="clause",
        )
    # The values in the message are what an eager failure is read for: eager calls keep them.
    changes = [f"under torch.compile, {change}" for change in changes]
    changes.append("under torch.compile, the failure is Dynamo's RuntimeError and its message shows the source "
                   "of what it formatted, not the values")
    return Fix.of(
        "Under torch.compile, assert one tensor expression with a constant message (Dynamo keeps the check "
        "in the graph as `torch._assert_async`); eager calls keep the assert and its formatted message",
        (*torch_import(ctx), ctx.replace_statement(line, _compiled_arm(ctx, code, line))),
        tuple(changes),
        wording="clause",
    )


def _split_conjunction_fix(ctx: FixContext, line: cst.SimpleStatementLine, statement: cst.Assert) -> Fix | None:
    """`assert A and B, "m"` -> `assert A, "m"` then `assert B, "m"`, when each part is a test
    Dynamo lowers itself (see `_constant_message_fix`) but `A & B` is not safe (B indexes, so it
    may only run where A held). Python evaluates the two asserts as it evaluated the `and`: B only
    when A held, the same message, AssertionError: eager behaviour is the same by construction."""
    conjuncts = _conjuncts(statement.test)
    if len(conjuncts) < 2:
        return None
    if statement.msg is not None and not (isinstance(statement.msg, cst.SimpleString)
                                          and "b" not in statement.msg.prefix.lower()):
        return None  # a computed message would be evaluated by each part: only constants are split
    tests = [traceable_test(ctx.relative_code, conjunct) for conjunct in conjuncts]
    if any(test is None for test in tests):
        return None
    message = f", {ctx.code_for(statement.msg).strip()}" if statement.msg is not None else ""
    parts = [f"assert {test}{message}" for test in tests]
    if any(len(part) + len(ctx.indentation_of(line)) > MAX_LINE for part in parts):
        return None
    changes = [] if all(test == ctx.relative_code(c).strip() for test, c in zip(tests, conjuncts)) else [
        "`and`/`or`/chains inside a part become `&`/`|`, which evaluate every operand (each is a comparison "
        "or predicate that cannot raise)"]
    return Fix.of(
        "Split the assert at its `and` into one assert per condition, each a single tensor test Dynamo "
        "keeps in the graph as `torch._assert_async` (eager code checks the same conditions in the same order)",
        (ctx.replace_statement(line, "\n".join(parts)),),
        tuple(changes),
        wording="clause",
    )


def _conjuncts(test: cst.BaseExpression) -> list[cst.BaseExpression]:
    """`A and B and C` -> [A, B, C]; any other test -> [test]."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return [*_conjuncts(test.left), *_conjuncts(test.right)]
    return [test]


def _condition(ctx: FixContext, lowering: ConditionLowering, test: cst.BaseExpression) -> str:
    """Tensor code for the assert's test; a chained comparison becomes `logical_and` of its links."""
    if isinstance(test, cst.Comparison) and len(test.comparisons) > 1:
        return _chain(ctx, lowering, test)
    return lowering.lower(test)


def _chain(ctx: FixContext, lowering: ConditionLowering, test: cst.Comparison) -> str:
    """`a <= t <= b` -> `(a <= t) & (t <= b)`; the middle operands must be names,
    which evaluating twice cannot change (the chain evaluated them once)."""
    left: cst.BaseExpression = test.left
    links: list[str] = []
    for index, comparison in enumerate(test.comparisons):
        right = comparison.comparator
        if index < len(test.comparisons) - 1 and not isinstance(right, cst.Name):
            raise Rejected("a middle operand of the chain is not a plain name")
        link = cst.Comparison(left=left, comparisons=[comparison.with_changes(comparator=right)])
        lowering.lower(link)  # raises Rejected unless the link is provably a 0-d tensor
        links.append(ctx.code_for(link).strip())
        left = right
    # Each link is a comparison, a bool tensor: `&` is their logical and.
    return " & ".join(f"({link_code})" for link_code in links)


def _formatted_message(ctx: FixContext, message: cst.BaseExpression | None, function: cst.FunctionDef | None,
                       facts: LocalFacts) -> str | None:
    """The message still formatted, prefixed: `"AssertionError: {} must ...".format(name)`, when every
    formatted value is provably a Python string or number (formatting it on every call reads no
    tensor); None otherwise."""
    if isinstance(message, cst.FormattedString) and not message.start.lower().startswith(("rf", "fr", "b")):
        values = [part.expression for part in message.parts if isinstance(part, cst.FormattedStringExpression)]
        if values and all(is_python_text(ctx, value, function, facts) for value in values):
            code = ctx.code_for(message)
            return f"{code[:len(message.start)]}{PREFIX}{code[len(message.start):]}"
        return None
    if (
        isinstance(message, cst.Call)
        and isinstance(message.func, cst.Attribute)
        and message.func.attr.value == "format"
        and isinstance(message.func.value, cst.SimpleString)
        and "r" not in message.func.value.prefix.lower()
        and "b" not in message.func.value.prefix.lower()
        and message.args
        and all(not arg.star and is_python_text(ctx, arg.value, function, facts) for arg in message.args)
    ):
        template = message.func.value
        opening = template.prefix + template.quote
        code = ctx.code_for(message)
        return f"{code[:len(opening)]}{PREFIX}{code[len(opening):]}"
    return None


def _static_message(ctx: FixContext, message: cst.BaseExpression | None, prefix: str = PREFIX) -> str | None:
    """A string literal for the message: `"AssertionError: ..."` (`prefix` first); None when none
    can be written."""
    if message is None:
        return f'"{PREFIX.rstrip(": ")}"'
    if isinstance(message, cst.SimpleString):
        if "b" in message.prefix.lower():
            return None
        return _literal(message.evaluated_value if isinstance(message.evaluated_value, str) else None, prefix)
    if isinstance(message, cst.FormattedString):
        texts = [part.value for part in message.parts if isinstance(part, cst.FormattedStringText)]
        if any("\\" in text for text in texts):
            return None  # escapes: not worth re-encoding
        return _literal("".join(
            part.value.replace("{{", "{").replace("}}", "}") if isinstance(part, cst.FormattedStringText)
            else "{" + ctx.code_for(cast(cst.FormattedStringExpression, part).expression).strip() + "}"
            for part in message.parts
        ), prefix)
    if (
        isinstance(message, cst.Call)
        and isinstance(message.func, cst.Attribute)
        and message.func.attr.value == "format"
        and isinstance(message.func.value, cst.SimpleString)
    ):
        template = message.func.value.evaluated_value
        return _literal(_shown_format(ctx, template, message.args) if isinstance(template, str) else None, prefix)
    return None  # a variable or a computed expression: no faithful literal


def _shown_format(ctx: FixContext, template: str, args: Sequence[cst.Arg]) -> str:
    """`'{} must be increasing'.format(name)` shown as `{name} must be increasing`, like an
    f-string's fields; the template as written when its fields cannot be matched to arguments."""
    positional = [ctx.code_for(a.value).strip() for a in args if a.keyword is None and not a.star]
    keywords = {a.keyword.value: ctx.code_for(a.value).strip() for a in args if a.keyword is not None}
    if any(a.star for a in args):
        return template
    shown: list[str] = []
    automatic = 0
    try:
        fields = list(string.Formatter().parse(template))
    except ValueError:
        return template
    for text, field, spec, conversion in fields:
        shown.append(text)
        if field is None:
            continue
        if spec or conversion:
            return template
        if field == "":
            source = positional[automatic] if automatic < len(positional) else None
            automatic += 1
        elif field.isdigit():
            source = positional[int(field)] if int(field) < len(positional) else None
        else:
            source = keywords.get(field)
        if source is None:
            return template
        shown.append("{" + source + "}")
    return "".join(shown)


def _literal(text: str | None, prefix: str = PREFIX) -> str | None:
    """`text` after `prefix` as a Python string literal, in double quotes where it can be."""
    if text is None:
        return None
    literal = repr(prefix + text)
    if literal.startswith("'") and '"' not in text:
        literal = '"' + literal[1:-1] + '"'
    return literal
