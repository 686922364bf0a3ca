"""Validation guards: `if <tensor cond>: raise E("msg")` -> `torch._assert_async(<not cond>, "E: msg")`.

`torch._assert_async(t, msg)` fails when the one-element tensor `t` is zero/False. Measured on torch
2.13: on CPU it raises synchronously, in eager mode and in code compiled with every backend
(eager, aot_eager, inductor), with `RuntimeError(msg)`; on CUDA the check runs on the device and
the error surfaces at the next synchronisation. A multi-element condition raises the same
"Boolean value of Tensor with more than one value is ambiguous" RuntimeError the `if` raised.
No graph-safe check keeps the exception type (`torch._check_value` raises ValueError but takes
only Python bools), so the message is prefixed with the original type's name (fix safety: GM201's
rule docs, `graphmend rule GM201`).

`if not torch.equal(a, b): raise E(msg)` becomes a static shape check that keeps raising `E` (shapes
are known while tracing, so it costs no graph break) followed by
`torch._assert_async((a == b).all(), ...)`; `torch.equal` promotes dtypes and treats NaN as
unequal, as `(a == b).all()` does.

`if not all(torch.equal(a, b) for a, b in pairs): raise E(msg)` (gpytorch's ExactGP training
check) is the same check pair by pair, in a `for a, b in pairs:` loop: pairs are taken in order and
the first unequal one raises, where `all()` stopped (`zip(..., strict=True)` raises its ValueError
at the same point). The loop binds `a` and `b` in the function, which the generator did not, so
neither name may appear anywhere else in it (measured on torch 2.13: the generator's break makes
Dynamo skip the whole frame; the loop compiles in one graph, tests/rewrite/test_guards.py).
"""

from __future__ import annotations

import libcst as cst

from graphmend_bot.findings import Finding, Fix
from graphmend_bot.rewrite.branching import (
    ConditionLowering,
    LocalFacts,
    enclosing_function,
    is_bool_tensor_code,
    is_python_number,
    torch_import,
)
from graphmend_bot.rewrite.context import FixContext, Rejected
from graphmend_bot.rewrite.purity import dotted, names_in, nodes_in
from graphmend_bot.rewrite.static_conditions import is_static, split_static_prefix
from graphmend_bot.rewrite.validation.handlers import inside_try_with_handlers
from graphmend_bot.rewrite.well_typed import require_well_typed


def build_fix(ctx: FixContext, finding: Finding) -> Fix | None:
    test = ctx.node_at(finding)
    statement = ctx.parent(test) if test is not None else None
    if not isinstance(statement, cst.If) or statement.test is not test:
        return None
    return _guard_fix(ctx, statement)


def build_pairwise_equal_fix(ctx: FixContext, finding: Finding) -> Fix | None:
    """GM105 on the `torch.equal(a, b)` of `if not all(torch.equal(a, b) for a, b in pairs): raise E(m)`
    (gpytorch's "You must train on the training inputs!"): the guard as a whole is lowered."""
    call = ctx.node_at(finding)
    chain = [*ctx.ancestors(call)][:5] if call is not None else []
    if len(chain) < 5:
        return None
    generator, argument, all_call, negation, statement = chain
    if not (isinstance(generator, cst.GeneratorExp) and generator.elt is call and isinstance(argument, cst.Arg)
            and isinstance(all_call, cst.Call) and isinstance(negation, cst.UnaryOperation)
            and isinstance(statement, cst.If) and statement.test is negation):
        return None
    return _guard_fix(ctx, statement) if _pairwise_equal(negation) is not None else None


