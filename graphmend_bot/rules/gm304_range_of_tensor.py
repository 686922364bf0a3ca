"""GM304 range-of-tensor: its documentation, in one place with how it is detected."""

from __future__ import annotations

import ast

from graphmend_bot.rules.advice import AdviceCase
from graphmend_bot.rules.detect import Checker, Detection, assumed_parameter
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import NOT_TENSOR, TENSOR, Kind

NUMPY_MESSAGE = "`range()` of a NumPy value: Dynamo traces NumPy calls as tensors (`ndarray`), and not `range` over one"


def _range_bound(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind | None:
    """`range(t)`, `range(0, t)`: any bound a tensor. Measured on torch 2.13: GB0059 "Failed to
    trace builtin operator `range` with argument types ['Tensor']", also with
    `capture_scalar_outputs=True` (unlike `int(t)`), so it is not GM302's `.item()` break. A NumPy
    value is one too: Dynamo traces `np.prod(x.shape[1:])` as an `ndarray` ("argument types
    ['ndarray']"; nflows' `range(num_inputs)`)."""
    if any(checker.is_ndarray(node) for node in call.args):
        checker.report(rule, call, NUMPY_MESSAGE, TENSOR)
        return NOT_TENSOR
    bounds = Kind.union(args)
    if not bounds.is_tensor or all(
        assumed_parameter(checker, node, kind) for node, kind in zip(call.args, args) if kind.is_tensor
    ):
        # range(len(x)), range(x.shape[0]), range(n); range(seq_len) of a parameter as it came in
        # (x_transformers' `generate(..., seq_len)`), unless annotated as a tensor
        return None
    checker.report(rule, call, "`range()` of a tensor: Dynamo cannot trace `range` over a tensor bound", bounds)
    return NOT_TENSOR


RULE = Rule(
    code="GM304",
    name="range-of-tensor",
    family="scalar extraction",
    gb_id="GB0059",
    summary=(
        "Flags `range()` whose bounds include a tensor in traced code (`for _ in range(n_iters.long()):`), "
        "or a NumPy value, which Dynamo traces as a tensor (`range(np.prod(x.shape[1:]))`)."
    ),
    why=(
        "`range` needs Python ints. TorchDynamo does not trace the builtin with a tensor argument, "
        "even with `capture_scalar_outputs=True`, so it ends the graph and runs the rest eagerly; "
        "inside a loop it skips the whole frame. A NumPy call's result is such an argument too: "
        "Dynamo runs `numpy.*` calls through `torch._numpy`, so `np.prod(x.shape[1:])` is an "
        "`ndarray` backed by a tensor even when its inputs are Python ints."
    ),
    example="for _ in range(n_iters.long()):\n    x = x / 2",
    use_instead="for _ in range(8):  # a Python int, known before the compiled call\n    x = x / 2",
    fix_safety=(
        "No automatic fix: the trip count is a tensor value. Pass the count as a Python int (decided "
        "before the compiled call), bound the loop by a constant and mask the extra steps with "
        "`torch.where`, or express it with `torch._higher_order_ops.while_loop`. A count NumPy computes "
        "from Python numbers can be computed with `math` instead (`math.prod(x.shape[1:])`); "
        "`int(np.prod(...))` still breaks (Dynamo reads the array's value)."
    ),
    detection=Detection(builtins={"range": _range_bound}),
    advice_cases=(AdviceCase(lambda finding: finding.message == NUMPY_MESSAGE, (
        "`{code}` counts with a NumPy value, a tensor under Dynamo: compute the count with `math` "
        "(`math.prod(shape)`) or plain Python ints"
    )),),
    advice=(
        "`{code}` takes its trip count from tensor values: pass the count as a Python int decided "
        "before the compiled call, or bound the loop by a constant and mask the extra steps"
    ),
)
