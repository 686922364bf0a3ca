"""Values that are 0-d tensors by how they are made, whatever the rank of their source.

Kinds say only whether a value is a tensor; indexing needs its rank. Measured on torch 2.13
(tests/fixtures/rules/flow_scalar_index.py): `x[i]` with a 0-d integer tensor `i` converts it to a
Python int ("Data dependent operator", `aten._local_scalar_dense`), also inside a tuple index
(`x[0, i]`, `x[:, i]`) and after `i + 1`; a 1-d index tensor is advanced indexing and traces
(`x[idx.nonzero(as_tuple=True)[0]]`), and so does `argmax(dim, keepdim=True)`. Slice bounds are
GM302's other check. What is 0-d here: an element of an element of `nonzero(as_tuple=True)` or
one-argument `torch.where` (each element is 1-d), the full reductions (`argmax()`, `sum()`, `max()`,
`amax()`, `mean()`, `prod()`, `norm()`, `median()`, `count_nonzero()`, ... with no arguments, and
`torch.sum(t)` and the like of one tensor: measured on torch 2.13, tests/coverage_probes/gb0033_*),
`-` of one, and `+ - * / // %` of those with ints (`/` measured on torch 2.13:
tests/test_zero_d_ranks.py, with `torch.count_nonzero(x)` and `torch.sum(x > 0)` of one tensor); what keeps the rank of a 0-d tensor: the
elementwise methods and casts on one (`.sub(1)`, `.clamp(0, n)`, `.long()`, `.detach()`,
`.to(torch.long)`, `.floor()`), `torch.clamp` of one (clamped to bounds that are Python numbers or
0-d: a bound tensor of any other rank broadcasts the result, `x.argmax().clamp(max=limits)` with a
1-d `limits` is 1-d and indexes by gathering), and `torch.bucketize(s, boundaries)` /
`torch.searchsorted(boundaries, s)` of one (torchcde's `_interpret_t`; measured on torch 2.13 in
tests/fixtures/rules/flow_scalar_index.py; of a 1-d tensor they are 1-d and index by gathering);
a `torch.randint` draw of size `()` (`torch.randint(0, n, ())`; of size `(1,)` it is 1-d and gathers,
and its element `torch.randint(0, n, (1,))[0]` is 0-d), and so is any factory of size `()`
(`torch.rand(())`, `torch.zeros([])`, `torch.full((), v)`, `torch.scalar_tensor(v)`; `torch.tensor(n)` of
a Python int indexes as the int and traces); a reduction of a 1-d tensor over its only dim
(`v.argmax(0)`, `v.sum(-1)`, `v.max(0).indices`, `torch.max(v, dim=0)[1]`) and the last element of
an element of one-argument `torch.where` (`[0][-1]`): measured on torch 2.13,
benchmarks/spellings/dd_zero_d_sources.py;
what is 1-d by construction (`iterates_scalars`): `torch.arange`, `torch.randperm`, a flattened
tensor (`x.flatten()`, `x.view(-1)`, `x.reshape(-1)`, `torch.flatten(x)`; `flatten(1)` is not), and of
a 1-d one its `argsort()`, a slice, each of `sort()`'s and `topk(k)`'s pair (`.indices`, `[1]`):
measured on torch 2.13, benchmarks/spellings/dd_flat_ranks.py;
the loop variable over a 1-d tensor by construction (`for i in torch.arange(n)`), in
a comprehension too, and through `enumerate`/`zip` (`loop_scalars`); an element of one (`perm[0]`).
Also kept 0-d (measured on torch 2.13, tests/test_zero_d_spellings.py): `a if c else b` of two, the
names of `i, j = s, u` (`scalar_pairs`) and `i += 1`, `squeeze()`/`.float()` of one, the torch
functions of 0-d tensors and Python numbers (`torch.round(s)`, `torch.add(s, 1)`, `torch.minimum(s, u)`,
`_elementwise`) and the builtin `max(s, 1)`; made 0-d: `t.reshape(())` of any `t`, and the bucket of a
Python number or a tensor made of one (`torch.bucketize(0.7, edges)`: the boundaries are data).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Set
from typing import cast

# Full reductions: with no argument they reduce every dim (`all`/`any` too, but a 0-d bool index is a
# mask, not an int).
_NO_ARGUMENT_SCALARS = frozenset({
    "argmax", "argmin", "sum", "max", "min", "amax", "amin", "mean", "prod", "norm", "median", "nanmedian",
    "nansum", "nanmean", "std", "var", "count_nonzero",
})
_ONE_ARGUMENT_SCALARS = frozenset(f"torch.{name}" for name in _NO_ARGUMENT_SCALARS)
# Reductions over one dim that give a tensor (of a 1-d tensor over its dim, 0-d), and those that
# give a (values, indices) pair of such tensors.
_DIM_REDUCTIONS = frozenset({
    "argmax", "argmin", "sum", "mean", "prod", "amax", "amin", "nansum", "nanmean", "count_nonzero", "logsumexp",
})
_PAIR_REDUCTIONS = frozenset({"max", "min", "median", "nanmedian", "mode"})
# Factories whose first argument (or `size=`) is the size: of size `()` they are 0-d.
_SIZED_FACTORIES = frozenset({"torch.zeros", "torch.ones", "torch.empty", "torch.rand", "torch.randn", "torch.full"})
# `/` too: a float 0-d tensor (`torch.bucketize(x.mean() / 2, edges)`, `(x.sum() / 3).long()`)
_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod)
# Methods whose result has the receiver's shape: arithmetic with an int or another 0-d tensor (as
# `_ARITHMETIC`: a tensor operand of higher rank broadcasts), clamping to bounds that are Python
# numbers or 0-d (`_CLAMPS`), and the casts and elementwise methods that take no tensor.
_ARITHMETIC_METHODS = frozenset({"add", "sub", "mul", "div", "floor_divide", "remainder"})
_CLAMPS = frozenset({"clamp", "clip", "clamp_min", "clamp_max"})
_RANK_KEEPING_METHODS = _ARITHMETIC_METHODS | _CLAMPS | frozenset({
    "long", "int", "detach", "to", "type", "floor", "ceil", "round", "trunc", "abs", "neg", "clone", "contiguous",
    "squeeze", "float", "double",  # `squeeze()` of a 0-d tensor is 0-d, `squeeze(0)` too
})
# The same as torch functions of a 0-d tensor (`torch.round(x.mean())`), and those of two operands,
# each a Python number or a 0-d tensor (`torch.div(n, 2, rounding_mode="floor")`); `minimum` and
# `maximum` take two tensors (measured on torch 2.13: tests/test_zero_d_spellings.py).
_UNARY_FUNCTIONS = frozenset(f"torch.{name}" for name in (
    "floor", "ceil", "round", "trunc", "abs", "neg", "negative", "squeeze", "clone", "detach"))
_BINARY_FUNCTIONS = frozenset(f"torch.{name}" for name in (
    "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "floor_divide", "remainder", "fmod",
    "minimum", "maximum", "fmin", "fmax"))
# What `torch.bucketize(value, boundaries)` / `torch.searchsorted(sorted, value)` are handed as the
# value: a Python number (`torch.bucketize(0.7, edges)`) or a tensor made of one (`torch.tensor(0.7)`)
# is 0-d too, and the bucket it falls in is read from the boundaries (data) though the value is a
# constant. As an index on its own a tensor made of a number traces: Dynamo knows its value.
_BUCKET_FUNCTIONS = frozenset({"torch.bucketize", "torch.searchsorted"})
_NUMBER_TENSORS = frozenset({"torch.tensor", "torch.as_tensor", "torch.asarray", "torch.scalar_tensor"})
# torch functions whose result has the rank of one argument: the position of that argument.
_RANK_OF_ARGUMENT = {"torch.clamp": 0, "torch.clip": 0, "torch.bucketize": 0, "torch.searchsorted": 1,
                     "torch.as_tensor": 0}  # of a tensor, that tensor (torchcde's `_interpret_t`)
_CLAMP_FUNCTIONS = frozenset({"torch.clamp", "torch.clip"})
# Factories whose result is always 1-d: iterating over one yields 0-d tensors.
_ONE_DIMENSIONAL_FACTORIES = frozenset({"torch.arange", "torch.randperm"})
# 1-d whatever the receiver's rank: `x.flatten()`, `x.ravel()` with no argument (`flatten(1)` keeps
# two dims), `x.view(-1)`, `x.reshape(-1)`; and the torch functions of one tensor.
_FLATTENING_METHODS = frozenset({"flatten", "ravel"})
_RESHAPING_METHODS = frozenset({"view", "reshape"})
_FLATTENING_FUNCTIONS = frozenset({"torch.flatten", "torch.ravel"})
# Of a 1-d receiver, 1-d: its permutation (`argsort`), a cast, a copy, a flip; `sort`/`topk` give a
# (values, indices) pair of 1-d tensors, read as `.values`/`.indices` or `[0]`/`[1]`.
_ONE_DIMENSIONAL_KEEPING_METHODS = frozenset({"argsort", "long", "int", "detach", "clone", "contiguous", "flip"})
_PAIRS_OF_ONE_DIMENSIONAL = frozenset({"sort", "topk"})
PAIR_FIELDS = frozenset({"values", "indices"})

Resolve = Callable[[ast.expr], str | None]


def is_scalar(node: ast.expr, scalars: Set[str], numbers: Set[str], resolve: Resolve,
              vectors: Set[str] = frozenset()) -> bool:
    """`node` is a 0-d tensor (when it is a tensor at all); `scalars`: locals bound to one;
    `numbers`: locals bound to a Python number on every binding; `vectors`: to a 1-d tensor."""
    if isinstance(node, ast.Name):
        return node.id in scalars
    # `torch.randperm(n)[0]`, `order[k]`: an element of a 1-d tensor by construction
    if isinstance(node, ast.Subscript) and python_number(node.slice, numbers, resolve) and iterates_scalars(
            node.value, vectors, resolve):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, _ARITHMETIC):
        left = is_scalar(node.left, scalars, numbers, resolve, vectors)
        right = is_scalar(node.right, scalars, numbers, resolve, vectors)
        # with a Python number (`i + 1`, `u * x.shape[0]`) the result keeps the tensor's rank
        return (left and (right or python_number(node.right, numbers, resolve))) or (
            right and python_number(node.left, numbers, resolve))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return is_scalar(node.operand, scalars, numbers, resolve, vectors)
    if isinstance(node, ast.IfExp):  # `a.argmax() if c else b.argmax()`: 0-d on both arms
        return all(is_scalar(arm, scalars, numbers, resolve, vectors) for arm in (node.body, node.orelse))
    if isinstance(node, ast.Subscript) and _signed_int(node.slice) and isinstance(node.value, ast.Subscript):
        return _int(node.value.slice) and _one_dimensional_tuple(node.value.value, resolve)
    if isinstance(node, ast.Attribute) and node.attr in PAIR_FIELDS:  # `v.max(0).indices` of a 1-d `v`
        return _pair_of_scalars(node.value, vectors, resolve)
    if isinstance(node, ast.Subscript) and _int(node.slice) and isinstance(node.value, ast.Call):  # `torch.max(v, 0)[1]`
        return _pair_of_scalars(node.value, vectors, resolve)
    if isinstance(node, ast.Call):
        return _scalar_call(node, scalars, numbers, resolve, vectors)
    return False


def iterates_scalars(node: ast.expr, vectors: Set[str], resolve: Resolve) -> bool:
    """`for i in node` binds 0-d tensors: `node` is 1-d by construction, `torch.arange(...)`,
    `torch.randperm(n)`, `torch.tensor([2, 0, 1])` of a flat list of numbers, or a local in
    `vectors` bound to one (measured on torch 2.13, tests/fixtures/rules/flow_scalar_index.py).
    Iterating over a tensor of unknown rank is not: the rows of a 2-d index tensor are 1-d and index
    by gathering, which traces."""
    if isinstance(node, ast.Name):
        return node.id in vectors
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):  # `order[:k]`
        return iterates_scalars(node.value, vectors, resolve)
    if isinstance(node, ast.Subscript) and _int(node.slice):  # `order.sort()[1]`
        return _pair_of_one_dimensional(node.value, vectors, resolve)
    if isinstance(node, ast.Attribute) and node.attr in PAIR_FIELDS:  # `order.topk(k).indices`
        return _pair_of_one_dimensional(node.value, vectors, resolve)
    if not isinstance(node, ast.Call):
        return False
    name = resolve(node.func)
    if name is None and isinstance(node.func, ast.Attribute):
        return _one_dimensional_method(node, node.func, vectors, resolve)
    if name in _FLATTENING_FUNCTIONS:
        return len(node.args) == 1 and not node.keywords
    if name == "torch.argsort":
        return bool(node.args) and iterates_scalars(node.args[0], vectors, resolve)
    if name == "torch.tensor":
        values = node.args[0] if node.args else None
        return isinstance(values, (ast.List, ast.Tuple)) and all(python_number(v, resolve=resolve) for v in values.elts)
    if name == "torch.randint":  # `torch.randint(0, n, (k,))`: a size of one element
        sizes = _sizes(node)
        return len(sizes) == 1 and isinstance(sizes[0], (ast.Tuple, ast.List)) and len(sizes[0].elts) == 1
    return name in _ONE_DIMENSIONAL_FACTORIES


def _one_dimensional_method(call: ast.Call, func: ast.Attribute, vectors: Set[str], resolve: Resolve) -> bool:
    """`x.flatten()`, `x.view(-1)`, and of a 1-d receiver `order.argsort()`, `order.long()`."""
    if func.attr in _FLATTENING_METHODS:
        return not call.args and not call.keywords
    if func.attr in _RESHAPING_METHODS:
        return len(call.args) == 1 and not call.keywords and _minus_one(call.args[0])
    return func.attr in _ONE_DIMENSIONAL_KEEPING_METHODS and iterates_scalars(func.value, vectors, resolve)


def _pair_of_one_dimensional(node: ast.expr, vectors: Set[str], resolve: Resolve) -> bool:
    """`v.sort()`, `v.topk(k)`, `torch.sort(v)`, `torch.topk(v, k)` of a 1-d `v`: each of the pair is 1-d."""
    if not isinstance(node, ast.Call):
        return False
    name = resolve(node.func)
    if name is None and isinstance(node.func, ast.Attribute) and node.func.attr in _PAIRS_OF_ONE_DIMENSIONAL:
        return iterates_scalars(node.func.value, vectors, resolve)
    if name in ("torch.sort", "torch.topk"):
        return bool(node.args) and iterates_scalars(node.args[0], vectors, resolve)
    return False


def uncast(node: ast.expr, resolve: Resolve) -> ast.expr:
    """`typing.cast(T, v)` is `v` at run time, and Dynamo traces it as such (flowtorch's
    `for idx in cast(torch.LongTensor, permutation)`: measured on torch 2.13,
    tests/test_cast_ranks.py)."""
    while (isinstance(node, ast.Call) and len(node.args) == 2 and not node.keywords
           and getattr(node.func, "id", getattr(node.func, "attr", None)) == "cast"  # before resolving
           and resolve(node.func) == "typing.cast"):
        node = node.args[1]
    return node


def loop_scalars(target: ast.expr, iterable: ast.expr, vectors: Set[str], resolve: Resolve) -> list[str]:
    """The names `for target in iterable` (a loop's or a comprehension's) binds to 0-d tensors: the
    target over a 1-d tensor (`iterates_scalars`), the item of `enumerate` over one, and each
    element of a `zip` item whose iterable is one (`for k, i in enumerate(torch.randperm(n))`)."""
    iterable = uncast(iterable, resolve)
    if isinstance(target, ast.Name):
        return [target.id] if iterates_scalars(iterable, vectors, resolve) else []
    if not (isinstance(target, ast.Tuple) and isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name)
            and resolve(iterable.func) == f"builtins.{iterable.func.id}" and not iterable.keywords):
        return []
    if iterable.func.id == "enumerate" and len(iterable.args) == 1 and len(target.elts) == 2:
        return loop_scalars(target.elts[1], iterable.args[0], vectors, resolve)
    if iterable.func.id == "zip" and len(iterable.args) == len(target.elts):
        return [name for element, part in zip(target.elts, iterable.args)
                for name in loop_scalars(element, part, vectors, resolve)]
    return []


def loop_numbers(target: ast.expr, iterable: ast.expr, resolve: Resolve) -> list[str]:
    """The names `for target in iterable` binds to Python ints: the target over `range(...)`, and the
    count of `enumerate(...)` (so `perm[k]` of a 1-d `perm` is 0-d: measured on torch 2.13,
    benchmarks/spellings/dd_loop_over_attribute.py)."""
    if not (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name)):
        return []
    builtin = resolve(iterable.func) == f"builtins.{iterable.func.id}"
    if builtin and iterable.func.id == "range" and isinstance(target, ast.Name):
        return [target.id]
    if builtin and iterable.func.id == "enumerate" and isinstance(target, ast.Tuple) and len(target.elts) == 2:
        count = target.elts[0]
        return [count.id] if isinstance(count, ast.Name) else []
    return []


def python_number(node: ast.expr, numbers: Set[str] = frozenset(), resolve: Resolve | None = None) -> bool:
    """A number written out, or a size: `0`, `-1`, `len(x)`, `x.size(1)`, `x.shape[0]`, a local in
    `numbers`, sums of them. With `resolve` (FunctionState.resolve_callee), `len` must resolve to
    `builtins.len`: a local `len = positions` may return a tensor of any rank."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    if isinstance(node, ast.Name):
        return node.id in numbers
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return python_number(node.operand, numbers, resolve)
    if isinstance(node, ast.BinOp):
        return python_number(node.left, numbers, resolve) and python_number(node.right, numbers, resolve)
    if isinstance(node, ast.Subscript):
        return isinstance(node.value, ast.Attribute) and node.value.attr == "shape"
    if isinstance(node, ast.Call):
        func = node.func
        return (isinstance(func, ast.Name) and func.id == "len" and (resolve is None or resolve(func) == "builtins.len")) or (
            isinstance(func, ast.Attribute) and func.attr in ("size", "dim", "numel")
        )
    return False