def _guard_fix(ctx: FixContext, statement: cst.If) -> Fix | None:
    test = statement.test
    if statement.orelse is not None or inside_try_with_handlers(ctx, statement):
        return None  # a raise its own `try` catches is control flow: lowered, it would escape (handlers.py)
    if _follows_compiled_check(ctx, statement):
        return None  # this fix's own output: the `elif` runs eagerly, or on a Python bool when compiled
    body = statement.body
    if not isinstance(body, cst.IndentedBlock) or len(body.body) != 1:
        return None
    line = body.body[0]
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1 or not isinstance(line.body[0], cst.Raise):
        return None
    raise_node = line.body[0]
    facts = LocalFacts.of(ctx, enclosing_function(ctx, statement))
    exception = _exception(raise_node)
    if exception is None:
        return None
    type_name, message = exception
    # Only compiled code sees the new message: eager calls keep the `if` and its raise as written.
    text = _message(ctx, type_name, message, facts)
    if text is None:
        return None
    # The assertion evaluates the condition once, where the `if` did.
    lowering = ConditionLowering(ctx, facts, evaluated_as_written=True, operators=True)
    # A comparison of parameters or state (`if t0 > t1:`) need not be provably 0-d here: the `if`
    # raised for a multi-element condition, and torch._assert_async raises the same RuntimeError.
    lowering.assume_one_element = True
    try:
        if _pairwise_equal(test) is None:  # torch.equal's arguments are tensors, or it raised TypeError
            require_well_typed(ctx, facts, test, test)  # torch._assert_async only on tensors, never numpy
        check, detail = _compiled_check(ctx, statement, test, text, type_name, raise_node, facts, lowering)
    except Rejected:
        return None
    # Eager keeps the `if` as written (same type, message and timing, and no device-side assert on
    # CUDA); only compiled code, where the `if` breaks the graph, checks with torch._assert_async.
    compiled_arm = ctx.indent_block(check)
    gate = "torch.compiler.is_compiling()"
    if _may_be_python_bool(test):
        gate += f" and torch.is_tensor({ctx.code_for(test).strip()})"
    # An `elif` guard stays in its chain: `elif <gate>: <check>` goes before it.
    keyword, kept = ("elif", "") if _is_elif(ctx, statement) else ("if", "el")
    code = f"{keyword} {gate}:\n{compiled_arm}\n{kept}{ctx.relative_span_code(statement, statement)}"
    detail = f"eager calls keep the `if` and its `{type_name}`; {detail}"
    edits = [*torch_import(ctx), ctx.replace_statement(statement, code)]
    return Fix.of(
        f"Lower the validation guard to `torch._assert_async` under torch.compile ({detail})",
        tuple(edits),
        (_raised_instead(type_name), *lowering.assumptions),
        wording="clause",
    )


def _is_elif(ctx: FixContext, statement: cst.If) -> bool:
    parent = ctx.parent(statement)
    return isinstance(parent, cst.If) and parent.orelse is statement


def _follows_compiled_check(ctx: FixContext, statement: cst.If) -> bool:
    """`elif t0 > t1:` after `if torch.compiler.is_compiling() ...: torch._assert_async(...)`."""
    parent = ctx.parent(statement)
    if not _is_elif(ctx, statement) or not isinstance(parent, cst.If):
        return False
    first = parent.test.left if isinstance(parent.test, cst.BooleanOperation) else parent.test
    return isinstance(first, cst.Call) and dotted(first.func) == "torch.compiler.is_compiling"


def _compiled_check(
    ctx: FixContext,
    statement: cst.If,
    test: cst.BaseExpression,
    text: str,
    type_name: str,
    raise_node: cst.Raise,
    facts: LocalFacts,
    lowering: ConditionLowering,
) -> tuple[str, str]:
    """(code that checks the guard without leaving the graph, what it keeps); raises Rejected."""
    equal = _torch_equal_negated(test)
    if equal is not None:
        a, b = (ctx.code_for(arg.value).strip() for arg in equal.args)
        raise_code = ctx.code_for(raise_node).strip()
        check = _assert_call(f"({a} == {b}).all()", text, ctx.indent_unit)
        code = f"if {a}.shape != {b}.shape:\n{ctx.indent_unit}{raise_code}\n{check}"
        return code, "`torch.equal` becomes a static shape check (still raising `" + type_name + "`) and `(a == b).all()`"
    pairwise = _pairwise_equal(test)
    if pairwise is not None:
        return _pairwise_check(ctx, statement, pairwise, text, raise_node)
    sizes_first = _size_check_first(ctx, test, text, raise_node, facts, lowering)
    if sizes_first is not None:
        return sizes_first
    static, dynamic = split_static_prefix(test, facts)
    if static:
        # `if labels is not None and labels.max() >= n: raise` keeps its Python part.
        guard = " and ".join(ctx.code_for(part).strip() for part in static)
        negated = _not(dynamic, lowering.lower_conjunction(dynamic))
        call = _assert_call(negated, text, ctx.indent_unit)
        code = f"if {guard}:\n" + ctx.indent_block(call)
        return code, "the Python part of the condition stays an `if`; the tensor check stays in the graph"
    return _assert_call(_negated(lowering, test), text, ctx.indent_unit), "the check stays in the graph"


