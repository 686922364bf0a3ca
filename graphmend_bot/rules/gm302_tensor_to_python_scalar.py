"""GM302 tensor-to-python-scalar: its documentation, in one place with how it is detected and fixed."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import cast

from graphmend_bot.rules.detect import Checker, Detection, is_array_element
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.conversion_spellings import gb_id_of
from graphmend_bot.vocabulary.kind import NOT_TENSOR, TENSOR, Kind
from graphmend_bot.vocabulary.known_names import (
    FFT_FREQUENCIES,
    INT_ARGUMENT_FUNCTIONS,
    INT_ARGUMENT_METHODS,
    MATH_VALUE_FUNCTIONS,
    SCALAR_CASTS,
    SIZE_FACTORIES,
)

ARRAY_VALUE = "GB0033"  # "Data dependent operator"


def _scalar_cast(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind | None:
    # a NumPy array is a tensor under Dynamo, and its value made a number is "Data dependent operator"
    # (GB0033, measured on torch 2.13: tests/test_numpy_conversions.py); complex() fails as a builtin
    array = bool(call.args) and name != "complex" and checker.is_ndarray(call.args[0])
    element = array and is_array_element(checker, call.args[0])  # the solver calls no NumPy result a tensor
    if not (args and (args[0].is_tensor or element)):
        return None
    checker.report(rule, call, f"`{name}()` on a tensor copies its value to Python", TENSOR if element else args[0],
                   gb_id=ARRAY_VALUE if array else gb_id_of(call))
    return NOT_TENSOR


def _size_factory(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind:
    sizes = _size_arguments(call, name, args)
    if _numpy_size(checker, call.args if name not in ("full", "linspace", "logspace") else ()):
        checker.report(rule, call, NUMPY_SIZE.format(callee=f"torch.{name}"), TENSOR, gb_id="GB0033")
    elif sizes.is_tensor:
        # Measured on torch 2.13 with a size computed in the frame (`n = shapes.sum()`): GB0033
        # "Data dependent operator", not the `.item()` break of an index or slice bound.
        checker.report(rule, call, f"A tensor passed as a size to `torch.{name}` is converted to a Python int", sizes,
                       gb_id="GB0033")
    return TENSOR


def _fft_frequencies(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind:
    """`torch.fft.fftfreq(n, d=1.0)`: `n` and `d` by position or keyword are Python numbers."""
    keywords = checker.keyword_kinds(call)
    numbers = Kind.union([*args[:2], *(keywords[k] for k in ("n", "d") if k in keywords)])
    if numbers.is_tensor:
        checker.report(rule, call, f"A tensor passed as a size to `torch.{name}` is converted to a Python number",
                       numbers, gb_id="GB0033")
    return TENSOR


def _size_arguments(call: ast.Call, name: str, args: list[Kind]) -> Kind:
    """Kinds of the arguments of a torch factory that must be Python ints (sizes, steps), but a tensor
    the module holds read as it is (`torch.zeros(n, self.hidden_size)` on norse's
    `self.hidden_size = torch.as_tensor(hidden_size)`, a buffer too): Dynamo reads its value and
    guards on it, where a size computed in the frame breaks (measured on torch 2.13,
    tests/test_held_sizes.py)."""
    if any(isinstance(arg, ast.Starred) for arg in call.args):
        return NOT_TENSOR
    pairs = list(zip(call.args, args))
    if name in ("linspace", "logspace"):
        pairs = pairs[2:3]
    elif name == "full":
        pairs = pairs[:1]
    return Kind.union(kind for node, kind in pairs if not _held_read(node, kind))


def _held_read(node: ast.expr, kind: Kind) -> bool:
    """`self.NAME` itself, whose kind is the module's attribute NAME and nothing computed on it."""
    return (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and not kind.always
            and not kind.calls and kind.params == frozenset({f"self.{node.attr}"}))


