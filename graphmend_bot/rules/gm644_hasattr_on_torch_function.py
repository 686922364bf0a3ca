"""GM644 hasattr-on-torch-function: its documentation, in one place with how it is detected.

Measured on torch 2.13 (tests/coverage_probes/gb0150_hasattr_on_torch_function.py,
tests/fixtures/rules/GM644_hasattr_on_torch_function.py): a tensor subclass's `__torch_function__`
runs for every attribute read of an instance too (`t.shape`, `t.dtype`), with `func` the
descriptor's `__get__`, a method-wrapper. Dynamo inlines the override and has no `hasattr` for
that value: `hasattr(func, NAME)` breaks with GB0150 "Unsupported hasattr call", whatever NAME.
`func.__name__`, `getattr(func, "__name__", None)`, `func in HANDLED` and `hasattr(cls, ...)`
trace, and so does `hasattr(func, ...)` when only torch functions and methods reach it. The
override is traced code when a traced method of the subclass runs on `self`
(analysis/torch_function_overrides.py) or traced code uses an instance. `hasattr` of a `zip`
object breaks with GB0150 too (measured), not judged here.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import TENSOR


def _override(rule: Rule, checker: Checker, node: ast.FunctionDef) -> None:
    func = _func_parameter(node)
    if func is None or _rebound(node, func):
        return
    for call in _calls(node.body):
        if (
            checker.builtin_of(call.func) == "hasattr"
            and len(call.args) == 2
            and isinstance(call.args[0], ast.Name)
            and call.args[0].id == func
        ):
            checker.report(
                rule,
                call,
                f"`hasattr({func}, ...)` in `__torch_function__`: reading an attribute of the subclass "
                f"(`t.shape`, `t.dtype`) passes `{func}` as a method-wrapper, which Dynamo has no `hasattr` for",
                TENSOR,
            )


def _func_parameter(node: ast.FunctionDef) -> str | None:
    """The parameter the torch function comes in: the second of `(cls, func, types, args, kwargs)`."""
    positional = [*node.args.posonlyargs, *node.args.args]
    if any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list):
        return positional[0].arg if positional else None
    return positional[1].arg if len(positional) > 1 else None


def _rebound(node: ast.FunctionDef, name: str) -> bool:
    return any(
        isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load) for n in ast.walk(node)
    )


def _calls(statements: list[ast.stmt]) -> Iterator[ast.Call]:
    """The calls the override's own body makes: a nested `def` or lambda runs only if called."""
    stack: list[ast.AST] = list(statements)
    while stack:
        current = stack.pop()
        if isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(current, ast.Call):
            yield current
        stack.extend(ast.iter_child_nodes(current))


RULE = Rule(
    code="GM644",
    name="hasattr-on-torch-function",
    family="not traceable",
    gb_id="GB0150",
    summary=(
        "Flags `hasattr(func, ...)` on the torch function a tensor subclass's `__torch_function__` "
        "receives (`if hasattr(func, '__name__') and func.__name__ in HANDLED:`)."
    ),
    why=(
        "A tensor subclass's `__torch_function__` runs for attribute reads of its instances too: "
        "`t.shape` calls it with `func` the descriptor's `__get__`, a method-wrapper. TorchDynamo "
        "inlines the override and has no `hasattr` for a method-wrapper: it ends the graph "
        '(GB0150, "Unsupported hasattr call", measured on torch 2.13) at nearly every use of the '
        "subclass, since reading `.shape` or `.dtype` is. `getattr(func, NAME, default)` and "
        "`func.__name__` trace."
    ),
    example="""
import torch

HANDLED = {"add", "mul"}


class Tagged(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        out = super().__torch_function__(func, types, args, kwargs or {})
        if hasattr(func, "__name__") and func.__name__ in HANDLED:
            return out
        return out

    def scaled(self):
        return self * self.shape[0]


class Model(torch.nn.Module):
    def forward(self, x: Tagged) -> torch.Tensor:
        return Tagged.scaled(x)
""",
    use_instead="""
import torch

HANDLED = {"add", "mul"}


class Tagged(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        result = super().__torch_function__(func, types, args, kwargs or {})
        # the same test (None is not in HANDLED), asked with a default, which Dynamo traces
        return result if getattr(func, "__name__", None) in HANDLED else result
""",
    fix_safety=(
        "No automatic fix yet: `getattr(func, NAME, None)` asks the same question and traces "
        "(`hasattr(func, NAME) and func.NAME in S` is `getattr(func, NAME, None) in S` when `None` is not in `S`)."
    ),
    detection=Detection(torch_function_override=_override),
    advice="Dynamo has no `hasattr` for the method-wrapper an attribute read passes: write `getattr(func, NAME, None)` instead of `{code}`",
)