def _size_check_first(
    ctx: FixContext,
    test: cst.BaseExpression,
    text: str,
    raise_node: cst.Raise,
    facts: LocalFacts,
    lowering: ConditionLowering,
) -> tuple[str, str] | None:
    """`if not (n1 == n2 and torch.eq(x1, x2).all()): raise E(m)` (gpytorch's diag checks) ->
    `if n1 != n2: raise E(m)` then `torch._assert_async(torch.eq(x1, x2).all(), ...)`.

    The leading Python part (sizes, `is None`, flags) stays an `if` raising the original exception,
    and the tensor part is evaluated only where `and` evaluated it: `(n1 == n2) & torch.eq(x1, x2)`
    would compare tensors of different sizes, raising a broadcasting error instead of `m`."""
    if not (isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)):
        return None
    parts = _conjuncts(test.expression)
    scalars = facts.python_scalars()
    count = 0
    while count < len(parts) - 1 and (is_static(parts[count], facts) or _python_comparison(parts[count], scalars)):
        count += 1
    if count == 0:
        return None
    python_part, tensor_part = parts[:count], parts[count:]
    if len(python_part) == 1:
        guard = _negated_python(ctx, python_part[0])
    else:
        guard = "not (" + " and ".join(ctx.code_for(part).strip() for part in python_part) + ")"
    raise_code = ctx.code_for(raise_node).strip()
    check = _assert_call(lowering.lower_conjunction(tensor_part), text, ctx.indent_unit)
    code = f"if {guard}:\n{ctx.indent_unit}{raise_code}\n{check}"
    return code, "the Python part of the condition stays an `if` raising the original exception, checked first"