def _scalar_call(node: ast.Call, scalars: Set[str], numbers: Set[str], resolve: Resolve, vectors: Set[str]) -> bool:
    func = node.func
    name = resolve(func)
    if isinstance(func, ast.Attribute) and name is None and func.attr in _RESHAPING_METHODS and _empty_shape(node):
        return True  # `x.reshape(())`, `x.view([])`: 0-d whatever `x` was (or an error)
    if isinstance(func, ast.Attribute) and name is None:  # a method, not `torch.max(...)` read as an attribute chain
        if func.attr in _RANK_KEEPING_METHODS:
            operands = [*node.args, *(keyword.value for keyword in node.keywords)]
            if func.attr in _ARITHMETIC_METHODS:
                keeps = all(_int(o) or is_scalar(o, scalars, numbers, resolve, vectors) for o in operands)
            elif func.attr in _CLAMPS:
                keeps = all(_bound(o, scalars, numbers, resolve, vectors) for o in operands)
            else:  # a dtype or a device: a name or a number, never a tensor made here
                keeps = not any(isinstance(o, (ast.Call, ast.Subscript)) and not is_scalar(o, scalars, numbers, resolve, vectors)
                                for o in operands)
            return keeps and is_scalar(func.value, scalars, numbers, resolve, vectors)
        if func.attr in _DIM_REDUCTIONS and _only_dim(node.args, node.keywords):  # `v.argmax(0)` of a 1-d `v`
            return iterates_scalars(func.value, vectors, resolve)
        return func.attr in _NO_ARGUMENT_SCALARS and not node.args and not node.keywords
    if name == "torch.randint":
        return _empty_size(node)
    if name in _SIZED_FACTORIES:  # `torch.zeros(())`, `torch.rand([])`, `torch.full((), v)`
        return empty_size_factory(node, resolve)
    if name == "torch.scalar_tensor":
        return True
    if name is not None and name.removeprefix("torch.") in _DIM_REDUCTIONS and len(node.args) + len(node.keywords) > 1:
        # `torch.argmax(v, 0)`; with the tensor alone a full reduction (`torch.count_nonzero(x)`, below)
        return _only_dim(node.args[1:], node.keywords) and iterates_scalars(node.args[0], vectors, resolve)
    if name in _UNARY_FUNCTIONS or name in _BINARY_FUNCTIONS or name in ("builtins.max", "builtins.min"):
        return _elementwise(node, name, scalars, numbers, resolve, vectors)
    if name in _BUCKET_FUNCTIONS and len(node.args) == 2 and _number_value(node.args[0 if name == "torch.bucketize" else 1],
                                                                          numbers, resolve):
        return True
    position = _RANK_OF_ARGUMENT.get(name or "")
    if position is not None:
        bounds = [*node.args[1:], *(keyword.value for keyword in node.keywords)] if name in _CLAMP_FUNCTIONS else []
        return (position < len(node.args) and is_scalar(node.args[position], scalars, numbers, resolve, vectors)
                and all(_bound(o, scalars, numbers, resolve, vectors) for o in bounds))
    return name in _ONE_ARGUMENT_SCALARS and len(node.args) == 1 and not node.keywords


