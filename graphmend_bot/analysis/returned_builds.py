"""What a helper of the module returns on every path, for Checker.built_outside: the calls whose
result it returns (`return pywt.Wavelet(name)`), so that `len(as_wavelet(w))` is known to be `len()`
of what those calls build.

A path returning a parameter unchanged counts too when a returned call is given that parameter: the
coercion idiom `if isinstance(w, str): return pywt.Wavelet(w)` / `return w` returns the object the
call builds, or one the caller built of the same class (measured on torch 2.13, pywt's Wavelet:
tests/test_len_of_coerced_object.py, `len()` of either breaks with GB6012). Only where the caller
passes a string or its own parameter unchanged (`len(as_wavelet(wavelet))`): a tuple or an
attribute holding one is passed through as itself, whose `len()` traces (passed_from_outside)."""

from __future__ import annotations

import ast


def calls_returned_on_every_path(function: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[list[ast.Call], set[str]]:
    """The calls `function` returns the result of, nested functions left out, and the parameters it
    returns unchanged; no calls when some path returns anything else (a parameter no returned call is
    given, a constant), falls off the end (`None`) or the function is a generator."""
    found: list[ast.Call] = []
    passed: set[str] = set()  # parameters returned unchanged
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return):
            if isinstance(node.value, ast.Name):
                passed.add(node.value.id)
            elif isinstance(node.value, ast.Call):
                found.append(node.value)
            else:
                return [], set()
        elif isinstance(node, (ast.Yield, ast.YieldFrom)):
            return [], set()
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))
    if (passed and not passed <= _coerced_parameters(function, found)) or not _ends_every_path(function.body):
        return [], set()
    return found, passed


def passed_from_outside(
    function: ast.FunctionDef | ast.AsyncFunctionDef, passed: set[str], call: ast.Call, outside: set[str]
) -> bool:
    """Each parameter in `passed` is given, at `call`, a string or a name in `outside` (the caller's
    own parameters, not rebound): what comes back is what the coercing call builds, or what the
    caller's caller built (by the idiom, of its class), never a Python container made here."""
    arguments = function.args
    positional = [a.arg for a in [*arguments.posonlyargs, *arguments.args]]
    given: dict[str, ast.expr] = dict(zip(positional, call.args, strict=False))
    given.update((k.arg, k.value) for k in call.keywords if k.arg is not None)
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return False
    for name in passed:
        value = given.get(name)
        if not (
            (isinstance(value, ast.Constant) and isinstance(value.value, str))
            or (isinstance(value, ast.Name) and value.id in outside)
        ):
            return False
    return True


def _coerced_parameters(function: ast.FunctionDef | ast.AsyncFunctionDef, calls: list[ast.Call]) -> set[str]:
    """The parameters, never rebound in the body, that a returned call is given as its first argument."""
    given = {call.args[0].id for call in calls if call.args and isinstance(call.args[0], ast.Name)}
    arguments = function.args
    parameters = {a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]}
    rebound = {
        n.id for n in ast.walk(function) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
    }
    return (given & parameters) - rebound


def _ends_every_path(body: list[ast.stmt]) -> bool:
    """Every path through `body` ends in a `return` or a `raise` (none reaches its end)."""
    last = body[-1] if body else None
    if isinstance(last, (ast.Return, ast.Raise)):
        return True
    if isinstance(last, ast.If):
        return _ends_every_path(last.body) and _ends_every_path(last.orelse)
    if isinstance(last, (ast.With, ast.AsyncWith)):
        return _ends_every_path(last.body)
    return False
