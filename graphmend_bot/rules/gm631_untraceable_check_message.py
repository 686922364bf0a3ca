"""GM631 untraceable-check-message: its documentation, in one place with how it is detected.

Dynamo keeps `torch._check(cond, message)` (and `_check_index`, `_check_value`, `_check_type`,
`_check_not_implemented`, `_check_with(error, cond, message)`) in the graph only when `message` is a
function defined inside the compiled region whose closure holds Python constants. Measured on torch
2.13 (tests/coverage_probes/gb9840_*, gb9158_*):
- a message that is not such a function, e.g. a string (`torch._check(n > 0, "n must be positive")`,
  which eager accepts since it calls the message only on failure): GB9840;
- a lambda that reads a tensor, e.g. a parameter annotated as one (`lambda: f"bad {x.shape}"`): GB9158.
A message given by a name is left out: it may name a function defined in the region (traced),
though a module-level string breaks with GB9840 too; so is a lambda reading only locals, whose
kinds the traversal does not give inside the lambda.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import NOT_TENSOR, TENSOR, Kind

NOT_A_FUNCTION = "GB9840"  # "Can't extract message from torch._check*()"
TENSOR_IN_CLOSURE = "GB9158"  # "Can't convert torch._check*() message closure"
# Where each check function takes its message, by position.
MESSAGE_POSITION = {
    "_check": 1, "_check_index": 1, "_check_value": 1, "_check_type": 1, "_check_not_implemented": 1, "_check_with": 2,
}


def _message(call: ast.Call, name: str) -> ast.expr | None:
    if any(isinstance(arg, ast.Starred) for arg in call.args):
        return None
    position = MESSAGE_POSITION[name]
    if len(call.args) > position:
        return call.args[position]
    return next((k.value for k in call.keywords if k.arg == "message"), None)


def _reads_tensor_parameter(checker: Checker, message: ast.Lambda) -> bool:
    own = {a.arg for a in (*message.args.posonlyargs, *message.args.args, *message.args.kwonlyargs)}
    return any(isinstance(node, ast.Name) and node.id not in own and checker.annotated_tensor(node.id)
               for node in ast.walk(message.body))


def _check(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind:
    message = _message(call, name)
    if message is None or isinstance(message, ast.Name) or (isinstance(message, ast.Constant) and message.value is None):
        return NOT_TENSOR
    if not isinstance(message, ast.Lambda):
        checker.report(rule, call, f"the message of `torch.{name}` is not a function defined in the compiled region",
                       TENSOR, gb_id=NOT_A_FUNCTION)
    elif _reads_tensor_parameter(checker, message):
        checker.report(rule, call, f"the message of `torch.{name}` reads a tensor", TENSOR,
                       gb_id=TENSOR_IN_CLOSURE)
    return NOT_TENSOR


RULE = Rule(
    code="GM631",
    name="untraceable-check-message",
    family="not traceable",
    gb_id=NOT_A_FUNCTION,
    other_gb_ids=(TENSOR_IN_CLOSURE,),
    summary=(
        "Flags `torch._check(cond, message)` (and `_check_index`, `_check_value`, `_check_type`, "
        "`_check_not_implemented`, `_check_with`) whose message is not a lambda (`\"n must be positive\"`), "
        "or is a lambda that reads a tensor parameter."
    ),
    why=(
        "Dynamo records the check in the graph with its message as a function it calls only on "
        "failure; it needs a function defined in the compiled region whose closure holds Python "
        "constants. A string or a function from outside (GB9840), or a closure over a tensor "
        "(GB9158), ends the graph and the check runs eagerly (measured on torch 2.13)."
    ),
    example='torch._check(n > 0, "n must be positive")',
    use_instead='torch._check(n > 0, lambda: "n must be positive")',
    fix_safety=(
        "No automatic fix yet: wrapping a string in `lambda: ...` keeps the text and is what "
        "torch documents; a message built from a tensor should name its shape from Python ints "
        "read before the check, or say less."
    ),
    detection=Detection(torch_functions=dict.fromkeys(MESSAGE_POSITION, _check)),
    advice="Give `{code}` its message as a lambda that reads no tensor: `lambda: \"...\"`",
)