def _elementwise(node: ast.Call, name: str, scalars: Set[str], numbers: Set[str], resolve: Resolve,
                 vectors: Set[str]) -> bool:
    """`torch.round(s)`, `torch.add(s, 1)`, `torch.minimum(s, u)`, `max(s - 1, 0)` of 0-d tensors `s`, `u`:
    0-d when every operand is a Python number or a 0-d tensor and one is a tensor (the builtins
    `max`/`min` of two: Dynamo runs them as `torch.maximum`/`clamp`); a keyword is a constant
    (`rounding_mode="floor"`, `alpha=2`), never a tensor that broadcasts."""
    operands = node.args
    if any(isinstance(o, ast.Starred) for o in operands) or not all(
            isinstance(k.value, ast.Constant) and k.arg is not None for k in node.keywords):
        return False
    if name in _UNARY_FUNCTIONS:
        return len(operands) == 1 and is_scalar(operands[0], scalars, numbers, resolve, vectors)
    if len(operands) != 2 or (name.startswith("builtins.") and node.keywords):
        return False
    tensors = [is_scalar(o, scalars, numbers, resolve, vectors) for o in operands]
    two_tensors = name.removeprefix("torch.") in ("minimum", "maximum", "fmin", "fmax")
    return any(tensors) and all(t or (not two_tensors and python_number(o, numbers, resolve))
                                for t, o in zip(tensors, operands))


