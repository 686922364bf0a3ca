"""How often a finding's line runs: on every call of its function, or only on a rare branch.

A break on a branch that valid inputs rarely take costs nothing on the hot path, so reports count
it apart ("every-call" vs "rare-branch"). A branch is rare when it handles an error or a
misconfiguration:

- an `if`/`elif`/`else` arm that raises among its own statements (error paths, validation);
- an arm that issues `warnings.warn` among its own statements (`if n_pred_ch == 1:
  warnings.warn("single channel prediction, `softmax=True` ignored.")`, `if t.device != y0.device:
  warnings.warn("Coercing to y0.device."); t = t.to(y0.device)`): Python's warning API is for
  misuse, misconfiguration and deprecation;
- an `except` handler.

An arm whose test is a parameter that defaults to True (`if warn:`) is not rare: it runs unless the
caller opts out (`on_by_default`).

An arm that only logs problems (`logger.warning/error/...`) is rare (`if len(unused_kwargs) > 0:
logger.warning("... ignored")`), and so is one that logs a problem and returns (an edge case
handled by bailing out, as torch_geometric's DataParallel does for an empty list). An arm that
logs and does other work is not (`if h.shape[0] > 1: logger.warning(...); print(...)`). Everything else, including the test of a rare
`if` (evaluated on every call), is every-call. Cheap: only the arm's own statements are looked at,
during the one traversal the analysis makes.
"""

from __future__ import annotations

import ast

WARNING_CALLS = frozenset({("warnings", "warn"), ("warnings", "warn_explicit")})
_WARNING_NAMES = frozenset(name for _, name in WARNING_CALLS)  # every arm of every `if` asks


PROBLEM_LOG_METHODS = frozenset({"warning", "warn", "error", "exception", "critical", "fatal"})


def is_rare_arm(body: list[ast.stmt]) -> bool:
    """The arm raises or issues a Python warning among its own statements, or logs a problem and
    bails out (`logging.warning("empty data list"); return None`)."""
    if any(isinstance(statement, ast.Raise) or _warns(statement) for statement in body):
        return True
    if body and all(_logs_problem(s) for s in body):
        return True  # an arm that only logs a problem: `if len(unused_kwargs) > 0: logger.warning(...)`
    return bool(body) and isinstance(body[-1], ast.Return) and any(_logs_problem(s) for s in body)


def on_by_default(test: ast.expr, function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """`test` is a parameter of `function` that defaults to True (`if warn:` in `f(x, warn=True)`):
    the arm is what a call does unless the caller opts out, not an error path, even when it warns
    (captum's `if warn: warnings.warn(...)` in a loop, whose break makes Dynamo skip the frame)."""
    if not isinstance(test, ast.Name):
        return False
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    defaults = [*[None] * (len(positional) - len(args.defaults)), *args.defaults, *args.kw_defaults]
    return any(
        arg.arg == test.id and isinstance(default, ast.Constant) and default.value is True
        for arg, default in zip([*positional, *args.kwonlyargs], defaults, strict=True)
    )


def _logs_problem(statement: ast.stmt) -> bool:
    if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
        return False
    func = statement.value.func
    return isinstance(func, ast.Attribute) and func.attr in PROBLEM_LOG_METHODS


def _warns(statement: ast.stmt) -> bool:
    if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
        return False
    func = statement.value.func
    if isinstance(func, ast.Name):  # `from warnings import warn`
        return func.id in _WARNING_NAMES
    return (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and (func.value.id, func.attr) in WARNING_CALLS
    )
