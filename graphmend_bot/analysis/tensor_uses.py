"""Whether a function's body uses an unannotated parameter as a tensor: what `auto` reads as a
public callable on tensors where the maintainer wrote no annotation (public_api.py).

Much of a library's functional API is unannotated (`def griffin_lim(mag_specgram, stft_enc, ...)`,
`def Exp(input)`, `def jacobian(ys, xs, i=None, j=None)`); its body says what its parameters hold.
A parameter is used as a tensor when the body calls on it a method only tensors have
(`x.unsqueeze(1)`, `x.masked_fill(m, 0)`: not `reshape` or `sum`, which NumPy arrays share, nor `to`
or `float`, which nn.Modules share), or passes it first to a function of torch's tensor API
(`torch.exp(x)`, `F.pad(x, p)`, `torch.linalg.norm(x)`; not `torch.is_tensor(x)`, a test of what it
holds, nor `torch.tensor(values)` or `torch.zeros(n)`, which build one from Python data and sizes) or to an autograd.Function's `Cls.apply(x, ...)`. A tokenizer's or loader's parameters are strings and paths and show neither use.
Where the body only hands its parameters on (`def jacobian(ys, xs): return impl.jacobian(ys, xs)`),
the docstring may still say what they hold: a parameter it documents as a tensor
(documented_types.documented_tensors) counts as one.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from typing import cast

from graphmend_bot.analysis.documented_types import documented_tensors
from graphmend_bot.analysis.local_nodes import every_node
from graphmend_bot.vocabulary.known_names import BUILT_FROM_VALUES, TORCH_NON_TENSOR_FUNCS

# Methods of torch.Tensor that neither NumPy arrays nor nn.Modules nor builtins have.
TENSOR_ONLY_METHODS = frozenset({
    "unsqueeze", "unsqueeze_", "view", "view_as", "permute", "contiguous", "detach", "detach_",
    "masked_fill", "masked_fill_", "masked_select", "expand", "expand_as", "type_as", "new_zeros",
    "new_ones", "new_full", "new_empty", "new_tensor", "unbind", "narrow", "softmax", "log_softmax",
    "dim", "bmm", "clamp", "clamp_", "clamp_min", "clamp_max", "index_select", "unfold", "tril", "triu",
    "requires_grad_", "numel", "is_floating_point", "is_complex", "logsumexp", "addcmul",
})  # fmt: skip
# Submodules of torch whose functions take tensors first (as torch's own top level does).
_TENSOR_SUBMODULES = frozenset({"torch.nn.functional", "torch.fft", "torch.linalg", "torch.special"})

Resolve = Callable[[ast.expr], "str | None"]


def untyped_params(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Parameters with no annotation and no default other than None (not `self`/`cls`)."""
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    defaults = dict(zip([a.arg for a in positional[len(positional) - len(args.defaults) :]], args.defaults))
    defaults.update((a.arg, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None)
    return {
        arg.arg
        for arg in (*positional, *args.kwonlyargs)
        if arg.annotation is None
        and arg.arg not in ("self", "cls")
        and (arg.arg not in defaults or _is_none(defaults[arg.arg]))
    }


def uses_param_as_tensor(node: ast.FunctionDef | ast.AsyncFunctionDef, text: str, resolve: Resolve) -> bool:
    """Whether the body uses one of `untyped_params(node)` as a tensor (module docstring).
    Nested functions count: a closure's use of a parameter is the function's own."""
    return any(True for _ in _tensor_uses(node, text, resolve))


def tensor_param_names(node: ast.FunctionDef | ast.AsyncFunctionDef, text: str, resolve: Resolve) -> tuple[str, ...]:
    """The parameters the body uses or the docstring documents as tensors, by name: what a caller
    handing its own parameter there hands on (forwarded_tensors.py)."""
    used = set(_tensor_uses(node, text, resolve, every=True))
    return tuple(sorted(used | documented_tensors(node, sorted(untyped_params(node)))))


def _tensor_uses(node: ast.FunctionDef | ast.AsyncFunctionDef, text: str, resolve: Resolve,
                 every: bool = False) -> Iterator[str]:
    """The parameters used as tensors, the first only unless `every`."""
    params = untyped_params(node)
    if not params or not any(
        f"{p}." in text or "torch" in text or "F." in text or ".apply(" in text for p in params
    ):
        return
    for part in every_node(node):
        if not isinstance(part, ast.Call):
            continue
        func = part.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr in TENSOR_ONLY_METHODS
            and _names(func.value, params)
        ):
            yield cast(ast.Name, func.value).id
            if not every:
                return
        elif (
            part.args
            and _names(part.args[0], params)
            and (_tensor_function(resolve(func)) or _function_apply(func))
        ):
            yield cast(ast.Name, part.args[0]).id
            if not every:
                return


def documents_param_as_tensor(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether the docstring documents one of `untyped_params(node)` as a tensor (module docstring)."""
    params = untyped_params(node)
    return bool(params) and bool(documented_tensors(node, sorted(params)))


def _tensor_function(name: str | None) -> bool:
    if name is None or not name.startswith("torch."):
        return False
    owner, _, leaf = name.rpartition(".")
    if not leaf or not leaf[0].islower() or leaf.startswith("is_") or leaf in TORCH_NON_TENSOR_FUNCS:
        return False
    if owner == "torch" and (leaf in BUILT_FROM_VALUES or leaf == "from_numpy"):
        return False  # `torch.tensor(values)`, `torch.zeros(n)`: data and sizes, not a tensor
    return owner == "torch" or owner in _TENSOR_SUBMODULES


def _function_apply(func: ast.expr) -> bool:
    """`Entmax15Function.apply(X, dim)`: an autograd.Function's apply, by a class's name, takes tensors."""
    return (
        isinstance(func, ast.Attribute)
        and func.attr == "apply"
        and isinstance(func.value, ast.Name)
        and func.value.id[:1].isupper()
    )


def _names(node: ast.expr, params: set[str]) -> bool:
    return isinstance(node, ast.Name) and node.id in params


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None