def _number_value(node: ast.expr, numbers: Set[str], resolve: Resolve) -> bool:
    """A Python number, or a tensor made of one (`torch.tensor(0.7)`, `torch.as_tensor(t)` of a number)."""
    if python_number(node, numbers, resolve):
        return True
    return (isinstance(node, ast.Call) and resolve(node.func) in _NUMBER_TENSORS and len(node.args) == 1
            and python_number(node.args[0], numbers, resolve))


def _empty_shape(call: ast.Call) -> bool:
    """`reshape(())`, `view([])`: the one argument is an empty shape."""
    return (len(call.args) == 1 and not call.keywords and isinstance(call.args[0], (ast.Tuple, ast.List))
            and not call.args[0].elts)


def scalar_pairs(target: ast.expr, value: ast.expr, scalars: Set[str], numbers: Set[str], resolve: Resolve,
                 vectors: Set[str]) -> list[str]:
    """The names `a, b = s, u` binds to 0-d tensors: each element of a tuple or list display to the
    name at its place, judged before any is bound (`i, j = j, i` swaps)."""
    if not (isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List))
            and len(target.elts) == len(value.elts)):
        return []
    if any(isinstance(e, ast.Starred) for e in (*target.elts, *value.elts)):
        return []
    return [t.id for t, v in zip(target.elts, value.elts)
            if isinstance(t, ast.Name) and is_scalar(v, scalars, numbers, resolve, vectors)]


