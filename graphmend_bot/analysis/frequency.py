"""How often a finding's line runs: on every call of its function, or only on a rare branch.

A break on a branch that valid inputs rarely take costs nothing on the hot path, so reports count
it apart ("every-call" vs "rare-branch"). A branch is rare when it handles an error or a
misconfiguration:

- an `if`/`elif`/`else` arm that raises among its own statements (error paths, validation);
- an arm that does nothing but `warnings.warn` (`if n_pred_ch == 1: warnings.warn("single channel
  prediction, `softmax=True` ignored.")`): Python's warning API is for misuse and deprecation;
- an `except` handler.

Logger calls do not make an arm rare: `if h.shape[0] > 1: logger.warning(...)` is routine
operational logging, often on the common path. Everything else, including the test of a rare
`if` (evaluated on every call), is every-call. Cheap: only the arm's own statements are looked at,
during the one traversal the analysis makes.
"""

from __future__ import annotations

import ast

WARNING_CALLS = frozenset({("warnings", "warn"), ("warnings", "warn_explicit")})


def is_rare_arm(body: list[ast.stmt]) -> bool:
    """The arm raises, or does nothing but issue Python warnings."""
    if any(isinstance(statement, ast.Raise) for statement in body):
        return True
    return bool(body) and all(_only_warns(statement) for statement in body) and any(
        isinstance(statement, ast.Expr) for statement in body
    )


def _only_warns(statement: ast.stmt) -> bool:
    if isinstance(statement, ast.Pass):
        return True
    if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
        return False
    func = statement.value.func
    return (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and (func.value.id, func.attr) in WARNING_CALLS
    )
