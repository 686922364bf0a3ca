"""GM305 tensor-as-scalar-argument: its documentation, in one place with how it is detected.

`SCALAR_PARAMETERS` (vocabulary/scalar_parameters.py) lists, per torch function, the parameters typed as a Python number whose
tensor argument Dynamo cannot keep in the graph; each was measured on torch 2.13 with a 0-d tensor
computed in the traced frame (GB0033 "Data dependent operator"; a tuple given to `F.pad` breaks when
one of its elements is such a tensor). Measured to trace, so absent:
`torch.clamp(min=t)`, `masked_fill(mask, t)`, `x ** t`, `torch.full(size, t)`, `torch.lerp(a, b, t)`,
`torch.quantile(x, t)`, `addcdiv(value=t)`, `F.normalize(eps=t)`, and the in-place `add_`/`addcmul_`.
An int parameter given a 0-d integer tensor that is an input of the frame traces (Dynamo specializes
on its value): after a break at the top of the function (an `if` on a tensor, a call that breaks),
Dynamo resumes in a new frame whose inputs are the values bound before it, so `F.pad(x, paddings)`
or `torch.narrow(x, 0, 0, n)` on them is not reported (Checker.resumed_input); `p + 1` computed
after it, or a float parameter (`alpha=`, a slope) given an input, still breaks
(tests/fixtures/resumed/resumed_inputs.py).

`F.one_hot(labels)` with no `num_classes` (or a positional `-1`) reads it from the data, as
`labels.max() + 1`: GB0246 on torch 2.13 (tests/coverage_probes/gb0246_*), whatever `labels` is.
Dynamo asks exactly that: one argument in all, or a second positional `-1` (a keyword
`num_classes=-1` passes its check and is left out).
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import NOT_TENSOR, TENSOR, Kind
from graphmend_bot.vocabulary.scalar_parameters import SCALAR_PARAMETERS

# The parameters of SCALAR_PARAMETERS that take Python ints.
_INTS = frozenset({
    "pad", "size", "num_classes", "chunks", "split_size_or_sections", "shifts", "diagonal", "start", "length", "k",
    "bins", "decimals", "n",
})


def _made_here(kind: Kind) -> bool:
    """A tensor this function made from no tensor that reaches it: `torch.div(seq_len, w)` of
    Python ints is a constant Dynamo folds where a size is wanted (measured on 2.13, longformer's
    `_chunk`: no break). Sizes made from the function's parameters or from what its calls return
    are reported, through torch functions too (`torch.sum(mask)`, the rows of
    `F.interpolate(mask).sum(1)`: kind.computed_from)."""
    return kind.always and not kind.params and not kind.calls
def _zero_d_by_construction(checker: Checker, node: ast.expr) -> bool:
    """`node` is, or a size tuple holds, a 0-d tensor by construction (analysis/tensor_rank.py): a
    random draw (`torch.randint(-2, 2, ())`, `torch.randperm(n)[0]`) or a reduction, made from Python
    values too (`torch.arange(4).sum()`). Dynamo folds none of these (measured on 2.13: GB0033 for
    each, benchmarks/spellings/dd_random_arguments.py); only `torch.tensor(2)` and torch functions of
    Python numbers (`torch.div(6, 3)`) are constants it keeps."""
    elements = node.elts if isinstance(node, (ast.Tuple, ast.List)) else [node]
    return any(not isinstance(element, ast.Starred) and checker.is_scalar_tensor(element) for element in elements)


# The same parameters of the tensor methods (`x.add(y, alpha=t)`, `x.norm(p=t)`), by keyword only:
# `self.norm(hidden_states)` is a submodule called, and the traversal takes any `.norm(...)` for a
# tensor method. `x.tensor_split(points)` names no submodule: its split points by position too.
METHOD_PARAMETERS: dict[str, tuple[tuple[int | None, str], ...]] = {
    "add": ((None, "alpha"),), "sub": ((None, "alpha"),), "addcmul": ((None, "value"),), "norm": ((None, "p"),),
    "tensor_split": ((0, "tensor_indices_or_sections"),),
    # Distribution parameters of the in-place samplers and `bernoulli`, a histogram's bins and range,
    # `diff`'s order: Python numbers in every overload (`bernoulli_(p)` has a tensor one, and traces).
    "normal_": ((0, "mean"), (1, "std")), "log_normal_": ((0, "mean"), (1, "std")),
    "cauchy_": ((0, "median"), (1, "sigma")), "exponential_": ((0, "lambd"),), "geometric_": ((0, "p"),),
    "bernoulli": ((0, "p"),), "histc": ((0, "bins"), (1, "min"), (2, "max")), "diff": ((0, "n"),),
}
# Not the size methods (`x.view(n, -1)`, `new_zeros`, `narrow`, `expand`: measured to break the same
# way): on transformers 4.52.4 their sizes are tensors mostly through annotations such as
# `Union[Tensor, List[Tuple]]` on what callers pass as lists, which the analysis cannot tell apart.


def _scalar_arguments(
    checker: Checker, call: ast.Call, parameters: tuple[tuple[int | None, str], ...], args: list[Kind]
) -> list[tuple[str, Kind, Kind]]:
    """The scalar parameters given a tensor (not one only assumed, see Checker.assumed_tensor),
    with that tensor's kind, and when it is an int parameter's input of a resumed frame."""
    keywords = checker.keyword_kinds(call)
    found = []
    for position, name in parameters:
        if position is not None and position < len(call.args) and not any(
            isinstance(arg, ast.Starred) for arg in call.args[: position + 1]
        ):
            kind, node = args[position], call.args[position]
        elif name in keywords:
            kind, node = keywords[name], next(k.value for k in call.keywords if k.arg == name)
        else:
            continue
        folded = name in _INTS and _made_here(kind) and not _zero_d_by_construction(checker, node)
        if kind.is_tensor and not checker.assumed_tensor(kind) and not folded:
            found.append((name, kind, checker.resumed_input(node) if name in _INTS else NOT_TENSOR))
    return found


def _report(rule: Rule, checker: Checker, call: ast.Call, callee: str, found: list[tuple[str, Kind, Kind]]) -> None:
    for name, kind, resumed_input in found[:1]:  # one finding per call: one break
        # An int parameter given 0-d integer tensors that are inputs of the frame (bound before a
        # break earlier in the function, where Dynamo resumed) traces: Dynamo specializes on their
        # values (measured: `F.pad(x, paddings)` after encodec's `if length <= max_pad:`).
        checker.report(
            rule, call,
            f"`{name}` of `{callee}` takes a Python number: a tensor there is read back to Python", kind,
            unless=resumed_input,
        )


ONE_HOT = "nn.functional.one_hot"
ONE_HOT_WITHOUT_NUM_CLASSES = "GB0246"  # "... `torch.nn.functional.one_hot` with data-dependent output shape"


def _num_classes_from_data(call: ast.Call) -> bool:
    """`F.one_hot(labels)` or `F.one_hot(labels, -1)`, as Dynamo's handler tests it."""
    if any(isinstance(arg, ast.Starred) for arg in call.args) or any(k.arg is None for k in call.keywords):
        return False  # `*args`/`**kwargs`: how many it gets is not written here
    if len(call.args) + len(call.keywords) == 1:
        return True
    second = call.args[1] if len(call.args) == 2 else None
    return (isinstance(second, ast.UnaryOp) and isinstance(second.op, ast.USub)
            and isinstance(second.operand, ast.Constant) and second.operand.value == 1)