def empty_size_factory(call: ast.Call, resolve: Resolve) -> bool:
    """`torch.zeros(())`, `torch.ones([], dtype=torch.long)`, `torch.full((), v)`: a factory of size `()`."""
    if resolve(call.func) not in _SIZED_FACTORIES:
        return False
    size = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "size"), None)
    return isinstance(size, (ast.Tuple, ast.List)) and not size.elts


def _only_dim(args: list[ast.expr], keywords: list[ast.keyword]) -> bool:
    """The arguments of a reduction are one dim, 0 or -1 (`argmax(0)`, `sum(dim=-1)`): a 1-d
    tensor's only dim; `keepdim=` or a dtype leaves it out."""
    given = [*args, *(k.value for k in keywords if k.arg == "dim")]
    return len(given) == 1 and len(given) == len(args) + len(keywords) and _signed_int(given[0]) and (
        _dim_value(given[0]) in (0, -1))


def _pair_of_scalars(node: ast.expr, vectors: Set[str], resolve: Resolve) -> bool:
    """`v.max(0)`, `torch.max(v, dim=0)`, `v.median(-1)` of a 1-d `v`: a (values, indices) pair of
    0-d tensors (measured on torch 2.13: benchmarks/spellings/dd_zero_d_sources.py)."""
    if not isinstance(node, ast.Call):
        return False
    name = resolve(node.func)
    if name is None and isinstance(node.func, ast.Attribute) and node.func.attr in _PAIR_REDUCTIONS:
        return _only_dim(node.args, node.keywords) and iterates_scalars(node.func.value, vectors, resolve)
    if name is not None and name.removeprefix("torch.") in _PAIR_REDUCTIONS and name.startswith("torch.") and node.args:
        return _only_dim(node.args[1:], node.keywords) and iterates_scalars(node.args[0], vectors, resolve)
    return False


