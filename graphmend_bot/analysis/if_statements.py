"""`if` statements: the test is judged once, each arm runs on a copy of the environment and the
copies merge afterwards; a test that decides a compile guard or `is None` on a known value runs one
arm only, and a validation guard's raising arm (the error path) none."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, cast

from graphmend_bot.analysis import (
    breaking_reads,
    modes,
    narrowing,
    none_fallbacks,
    statement_forms,
    subclass_methods,
)
from graphmend_bot.analysis.frequency import is_rare_arm, on_by_default
from graphmend_bot.analysis.guards import compile_guard_value, without_guards
from graphmend_bot.vocabulary.kind import NOT_TENSOR, Kind

if TYPE_CHECKING:
    from graphmend_bot.analysis.function_state import Env
    from graphmend_bot.analysis.function_statements import StatementVisitor


def walk(visitor: StatementVisitor, node: ast.If, env: Env) -> bool:
    """Walk the `if`; True when both arms always leave."""
    under_compile = compile_guard_value(node.test, visitor.resolve, visitor.guards, visitor.guard_helpers)
    under_compile = narrowing.decided_by_none(node.test, env) if under_compile is None else under_compile
    if under_compile is not None:
        visitor._before_guard(node.test, env)
        return visitor.block(node.body if under_compile else node.orelse, env)
    test = without_guards(node.test, visitor.resolve, visitor.guards, visitor.guard_helpers)  # as Dynamo evaluates it
    without_exception = narrowing.exit_without_exception(visitor.node, node.test)
    if without_exception is not None:  # the exception arm of `__exit__`: dead where Dynamo traces it
        return visitor.block(node.body if without_exception else node.orelse, env)
    first_site = len(visitor.summary.calls)
    if statement_forms.is_validation_guard(node):
        visitor._bool_context(node.test, env, "guard")
        breaking_reads.ask_test(visitor, node, first_site)
        python_value = narrowing.isinstance_arm(node.test, visitor.resolve, visitor.builtin_of, visitor._module_functions)
        if python_value is not None and not python_value[1]:  # `if not isinstance(x, int): raise`
            env[python_value[0]] = NOT_TENSOR
        raised = cast(ast.Raise, node.body[0]).exc
        if raised is not None and statement_forms.caught_here(raised, visitor._handled):
            visitor._rare_block(node.body, dict(env), rare=True)  # a handler here catches it: traced when it runs
        return False  # the raising arm is the error path, never traced
    drafts_before = len(visitor._usual_draft_kinds)  # those made by the test are the `if`'s own breaks
    with modes.entered(visitor._modes, modes.test_mode(node.test, visitor.off_flags)):
        visitor._bool_context(test, env, "if")  # its arms run in the frame resumed at each
    breaking_reads.ask_test(visitor, node, first_site)
    visitor._resume_point(node, drafts_before)  # not by a generator's context manager: asked at every `if`
    body_env, else_env = narrowing.narrow_where_none(dict(env), test, True), narrowing.narrow_where_none(dict(env), test, False)
    python_value = narrowing.isinstance_arm(test, visitor.resolve, visitor.builtin_of, visitor._module_functions)
    if python_value is not None:
        (body_env if python_value[1] else else_env)[python_value[0]] = NOT_TENSOR
    tensor_name, tensor_in_body = narrowing.tensor_arm(test, visitor.resolve, visitor.builtin_of) or (None, False)
    checked = env.get(tensor_name) if tensor_name is not None else None
    eager_before = visitor._eager_after
    body_mode, else_mode = modes.arm_modes(node.test, visitor.off_flags)
    with subclass_methods.narrowed(visitor.instances, test, visitor.resolve, visitor.builtin_of):  # `if isinstance(x, Q): x.m()`
        body_leaves = visitor._rare_block(node.body, body_env, is_rare_arm(node.body) and not on_by_default(test, visitor.node), checked if tensor_in_body else None, body_mode)
    eager_after_body, visitor._eager_after = visitor._eager_after, eager_before
    else_leaves = visitor._rare_block(node.orelse, else_env, is_rare_arm(node.orelse), None if tensor_in_body else checked, else_mode)
    # a mode's arm does not run in the default mode, where the rest is traced (tests/test_mode_arm_rest.py)
    arms = ((eager_after_body, body_leaves, body_mode), (visitor._eager_after, else_leaves, else_mode))
    visitor._eager_after = eager_rest_after_arms(
        eager_before, [(eager, leaves) for eager, leaves, mode in arms if mode is None], visitor._loop_depth > 0)
    if not body_leaves and not visitor._loop_depth and (fallback := none_fallbacks.tested_parameter(node, visitor.node)):
        none_fallbacks.record(visitor.summary, fallback, body_env)  # `if p is None: p = ...`: by the callers
    statement_forms.merge_into(env, [] if body_leaves else [body_env], [] if else_leaves else [else_env])
    if body_leaves != else_leaves and (after := else_mode if body_leaves else body_mode) is not None:
        visitor._modes.append(after)  # `if not visitor.training: return x`: the rest runs in training only
    return body_leaves and else_leaves


def eager_rest_after_arms(before: Kind, arms: list[tuple[Kind, bool]], in_loop: bool) -> Kind:
    """What runs eagerly after an `if`, from the eager rest each arm leaves and whether it leaves.

    A break in a loop or `try` body of one arm makes Dynamo run the rest of the frame eagerly on the
    calls taking that arm only; on the others it traces on and breaks past the `if` (measured on
    torch 2.13: tests/test_eager_rest_arms.py, `if k == 0:` around a loop of `.item()` calls). So the
    rest is eager only where every arm reaching it made it so, or where the one arm that reaches it did.
    In a loop body any arm's break skips the whole frame (loop_calls.py): there each arm's counts.
    """
    if in_loop:
        return Kind.union([before, *(eager for eager, _ in arms)])
    reaching = [eager for eager, leaves in arms if not leaves]
    if not reaching:
        return before
    if len(reaching) == 1 or all(eager == reaching[0] for eager in reaching):
        return reaching[0]
    return before if any(eager == before for eager in reaching) else Kind.union(reaching)
