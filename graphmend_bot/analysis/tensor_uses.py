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
import functools
from collections.abc import Callable, Iterator, Set
from typing import cast

from graphmend_bot.analysis.documented_types import documented_tensors
from graphmend_bot.analysis.local_nodes import every_node
from graphmend_bot.vocabulary.kind import TENSOR, Kind
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

# More methods only torch.Tensor has (not NumPy's ndarray, nn.Module, TensorDict, LinearOperator,
# SciPy's sparse matrices, pandas or the builtins: tests/test_tensor_use_kinds.py measures it), read
# as proof of a tensor after the call (note_tensor_use) but not by public_api's entry guess.
_MORE_TENSOR_METHODS = frozenset({
    "mm", "mv", "addmm", "baddbmm", "outer", "inner", "kron", "vdot", "relu", "relu_", "rsqrt", "square",
    "topk", "kthvalue", "scatter_", "scatter_add", "scatter_add_", "scatter_reduce", "index_add",
    "index_add_", "index_fill", "index_fill_", "index_copy", "index_put", "index_put_", "masked_scatter",
    "masked_scatter_", "take_along_dim", "logit", "diag", "diag_embed", "det", "slogdet", "matrix_exp",
    "matrix_power", "pinverse", "cholesky_solve", "nan_to_num", "nan_to_num_", "logcumsumexp",
    "logaddexp", "float_power", "fmod", "remainder", "sgn", "signbit", "isinf", "absolute", "negative",
    "exp2", "erfinv", "digamma", "atan2", "hypot", "multinomial", "bernoulli", "bernoulli_", "normal_",
    "uniform_", "exponential_", "random_", "fill_diagonal_", "unique_consecutive", "nanmedian",
    "nanquantile", "histc", "bincount", "cross", "logical_not", "logical_or", "bitwise_not",
    "element_size", "nelement", "storage_offset", "retain_grad",
    "is_pinned", "reshape_as", "split_with_sizes", "unsafe_chunk", "hardshrink", "tril_", "triu_",
    "unsqueeze_", "squeeze_", "clamp_", "index_select", "log_softmax", "type_as", "view_as",
})  # fmt: skip

PROVING_METHODS = TENSOR_ONLY_METHODS | _MORE_TENSOR_METHODS  # one lookup per call of the tree
# torch functions taking a sequence of tensors first: `torch.cat([x, y])` holds tensors in x and y.
_TENSOR_TYPES = frozenset({
    "Tensor", "FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "LongTensor", "IntTensor",
    "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor",
})  # fmt: skip
_SEQUENCE_FUNCTIONS = frozenset({
    "torch.cat", "torch.concat", "torch.concatenate", "torch.stack", "torch.hstack", "torch.vstack",
    "torch.dstack", "torch.column_stack",
})  # fmt: skip
# Functions of torch's tensor API that also take a Python number, string or list first (`torch.pow(2,
# x)`, `torch.einsum(eq, ...)`, `torch.split(x, n)` splits lists too): measured over torch's namespace
# by tests/test_tensor_use_kinds.py. The prefixes cover setters, symbolic ints and window builders.
_NOT_TENSOR_FIRST = frozenset({
    "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "floor_divide",
    "remainder", "pow", "float_power", "xlogy", "xlog1py", "zeta", "polygamma", "bitwise_and",
    "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift", "bucketize", "isin",
    "einsum", "meshgrid", "split", "range", "atleast_1d", "atleast_2d", "atleast_3d", "dequantize",
    "from_dlpack", "from_file", "eig", "lstsq", "solve", "symeig", "matrix_rank", "while_loop", "wait",
    "multi_dot", "fractional_max_pool2d", "fractional_max_pool3d", "fractional_max_pool2d_with_indices",
    "fractional_max_pool3d_with_indices", "lp_pool2d", "classproperty", "empty_quantized",
    "quantized_gru", "quantized_lstm", "prepare_multiprocessing_environment", "assert_int_or_pair",
    "fftfreq", "rfftfreq", "cat", "concat", "concatenate", "stack", "hstack", "vstack", "dstack",
    "column_stack", "row_stack",
})  # fmt: skip
_NOT_TENSOR_FIRST_PREFIXES = ("set_", "sym_", "parse_", "get_", "sparse_", "has_torch_function")
_NOT_TENSOR_FIRST_SUFFIXES = ("_window", "_indices", "_polynomial_t", "_polynomial_u", "_polynomial_v",
                              "_polynomial_w", "_polynomial_h", "_polynomial_he", "_polynomial_l", "_polynomial_p")


@functools.lru_cache(maxsize=1024)
def takes_tensor_first(name: str | None) -> bool:
    """Whether `name` (resolved) is a torch function whose first argument can only be a tensor."""
    if not _tensor_function(name):
        return False
    leaf = cast(str, name).rpartition(".")[2]
    return not (leaf in _NOT_TENSOR_FIRST or leaf.startswith(_NOT_TENSOR_FIRST_PREFIXES)
                or leaf.endswith(_NOT_TENSOR_FIRST_SUFFIXES))


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


def note_tensor_use(call: ast.Call, resolved: str | None, env: dict[str, Kind], skip: Set[str], text: str | None,
                    kind: Kind, own_methods: Set[str] = frozenset()) -> Kind:
    """A local the call uses as a tensor (`x.unsqueeze(1)`, `torch.exp(x)`, `F.relu(x)`,
    `torch.cat([x, y])`) holds one from here on, whatever reached it: eager raises otherwise. Not
    `x.shape`, `x.reshape`, `x[..., 0]` or `x @ w`, which NumPy arrays share, nor a call building a
    tensor from Python data (`torch.tensor(x)`). Not a name of `skip` (a value of a known class: a
    LinearOperator's `.unsqueeze`), nor one whose type the function's `text` tests (`isinstance(x,`):
    the use may sit in the arm where it is a tensor; nor a method a class of the module defines
    (`own_methods`: `s.view()` on a value of unknown class may be one of those). Returns `kind`, the
    call's own, unchanged."""
    func = call.func
    if type(func) is ast.Attribute:
        if func.attr in PROVING_METHODS and type(func.value) is ast.Name and func.attr not in own_methods:
            _promote(func.value.id, env, skip, text)
        if resolved is None:
            return kind
    if not call.args or resolved is None or not resolved.startswith("torch."):
        return kind
    first = call.args[0]
    if type(first) is ast.Name:
        if takes_tensor_first(resolved):
            _promote(first.id, env, skip, text)
    elif type(first) in (ast.List, ast.Tuple) and resolved in _SEQUENCE_FUNCTIONS:
        for element in cast(ast.List, first).elts:
            if type(element) is ast.Name:
                _promote(element.id, env, skip, text)
    return kind


def _promote(name: str, env: dict[str, Kind], skip: Set[str], text: str | None) -> None:
    held = env.get(name)
    if held is None or held.always or name in skip:
        return
    if text is not None and (f"isinstance({name}," in text or f"is_tensor({name})" in text or f"type({name})" in text):
        return
    env[name] = held | TENSOR


def cast_kind(call: ast.Call, resolve: Resolve, value: Kind) -> Kind:
    """`cast(T, v)` is `v`; a tensor besides where T names one (`cast(torch.LongTensor, perm)`,
    `cast(Tensor, x)`): the maintainer says what it holds, as an annotation would."""
    if value.always or not call.args:
        return value
    named = resolve(call.args[0])
    if named is not None and named.startswith("torch.") and named.rpartition(".")[2] in _TENSOR_TYPES:
        return value | TENSOR
    return value