def _torch_function(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> None:
    if name == ONE_HOT and _num_classes_from_data(call):
        checker.report(rule, call, "`F.one_hot` without `num_classes` reads the class count from the tensor's values",
                       TENSOR, gb_id=ONE_HOT_WITHOUT_NUM_CLASSES)
        return
    _report(rule, checker, call, f"torch.{name}", _scalar_arguments(checker, call, SCALAR_PARAMETERS[name], args))


def _tensor_method(rule: Rule, checker: Checker, call: ast.Call, method: str, receiver: Kind, args: list[Kind]) -> None:
    owner = call.func.value if isinstance(call.func, ast.Attribute) else None
    if receiver.is_tensor and not (isinstance(owner, ast.Name) and owner.id in ("self", "cls")):
        _report(rule, checker, call, f".{method}()", _scalar_arguments(checker, call, METHOD_PARAMETERS[method], args))


# `clamp(x, min, max)` with one bound a Python number and the other a tensor: torch has no overload
# for a number and a tensor, so both are taken as numbers and the tensor is read back (measured on
# torch 2.13: GB0033 for a 0-d bound, computed or a buffer; with a bound of higher rank eager raises
# TypeError). Two tensor bounds, or one alone, take the tensor overload and trace. Reported only for a
# bound the source proves 0-d (`y.mean()`, `t.max() - 3`): a buffer's rank is not known here.
_CLAMPS = ("clamp", "clip", "clamp_", "clip_")


def _number(node: ast.expr) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def _mixed_bounds(rule: Rule, checker: Checker, call: ast.Call, callee: str, args: list[Kind], skip: int) -> None:
    if any(isinstance(arg, ast.Starred) for arg in call.args) or any(k.arg is None for k in call.keywords):
        return
    keywords = checker.keyword_kinds(call)
    bounds = {name: (node, kind) for name, node, kind in zip(("min", "max"), call.args[skip:], args[skip:])}
    bounds.update((k.arg, (k.value, keywords[k.arg])) for k in call.keywords if k.arg in ("min", "max"))
    if len(bounds) != 2 or not any(_number(node) for node, _ in bounds.values()):
        return
    for name, (node, kind) in bounds.items():
        if kind.is_tensor and not checker.assumed_tensor(kind) and checker.is_scalar_tensor(node):
            checker.report(rule, call, f"`{name}` of `{callee}` beside a Python number bound is read back to Python",
                           kind)
            return


def _clamp_function(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> None:
    _mixed_bounds(rule, checker, call, f"torch.{name}", args, skip=1)


def _clamp_method(rule: Rule, checker: Checker, call: ast.Call, method: str, receiver: Kind, args: list[Kind]) -> None:
    owner = call.func.value if isinstance(call.func, ast.Attribute) else None
    if receiver.is_tensor and not (isinstance(owner, ast.Name) and owner.id in ("self", "cls")):
        _mixed_bounds(rule, checker, call, f".{method}()", args, skip=0)


RULE = Rule(
    code="GM305",
    name="tensor-as-scalar-argument",
    family="scalar extraction",
    gb_id="GB0033",
    other_gb_ids=(ONE_HOT_WITHOUT_NUM_CLASSES,),
    summary=(
        "Flags a tensor computed in traced code passed where a torch function takes a Python "
        "number: `alpha=` of `torch.add`/`sub`, `value=` of `addcmul`, `beta=`/`alpha=` of "
        "`addmm`, `p` of `norm`, the slope, threshold and `eps` arguments of `torch.nn.functional` "
        "activations and norms, `p` of `F.dropout`, `scale=` of `scaled_dot_product_attention`, "
        "`F.pad`'s fill `value`, the range and bins of `torch.histc` (`min=x.min(), max=x.max()`), "
        "`p` of `torch.bernoulli` and `cdist`, `decimals` of `torch.round`, `n` of `torch.diff`, and "
        "the distribution parameters of the in-place samplers (`normal_(0.0, std)`, `log_normal_`, "
        "`cauchy_`, `exponential_(rate)`, `geometric_`) and of `Tensor.bernoulli(p)`; `clamp`/`clip` given a "
        "Python number for one bound and a 0-d tensor for the other (`y.clamp(0, y.mean())`); "
        "and where a torch function takes a Python int made from tensors that reach the function: "
        "`F.pad`'s padding, `F.interpolate`'s `size`, `F.one_hot`'s `num_classes`, `torch.narrow`, "
        "`torch.topk`'s `k`, `torch.chunk`, `torch.split`, `torch.roll`, the `diagonal` of "
        "`diag`/`tril`/`triu`, or a 0-d tensor by construction made from Python values there (a random "
        "shift `torch.randint(-2, 2, ())`) (the factories `torch.zeros`, `arange`, ... are GM302's); "
        "`torch.tensor_split` (and the method) given its split points as a tensor, whatever made it; and "
        "`F.one_hot(labels)` without `num_classes`, which reads it from the labels' values."
    ),
    why=(
        "These parameters are Python scalars in the operator's schema. TorchDynamo cannot turn a "
        "tensor into one without reading its value (measured on torch 2.13: GB0033 \"Data "
        "dependent operator\"), so it ends the graph there. `F.one_hot` without `num_classes` (or "
        "with a positional `-1`) computes it as the largest label plus one, a Python int read from the "
        "data: GB0246."
    ),
    example="scale = logits.abs().amax()\ny = torch.add(x, residual, alpha=scale)",
    use_instead="y = x + residual * scale  # tensor arithmetic keeps the factor in the graph",
    fix_safety=(
        "No automatic fix: write the scaling as tensor arithmetic (`x + y * t`, "
        "`torch.where(x > 0, x, x * slope)`), or pass a Python number decided before the compiled call; "
        "give `F.one_hot` the number of classes the model knows (`num_classes=self.num_labels`)."
    ),
    detection=Detection(
        torch_functions={**dict.fromkeys(SCALAR_PARAMETERS, _torch_function),
                         **dict.fromkeys(("clamp", "clip"), _clamp_function)},
        tensor_methods={**dict.fromkeys(METHOD_PARAMETERS, _tensor_method), **dict.fromkeys(_CLAMPS, _clamp_method)},
    ),
    advice=("`{code}` passes a tensor where the operator takes a Python number: write the scaling as "
            "tensor arithmetic (`x + y * t`), or pass a number decided before the compiled call"),
)
