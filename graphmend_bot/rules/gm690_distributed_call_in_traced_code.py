"""GM690 distributed-call-in-traced-code: its documentation, in one place with how it is detected.

Measured on torch 2.13 (`CollectiveFunctionRewriteVariable.call_function`, user_defined.py's
P2POp handling; tests/coverage_probes/gb0172_*, gb2696_*, gb9300_*, gb1750_*). Dynamo rewrites the
torch.distributed collectives of `traceable_collective_remaps` into functional collectives it can
trace, and refuses, whatever the process group:
- one of them called with `async_op=True` (GB0172): the synchronous call traces;
- `isend`/`irecv` (GB2696), `batch_isend_irecv` (GB9300) and building a `P2POp` (GB1750), while P2P
  compilation is off: it is unless `TORCHDYNAMO_ENABLE_P2P_COMPILATION=1` is set (then they trace).
`COLLECTIVES` lists each collective with the place of `async_op` among its parameters;
tests/test_distributed_calls.py checks it against the installed torch. Left out: mutating a P2POp
built outside the compiled region (GB9860): what built an attribute's value is not followed here.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import NOT_TENSOR, TENSOR, Kind

ASYNC_COLLECTIVE = "GB0172"  # "async_op=True for distributed collectives"
POINT_TO_POINT = "GB2696"  # "P2P compilation disabled for isend/irecv"
BATCHED_POINT_TO_POINT = "GB9300"  # "P2P compilation disabled for batch_isend_irecv"
P2POP_BUILT = "GB1750"  # "P2P compilation disabled for P2POp construction"

# The collectives Dynamo rewrites, with the index of `async_op` among their positional parameters.
COLLECTIVES = {
    "all_gather_into_tensor": 3,
    "all_gather_single": 3,
    "reduce_scatter_tensor": 4,
    "reduce_scatter_single": 4,
    "all_reduce": 3,
    "all_to_all_single": 5,
    "all_gather": 3,
    "_reduce_scatter_base": 4,
    "_all_gather_base": 3,
}
POINT_TO_POINT_CALLS = {
    "isend": POINT_TO_POINT,
    "irecv": POINT_TO_POINT,
    "batch_isend_irecv": BATCHED_POINT_TO_POINT,
    "P2POp": P2POP_BUILT,
}
_MODULES = ("torch.distributed", "torch.distributed.distributed_c10d")


def _async_collective(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind:
    index = COLLECTIVES[name.rpartition(".")[2]]
    flags = [k.value for k in call.keywords if k.arg == "async_op"]
    if len(call.args) > index and not any(isinstance(arg, ast.Starred) for arg in call.args[: index + 1]):
        flags.append(call.args[index])
    if any(isinstance(flag, ast.Constant) and flag.value is True for flag in flags):
        checker.report(
            rule,
            call,
            f"`{name}(..., async_op=True)` cannot be traced: Dynamo compiles only the synchronous collective",
            TENSOR,
            gb_id=ASYNC_COLLECTIVE,
        )
    return NOT_TENSOR


def _point_to_point(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind:
    leaf = name.rpartition(".")[2]
    checker.report(
        rule,
        call,
        f"`{leaf}(...)` cannot be traced while Dynamo's P2P compilation is off (the default)",
        TENSOR,
        gb_id=POINT_TO_POINT_CALLS[leaf],
    )
    return NOT_TENSOR


RULE = Rule(
    code="GM690",
    name="distributed-call-in-traced-code",
    family="not traceable",
    gb_id=ASYNC_COLLECTIVE,
    other_gb_ids=(POINT_TO_POINT, BATCHED_POINT_TO_POINT, P2POP_BUILT),
    summary=(
        "Flags torch.distributed calls Dynamo refuses in traced code: a collective (`all_reduce`, "
        "`all_gather`, `reduce_scatter_tensor`, `all_to_all_single`, ...) called with `async_op=True`, "
        "and the point-to-point API, `isend`, `irecv`, `batch_isend_irecv` and `P2POp(...)`, which "
        "Dynamo compiles only when `TORCHDYNAMO_ENABLE_P2P_COMPILATION=1` is set."
    ),
    why=(
        "Dynamo traces a collective by rewriting it into torch's functional collectives, which have no "
        "asynchronous form: with `async_op=True` it ends the graph and runs the call eagerly (GB0172). "
        "Point-to-point communication is rewritten only when P2P compilation is turned on, which it is "
        "not by default: `isend`/`irecv` (GB2696), `batch_isend_irecv` (GB9300) and building a `P2POp` "
        "(GB1750) each break the graph (measured on torch 2.13)."
    ),
    example="work = torch.distributed.all_reduce(grad, async_op=True)\nwork.wait()",
    use_instead="torch.distributed.all_reduce(grad)  # synchronous: Dynamo traces it as a functional collective",
    fix_safety=(
        "No automatic fix: an asynchronous collective overlaps communication that a synchronous one "
        "would not. Call it synchronously in the compiled region, or keep the communication outside "
        "it; for point-to-point calls set `TORCHDYNAMO_ENABLE_P2P_COMPILATION=1` or move them out."
    ),
    detection=Detection(
        calls={
            **{f"{module}.{name}": _async_collective for module in _MODULES for name in COLLECTIVES},
            **{f"{module}.{name}": _point_to_point for module in _MODULES for name in POINT_TO_POINT_CALLS},
        }
    ),
    advice=(
        "Dynamo cannot trace `{code}`: call the collective synchronously, keep the communication "
        "outside the compiled function, or (point-to-point) set `TORCHDYNAMO_ENABLE_P2P_COMPILATION=1`"
    ),
)