def _conjuncts(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(node, cst.BooleanOperation) and isinstance(node.operator, cst.And):
        return [*_conjuncts(node.left), *_conjuncts(node.right)]
    return [node]


def _python_comparison(node: cst.BaseExpression, scalars: frozenset[str]) -> bool:
    """A comparison of Python numbers only (`n1 == n2` on sizes unpacked from a shape)."""
    if not isinstance(node, cst.Comparison):
        return False
    return all(is_python_number(side, scalars) for side in (node.left, *(c.comparator for c in node.comparisons)))


def _negated_python(ctx: FixContext, node: cst.BaseExpression) -> str:
    """`not node` as a maintainer writes it: `a != b` for `a == b` (the same for every value,
    NaN included), `x is None` for `x is not None`, else `not (...)`."""
    if isinstance(node, cst.Comparison) and len(node.comparisons) == 1 and not node.lpar:
        (comparison,) = node.comparisons
        operator: cst.BaseCompOp | None = None
        if isinstance(comparison.operator, cst.Equal):
            operator = cst.NotEqual(whitespace_before=comparison.operator.whitespace_before,
                                    whitespace_after=comparison.operator.whitespace_after)
        elif isinstance(comparison.operator, cst.NotEqual):
            operator = cst.Equal(whitespace_before=comparison.operator.whitespace_before,
                                 whitespace_after=comparison.operator.whitespace_after)
        if operator is not None:
            return ctx.code_for(node.with_changes(comparisons=[comparison.with_changes(operator=operator)])).strip()
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        return ctx.code_for(node.expression).strip()
    code = ctx.code_for(node).strip()
    return f"not {code}" if isinstance(node, cst.Name | cst.Attribute) else f"not ({code})"


def _raised_instead(type_name: str) -> str:
    if type_name == "RuntimeError":
        return ("eager calls are unchanged; under torch.compile it still raises RuntimeError, but on CUDA only "
                "at the next synchronisation, after later kernels were queued")
    return (f"eager calls are unchanged; under torch.compile it raises RuntimeError with the message "
            f"prefixed by `{type_name}:` instead of `{type_name}` (on CUDA at the next "
            "synchronisation), so compiled code catching the original exception type no longer catches it")


def _assert_call(condition: str, message: str, indent: str) -> str:
    """`torch._assert_async(condition, message)`, one argument per line when it is long."""
    line = f"torch._assert_async({condition}, {message})"
    if len(line) <= 88 or "\n" in message:
        return line
    return f"torch._assert_async(\n{indent}{condition},\n{indent}{message},\n)"


def _exception(node: cst.Raise) -> tuple[str, cst.BaseExpression | None] | None:
    """The raised exception class name and its message argument (None when it has none)."""
    raised = node.exc
    if raised is None or node.cause is not None:
        return None
    if isinstance(raised, cst.Call):
        name = dotted(raised.func)
        if name is None or len(raised.args) > 1 or any(a.keyword or a.star for a in raised.args):
            return None
        if not name.rsplit(".", 1)[-1][:1].isupper():
            return None  # a factory function, not an exception class
        return name.rsplit(".", 1)[-1], raised.args[0].value if raised.args else None
    name = dotted(raised)
    if name is None or not name.rsplit(".", 1)[-1][:1].isupper():
        return None
    return name.rsplit(".", 1)[-1], None


def _message(ctx: FixContext, type_name: str, message: cst.BaseExpression | None, facts: LocalFacts) -> str | None:
    """The assertion message as a string literal: `"E: msg"`; None when it cannot be built without
    evaluating tensor values.

    Only compiled code sees it, so an f-string placeholder that formats a bare
    name or attribute (`{t0}`, possibly a tensor) is written as that placeholder, braces included
    (`"t0={t0}"`, as the assert rewrite shows formatted values): formatting a tensor would read its
    value (a break), eager calls keep the original message with the values, and the braces keep
    the compiled message readable (a bare name ran into the text: transformers' encodec
    `"...bigger than zero: {sum_weight}`"` read `"...zero: sum_weight`"`). A placeholder that
    computes something (`{x.min()}`) still leaves the guard alone."""
    if message is None:
        return f'"{type_name}"'
    if isinstance(message, cst.SimpleString):
        if "b" in message.prefix.lower():
            return None
        return _prefixed(message, type_name)
    if isinstance(message, cst.FormattedString):
        scalars = facts.python_scalars()
        parts: list[cst.BaseFormattedStringContent] = []
        for part in message.parts:
            if isinstance(part, cst.FormattedStringExpression) and not is_python_number(part.expression, scalars):
                named = dotted(part.expression)
                if named is None or part.conversion or part.format_spec or part.equal:
                    return None  # formatting a tensor would read its value
                parts.append(cst.FormattedStringText("{{" + named + "}}"))  # a literal `{name}`
            else:
                parts.append(part)
        return _prefixed(_without_empty_f_prefix(message.with_changes(parts=parts)), type_name)
    return None  # concatenations and computed messages are left alone


def _without_empty_f_prefix(node: cst.FormattedString) -> cst.FormattedString | cst.SimpleString:
    """A plain string literal for an f-string left with no placeholders (`{{` unescaped)."""
    if any(isinstance(part, cst.FormattedStringExpression) for part in node.parts):
        return node
    text = "".join(part.value for part in node.parts if isinstance(part, cst.FormattedStringText))
    prefix = node.prefix.replace("f", "").replace("F", "")
    return cst.SimpleString(f"{prefix}{node.quote}{text.replace('{{', '{').replace('}}', '}')}{node.quote}")


def _prefixed(node: cst.SimpleString | cst.FormattedString, type_name: str) -> str:
    """The literal's code with `type_name: ` at the start of its text (none for RuntimeError,
    the type torch._assert_async raises itself)."""
    code = cst.Module(body=()).code_for_node(node)
    if type_name == "RuntimeError":
        return code
    opening = node.start if isinstance(node, cst.FormattedString) else node.prefix + node.quote
    return f"{code[:len(opening)]}{type_name}: {code[len(opening):]}"


def _torch_equal_negated(test: cst.BaseExpression) -> cst.Call | None:
    """`torch.equal(a, b)` when the test is `not torch.equal(a, b)`."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        call = test.expression
        if (
            isinstance(call, cst.Call)
            and dotted(call.func) == "torch.equal"
            and len(call.args) == 2
            and all(a.keyword is None and not a.star and dotted(a.value) is not None for a in call.args)
        ):
            return call
    return None


COMPREHENSIONS = (cst.GeneratorExp, cst.ListComp, cst.SetComp, cst.DictComp)


def _pairwise_equal(test: cst.BaseExpression) -> cst.GeneratorExp | None:
    """The generator of `not all(torch.equal(a, b) for a, b in pairs)`: one `for` over two plain
    names, no `if`, both names the two arguments of `torch.equal`."""
    if not (isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)):
        return None
    call = test.expression
    if not (isinstance(call, cst.Call) and dotted(call.func) == "all" and len(call.args) == 1):
        return None
    generator = call.args[0].value
    if not isinstance(generator, cst.GeneratorExp) or call.args[0].keyword or call.args[0].star:
        return None
    clause, element = generator.for_in, generator.elt
    if clause.ifs or clause.inner_for_in is not None or clause.asynchronous is not None:
        return None
    targets = clause.target.elements if isinstance(clause.target, cst.Tuple) else ()
    names = [t.value.value for t in targets if isinstance(t.value, cst.Name)]
    if len(names) != 2 or len(set(names)) != 2 or len(targets) != 2:
        return None
    if not (isinstance(element, cst.Call) and dotted(element.func) == "torch.equal" and len(element.args) == 2):
        return None
    arguments = [a.value.value if isinstance(a.value, cst.Name) and not a.keyword and not a.star else None
                 for a in element.args]
    return generator if sorted(n for n in arguments if n) == sorted(names) else None


def _pairwise_check(
    ctx: FixContext, statement: cst.If, generator: cst.GeneratorExp, text: str, raise_node: cst.Raise
) -> tuple[str, str]:
    """`for a, b in pairs:` a static shape check raising the original exception, then
    `torch._assert_async((a == b).all(), ...)`: pair by pair, in order, stopping where `all()` did.
    A loop binds `a` and `b` in the function (a generator did not), so neither may appear in it
    anywhere else; raises Rejected otherwise."""
    names = names_in(generator.for_in.target)
    function = enclosing_function(ctx, statement)
    scope = nodes_in(function if function is not None else ctx.module)
    # Names of comprehensions that bind them themselves (this one, gpytorch's twin check) are their own.
    own = {id(node) for comprehension in scope if isinstance(comprehension, COMPREHENSIONS)
           if names_in(comprehension.for_in.target) & names for node in nodes_in(comprehension)}
    for node in scope:
        if isinstance(node, cst.Name) and node.value in names and id(node) not in own:
            raise Rejected(f"`{node.value}` is a name of the function too: the loop would rebind it")
    element = generator.elt
    assert isinstance(element, cst.Call)  # _pairwise_equal matched `torch.equal(a, b)`
    a, b = (ctx.code_for(arg.value).strip() for arg in element.args)
    raise_code = ctx.code_for(raise_node).strip()
    target = ctx.code_for(generator.for_in.target).strip()
    pairs = ctx.code_for(generator.for_in.iter).strip()
    check = _assert_call(f"({a} == {b}).all()", text, ctx.indent_unit)
    body = f"if {a}.shape != {b}.shape:\n{ctx.indent_unit}{raise_code}\n{check}"
    code = f"for {target} in {pairs}:\n{ctx.indent_block(body)}"
    return code, ("each `torch.equal` becomes a static shape check (still raising the original exception) and "
                  "`(a == b).all()`, pair by pair")


def _negated(lowering: ConditionLowering, test: cst.BaseExpression) -> str:
    """Tensor code that is true when the guard does not fire."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return lowering.lower(test.expression)
    code = lowering.lower(test)
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and not test.lpar:
        # `not (a != b)` is `a == b` even with NaN (unlike `not (a > b)` and `a <= b`).
        (comparison,) = test.comparisons
        operator = comparison.operator
        if isinstance(operator, cst.NotEqual | cst.Equal):
            flipped = cst.Equal if isinstance(operator, cst.NotEqual) else cst.NotEqual
            swapped = flipped(whitespace_before=operator.whitespace_before, whitespace_after=operator.whitespace_after)
            return lowering.ctx.code_for(test.with_changes(comparisons=[comparison.with_changes(operator=swapped)])).strip()
    return _not([test], code)


def _may_be_python_bool(test: cst.BaseExpression) -> bool:
    """A condition with no call in it (`t0 > t1`) is a Python bool when its operands are Python
    numbers, as parameters documented "float or 0-d tensor" are. `torch._assert_async` takes only a
    tensor (measured on torch 2.13: TypeError under torch.compile), and `torch.as_tensor` cannot
    convert the SymBool Dynamo makes of two dynamic floats, so such a guard asserts only when the
    condition is a tensor (`torch.is_tensor`, decided while tracing) and keeps the `if` otherwise."""
    return not any(isinstance(node, cst.Call) for node in nodes_in(test))


def _not(parts: list[cst.BaseExpression], code: str) -> str:
    """`~code` when every part is a bool tensor (it reads like the maintainers' own guards), else
    `torch.logical_not(code)` (`~` on a float or integer tensor would not negate it)."""
    if all(is_bool_tensor_code(part) for part in parts):
        single = len(parts) == 1 and isinstance(parts[0], cst.Call) and not code.startswith("~")
        return f"~{code}" if single else f"~({code})"
    return f"torch.logical_not({code})"