def _dim_value(node: ast.expr) -> int:
    if isinstance(node, ast.UnaryOp):
        return -cast(int, cast(ast.Constant, node.operand).value)
    return cast(int, cast(ast.Constant, node).value)


def _signed_int(node: ast.expr) -> bool:
    """An int written out, `-1` too."""
    return _int(node.operand if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) else node)


def _bound(node: ast.expr, scalars: Set[str], numbers: Set[str], resolve: Resolve, vectors: Set[str]) -> bool:
    """A clamp bound that keeps a 0-d tensor 0-d: none, a Python number or a 0-d tensor; a
    tensor of unknown rank (a buffer, a parameter, one made here) may broadcast the result."""
    is_none = isinstance(node, ast.Constant) and node.value is None
    return is_none or python_number(node, numbers, resolve) or is_scalar(node, scalars, numbers, resolve, vectors)


def _empty_size(call: ast.Call) -> bool:
    """`torch.randint(0, n, ())`, `torch.randint(n, size=())`: a draw of size `()` is 0-d (the size is
    the last of two or three positional arguments, or `size=`)."""
    sizes = _sizes(call)
    return len(sizes) == 1 and isinstance(sizes[0], (ast.Tuple, ast.List)) and not sizes[0].elts


def _sizes(call: ast.Call) -> list[ast.expr]:
    """The size of a `torch.randint` call: the last of two or three positional arguments, or `size=`."""
    return [k.value for k in call.keywords if k.arg == "size"] or (call.args[-1:] if len(call.args) in (2, 3) else [])


def _minus_one(node: ast.expr) -> bool:
    operand = node.operand if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) else None
    return isinstance(operand, ast.Constant) and type(operand.value) is int and operand.value == 1


def _int(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int


def _one_dimensional_tuple(node: ast.expr, resolve: Resolve) -> bool:
    """`t.nonzero(as_tuple=True)`, `torch.nonzero(t, as_tuple=True)`, `torch.where(cond)`."""
    if not isinstance(node, ast.Call):
        return False
    as_tuple = any(
        kw.arg == "as_tuple" and isinstance(kw.value, ast.Constant) and kw.value.value is True for kw in node.keywords
    )
    name = resolve(node.func)
    if name == "torch.where":
        return len(node.args) == 1 and not node.keywords
    if name == "torch.nonzero":
        return as_tuple
    return name is None and isinstance(node.func, ast.Attribute) and node.func.attr == "nonzero" and as_tuple