def _int_argument(rule: Rule, checker: Checker, call: ast.Call, method: str, receiver: Kind, args: list[Kind]) -> None:
    """`x.view(n, -1)`, `x.transpose(0, n - 1)`: an argument that is a 0-d tensor by construction
    (`n = mask.sum()`, analysis/tensor_rank.py). Sizes that are tensors only by a parameter's
    annotation are left out: on transformers they are lists in practice."""
    owner = call.func.value if isinstance(call.func, ast.Attribute) else None
    if not receiver.is_tensor or (isinstance(owner, ast.Name) and owner.id in ("self", "cls")):
        return  # `self.view(...)`: a method of this class
    kind = _zero_d_argument(checker, call, args)
    message = f"A 0-d tensor passed to `.{method}()` is converted to a Python int"
    if _numpy_size(checker, call.args):
        checker.report(rule, call, NUMPY_SIZE.format(callee=f".{method}()"), TENSOR, gb_id="GB0033")
    elif kind is not None:
        checker.report(rule, call, message, kind, gb_id="GB0033")
    else:  # `x.roll(self.step + 1, 1)`: a counter buffer computed on (analysis/held_ranks.py)
        _held_argument(rule, checker, call, message, args)


def _int_argument_of_function(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> None:
    """`torch.sum(x, n)`, `torch.cat(parts, n)`, `F.softmax(x, dim=n)`: as the methods' (the first
    argument is the input tensor, or the list of them)."""
    kind = _zero_d_argument(checker, call, args, skip=1)
    callee = name.replace("nn.functional.", "F.") if name.startswith("nn.") else f"torch.{name}"
    message = f"A 0-d tensor passed to `{callee}` is converted to a Python number"
    if kind is not None:
        checker.report(rule, call, message, kind, gb_id="GB0033")
    else:
        _held_argument(rule, checker, call, message, args, skip=1)


def _held_argument(rule: Rule, checker: Checker, call: ast.Call, message: str, args: list[Kind], skip: int = 0) -> None:
    """An int argument (past `skip` positional ones) read from a tensor the module holds: a 0-d
    counter computed on (`self.step + 1`) or an element of a 1-d buffer (`self.order[0]`)."""
    tensors = [(node, kind) for node, kind in list(zip(call.args, args))[skip:] if kind.is_tensor]
    if tensors:
        key = ast.Tuple(elts=[node for node, _ in tensors], ctx=ast.Load())
        checker.report_if_held_ranks(rule, call, message, Kind.union(k for _, k in tensors), key, gb_id="GB0033")


NUMPY_SIZE = "A NumPy value passed as a size to `{callee}` is a tensor under Dynamo, converted to a Python int"


def _numpy_size(checker: Checker, given: Sequence[ast.expr], bounds: bool = False) -> bool:
    """`x.reshape(-1, np.prod(self.dims))`, `torch.zeros(np.sum(sizes))`: Dynamo runs NumPy through
    torch._numpy (analysis/numpy_values.py), so the size is a 0-d tensor it converts with
    `aten._local_scalar_dense` (GB0033, measured on torch 2.13: tests/test_numpy_sizes.py). Not an
    expression that reads a value's `.shape` or `.size()` (`_shape_read`)."""
    for node in given:
        for element in node.elts if isinstance(node, (ast.Tuple, ast.List)) else [node]:
            if checker.is_ndarray(element) and not any(_shape_read(part) for part in ast.walk(element)) and (
                    bounds or not _constructed(element, checker)):
                return True
    return False


# Constructors of a 0-d array from Python values: as a size (`x.reshape(np.int64(n))`, `np.array(3) + 0`)
# Dynamo converts one without a break (FakeTensor keeps a small constant's value), unlike a
# reduction (`np.prod(dims)`) or an element (`np.array(dims)[1]`), which break (torch 2.13,
# tests/test_numpy_sizes.py). A slice bound made of one still breaks (GB0208).
_CONSTRUCTORS = frozenset({
    "numpy.array", "numpy.asarray", "numpy.int8", "numpy.int16", "numpy.int32", "numpy.int64", "numpy.intc",
    "numpy.intp", "numpy.int_", "numpy.uint8", "numpy.uint16", "numpy.uint32", "numpy.uint64",
    "numpy.float16", "numpy.float32", "numpy.float64", "numpy.double", "numpy.bool_",
})


def _constructed(node: ast.expr, checker: Checker) -> bool:
    """`np.int64(n)`, `np.array(3) * 2`, `np.float32(s).astype(np.int64)`: a constructor's value,
    through arithmetic with Python values and `.astype`."""
    if isinstance(node, ast.BinOp):
        return all(_constructed(side, checker) or not checker.is_ndarray(side) for side in (node.left, node.right))
    if isinstance(node, ast.UnaryOp):
        return _constructed(node.operand, checker)
    if not isinstance(node, ast.Call):
        return False
    if isinstance(node.func, ast.Attribute) and node.func.attr == "astype":
        return _constructed(node.func.value, checker)
    return checker.resolve(node.func) in _CONSTRUCTORS


def _shape_read(node: ast.AST) -> bool:
    """`x.shape`, `x.size()` of a value other than `self`/`cls`: a product over a one-element size
    traces (`x.view(-1, np.prod(x.shape[1:]))` on a 2-d `x`, measured), and the rank is not known."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size":
        node = node.func
    elif not (isinstance(node, ast.Attribute) and node.attr == "shape"):
        return False
    owner = cast(ast.Attribute, node).value
    return not (isinstance(owner, ast.Name) and owner.id in ("self", "cls"))


# Keywords that take tensors (`torch.stack(tensors=[a.sum(), b.sum()])`).
_TENSOR_KEYWORDS = frozenset({"input", "tensors", "other", "out", "index"})


def _zero_d_argument(checker: Checker, call: ast.Call, args: list[Kind], skip: int = 0) -> Kind | None:
    """The kind of the first argument past `skip` positional ones that is, or holds, a 0-d tensor
    by construction; None when none is."""
    keywords = {name: kind for name, kind in checker.keyword_kinds(call).items() if name not in _TENSOR_KEYWORDS}
    given = [*list(zip(call.args, args))[skip:], *((k.value, keywords[k.arg]) for k in call.keywords if k.arg in keywords)]
    for node, kind in given:
        # a size given as one tuple or list (`x.view((n, -1))`, `x.repeat([n, 1])`): its elements
        elements = node.elts if isinstance(node, (ast.Tuple, ast.List)) else [node]
        if kind.is_tensor and any(
            not isinstance(element, ast.Starred) and checker.is_scalar_tensor(element) for element in elements
        ):
            return kind
    return None


def _slice_bound(rule: Rule, checker: Checker, subscript: ast.Subscript, owner: Kind, bounds: Kind) -> None:
    if not (owner.is_tensor and bounds.is_tensor):
        return
    parts = subscript.slice.elts if isinstance(subscript.slice, ast.Tuple) else [subscript.slice]
    slices = [part for part in parts if isinstance(part, ast.Slice)]
    if _numpy_size(checker, [b for part in slices for b in (part.lower, part.upper, part.step) if b is not None], True):
        # a NumPy bound (`x[:, idx[0]:idx[1]]`, `idx = np.array(pair)`): GB0033, not `.item()`'s GB0124
        message = "A NumPy value used as a slice bound is a tensor under Dynamo, converted to a Python int"
        checker.report(rule, subscript, message, bounds, gb_id="GB0033")
    else:
        checker.report(rule, subscript, "A tensor used as a slice bound is converted to a Python int", bounds)


def _scalar_index(rule: Rule, checker: Checker, subscript: ast.Subscript, owner: Kind, index: Kind) -> None:
    """`x[i]`, `x[0, i]`, and the assignment `x[i] = v`, with a 0-d tensor `i`
    (analysis/tensor_rank.py): an int index, read back with `aten._local_scalar_dense` (GB0033 on
    torch 2.13, not the `.item()` break of a slice bound); a 1-d index tensor is advanced indexing
    and traces, and so does a 0-d index the frame already read once (after that break it is an input of
    the resumed frame: analysis/index_reads.py). A Python list, tuple or range, or a shape, indexed by
    one reads it with `.item()` (GB0124)."""
    key = subscript.slice
    elements = key.elts if isinstance(key, ast.Tuple) else [key]
    sequence = checker.is_python_sequence(subscript.value)  # `[0.5, 1.0][i]`, `parts[i]`, `x.shape[i]`
    message = "A 0-d tensor used as an index is converted to a Python int"
    scalars = [e for e in elements if not isinstance(e, ast.Slice) and checker.is_scalar_tensor(e)]
    if not sequence and all(isinstance(e, ast.Name) and checker.index_read_before(subscript, e.id) for e in scalars):
        scalars = []  # each read already broke earlier in the frame: an input of the resumed frame since
    if (owner.is_tensor or sequence) and scalars:
        checker.report(rule, subscript, message, index, gb_id=None if sequence else INDEX_READ)
    elif owner.is_tensor:  # `x[:, best(s)]`: a helper's result, 0-d when every `return` of it is
        checker.report_if_scalar_returns(rule, subscript, message, index, index, gb_id=INDEX_READ)
        # `y[..., i]` in `for i in self.order`, `x[self.step + 1]`: 0-d by what the module holds
        checker.report_if_held_ranks(rule, subscript, message, index, key, gb_id=INDEX_READ)
        # `grid[torch.bucketize(t, grid)]` in a helper every traced caller hands a 0-d `t`
        checker.report_if_passed_ranks(rule, subscript, message, index, key, gb_id=INDEX_READ)


INDEX_READ = "GB0033"
MATH_MESSAGE = "`math.{name}()` of a tensor converts it to a Python number"


def _math_call(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind:
    """`math.sqrt(t)`: `math` takes Python numbers, so the tensor is read back (GB0033 on torch
    2.13, every function of MATH_VALUE_FUNCTIONS measured). An entry point's unannotated
    parameter is a number in practice (`math.sqrt(head_dim)`)."""
    tensors = [kind for kind in args if kind.is_tensor and not checker.assumed_tensor(kind)]
    if tensors:
        checker.report(rule, call, MATH_MESSAGE.format(name=name.rpartition(".")[2]), Kind.union(tensors),
                       gb_id=INDEX_READ)
    return NOT_TENSOR


def _module_index(rule: Rule, checker: Checker, subscript: ast.Subscript, owner: Kind, key: Kind) -> None:
    """`self.layers[i](x)` with a tensor `i`: a list or ModuleList reads the index with `.item()`
    (measured on torch 2.13: GB0124). `self.layers[layer_idx]` on a parameter as it came in is an
    int in practice (an entry point's unannotated parameters are only assumed to be tensors)."""
    if checker.assumed_tensor(key):
        return
    checker.report(rule, subscript, "A tensor used to pick a module from a container is converted to a Python int", key)


def _membership(rule: Rule, checker: Checker, compare: ast.Compare, container: ast.expr, kind: Kind) -> None:
    """`3 in t`: Tensor.__contains__ answers with `(element == t).any().item()` (measured on torch
    2.13: GB0124, and Dynamo then skips the whole frame)."""
    checker.report(rule, compare, "`in` on a tensor reads the answer back as a Python bool", kind)


RULE = Rule(
    code="GM302",
    name="tensor-to-python-scalar",
    family="scalar extraction",
    gb_id="GB0124",
    other_gb_ids=("GB0033", "GB0059"),  # a size or int argument (`torch.zeros(n)`); GB0059: `operator.truth(t)`
    summary=(
        "Flags `int(t)`, `float(t)` and `bool(t)` on a tensor in traced code, `math` functions of one "
        "(`math.sqrt(t)`, `math.floor(t)`: every one but `math.prod` and `math.radians`), and tensors used where "
        "Python ints are needed: sizes (`torch.linspace(0, 1, n)`, `x.view(b, h, w)`), the sizes, "
        "dims and counts of tensor methods (`view`, `reshape`, `expand`, `repeat`, `narrow`, `chunk`, "
        "`topk`, `transpose`, `swapaxes`, `unsqueeze`, `select`, `split`, `flip`, the dims of reductions such as "
        "`sum`/`mean`/`cumsum`, `new_full`'s size and fill value, ...; in a size tuple too; and the same "
        "arguments of the torch functions, `torch.sum(x, n)`, `torch.cat(parts, n)`, `F.softmax(x, dim=n)`, "
        "`torch.multinomial(p, n)`, `torch.tile(x, (n,))`, `torch.full_like(x, t)`) given a 0-d "
        "tensor made from tensor values, a tensor `n` or `d` of `torch.fft.fftfreq`/`rfftfreq`, "
        "slice bounds, indices that are 0-d tensors by construction, in "
        "a read or an assignment (`x[t.argmax()]`, `y[x.mean().long()] = 0`,"
        " `x[torch.bucketize(t.sum(), grid).clamp(0, n)]` with a Python number `n`: a tensor bound of "
        "higher rank broadcasts the index, which then gathers, "
        "`x[mask.nonzero(as_tuple=True)[0][0] + 1]`, the loop variable of `for i in torch.arange(n)`, "
        "`torch.randperm(n)`, `torch.tensor([2, 0, 1])`, a flattened `x.flatten()`/`x.view(-1)` and its "
        "`argsort()`, slices and `sort()`/`topk(k)` pair: a 1-d tensor yields 0-d ones; in a comprehension and "
        "through `enumerate`/`zip` too, and an element of one, `torch.randperm(n)[0]`, `perm[k]` over `range(n)`, "
        "`torch.randint(0, n, (1,))[0]`; a factory of size `()`, `torch.rand(())`, `torch.zeros([])`, "
        "`torch.scalar_tensor(v)`; a 1-d tensor reduced over its only dim, `v.argmax(0)`, `v.max(0).indices`; "
        "one kept 0-d through `i, j = a, b`, `i += 1`, `a if c else b`, `squeeze()`, `.float()`, `torch.round(s)`, "
        "`torch.div(s, 2, rounding_mode=...)`, `torch.minimum(s, u)`, `max(s, 1)`, or made 0-d by `t.reshape(())` "
        "and by `torch.bucketize(0.7, edges)`/`torch.searchsorted(edges, torch.tensor(0.7))` of a Python number, "
        "what a helper returns when its every `return` is one, "
        "`x[:, best(s)]` with `return s.argmax()`), an element of a 1-d tensor the module holds (`for i in "
        "self.order` over `register_buffer(\"order\", torch.arange(n))`, `self.perm[0]`) or a 0-d counter "
        "buffer computed on (`self.history[self.step + 1]`), and a tensor that picks the module to call "
        "from a container (`self.experts[scores.argmax()](x)`), and `v in t` on a tensor (`if 3 in ids:`); "
        "and a NumPy value, a 0-d tensor under Dynamo, as a size or slice bound (`x.reshape(-1, np.prod(self.dims))`, "
        "`x[:, idx[0]:idx[1]]` with `idx = np.array(pair)`; not a product over a `.shape`, which traces over one element)."
    ),
    why="These call `.item()` under the hood, with the same graph break.",
    example="n = int(lengths.max())",
    use_instead="n = lengths.max()  # keep it a tensor while it only feeds tensor arithmetic",
    fix_safety=(
        "`int(t)`/`float(t)`: as GM301. Sizes read by iterating a tensor built from a Python list "
        "(`torch.as_tensor(shapes_list)`): the caller passes the list instead, when the list provably"
        " holds those ints and the sizes are used only where a Python int and a 0-d tensor give the "
        "same result. Unsafe: a subclass may override the method with one that needs the tensor; the "
        "message states this and any other assumption."
    ),
    fixes=("scalars.scalars", "scalars.sizes"),
    detection=Detection(
        builtins=dict.fromkeys(SCALAR_CASTS, _scalar_cast),
        tensor_methods=dict.fromkeys(INT_ARGUMENT_METHODS, _int_argument),
        torch_functions={**dict.fromkeys(SIZE_FACTORIES, _size_factory),
                         **dict.fromkeys(FFT_FREQUENCIES, _fft_frequencies),
                         **dict.fromkeys(INT_ARGUMENT_FUNCTIONS, _int_argument_of_function)},
        calls=dict.fromkeys(MATH_VALUE_FUNCTIONS, _math_call),
        slice_bounds=_slice_bound,
        indexing=_scalar_index,
        indexed_store=_scalar_index,
        called_subscript=_module_index,
        membership=_membership,
    ),
    advice=(
        "Keep `{code}` a tensor while it only feeds tensor arithmetic; otherwise set "
        "`torch._dynamo.config.capture_scalar_outputs = True`"
    ),
)
