"""A lone module that is a library: a single-module distribution (`pytorch_wpe.py`, installed by
`py_modules=[...]`), whose public names are its API as a package's are.

A lone file is usually a script (`train.py`), and `auto` keeps the model scope for it: its
functions run eagerly unless it compiles them. A module whose top level only defines (imports,
functions, classes, assignments, a docstring; `if`/`try` around those) runs nothing when imported
and has no `if __name__ == "__main__":` block: nobody runs it, users import it, so it is checked as
a package of one public module whose public callables on tensors are roots (`auto`'s tensor-api
scope, public_api.py; pytorch_wpe's `wpe(Y: ComplexTensor, ...)`). A helper no signature or body
marks as tensor API (`def helper(x): if x.sum() > 0: ...`) stays out, as in a script. A script shows itself by what its top level runs:
a call statement (`main()`), a loop or `with` block, or the main guard. Only a module of
functions is taken so (Program._functional_lone_module): a lone file that defines nn.Modules is a
user's `model.py`, whose models are the roots, and one that compiles names its roots itself.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import Program

_DEFINITIONS = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Pass)


def defines_only(body: list[ast.stmt]) -> bool:
    """Whether a module's top level only defines names (module docstring)."""
    for statement in body:
        if isinstance(statement, _DEFINITIONS):
            continue
        if isinstance(statement, ast.Expr) and (isinstance(statement.value, ast.Constant)
                                                or _extends_exports(statement.value)):
            continue  # a docstring, a string left as a comment, `__all__.append("Net")`
        if isinstance(statement, ast.If) and not _is_main_guard(statement.test):
            if defines_only(statement.body) and defines_only(statement.orelse):
                continue
        elif isinstance(statement, ast.Try) and all(
            defines_only(part) for part in (statement.body, statement.orelse, statement.finalbody,
                                            *(handler.body for handler in statement.handlers))
        ):
            continue  # `try: import x` / `except ImportError: x = None`
        return False
    return True


def _extends_exports(value: ast.expr) -> bool:
    return (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
            and isinstance(value.func.value, ast.Name) and value.func.value.id == "__all__")


def _is_main_guard(test: ast.expr) -> bool:
    """`__name__ == "__main__"`, either way round."""
    if not (isinstance(test, ast.Compare) and len(test.comparators) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = [test.left, test.comparators[0]]
    return (any(isinstance(side, ast.Name) and side.id == "__name__" for side in sides)
            and any(isinstance(side, ast.Constant) and side.value == "__main__" for side in sides))


def lone_library(program: Program) -> str | None:
    """The module's name when the checked tree is one loose module (no package) that only defines."""
    own = [summary for module, summary in program.modules.items() if module not in program.dependency_modules]
    if len(own) != 1 or own[0].path.replace("\\", "/").endswith("/__init__.py") or "." in own[0].module:
        return None
    return own[0].module if own[0].defines_only else None
