"""GM627 extremum-by-key-over-tensors: its documentation, in one place with how it is detected.

Measured on torch 2.13 (tests/coverage_probes/gb0193_max_key_over_tensors.py): `max(items, key=...)`
and `min(items, key=...)` over tensors break with GB0193 ("invalid call to builtin op handler"):
Dynamo's handler of the builtin takes no `key=` once an argument is a tensor, whatever the key
returns (`key=len`, `key=lambda t: t.shape[0]` too). Over Python values (`max(names, key=len)`,
`min(d, key=d.get)` of numbers) it traces, and so does `max(a, b)` of two tensors without a key.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import Kind


def _extremum(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind | None:
    if not any(keyword.arg == "key" for keyword in call.keywords) or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    compared = Kind.union(args).without_flags()
    if compared.is_tensor and not checker.assumed_tensor(compared):
        checker.report(rule, call, f"`{name}(..., key=...)` over tensors: Dynamo's `{name}` takes no key there", compared)
    return None  # what it returns is inferred as usual (an element)


RULE = Rule(
    code="GM627",
    name="extremum-by-key-over-tensors",
    family="not traceable",
    gb_id="GB0193",
    summary=(
        "Flags `max(items, key=...)` and `min(items, key=...)` in traced code whose items are "
        "tensors (a list of tensors, `max(a, b, key=...)` of two)."
    ),
    why=(
        "TorchDynamo's handler of the builtins `max` and `min` accepts no `key=` once an argument is "
        "a tensor, whatever the key returns: it ends the graph (GB0193, \"invalid call to builtin op "
        "handler\", measured on torch 2.13) and the call runs eagerly."
    ),
    example=(
        "parts = [torch.sigmoid(x), torch.tanh(x)]\n"
        "largest = max(parts, key=lambda t: t.norm())"
    ),
    use_instead=(
        "stacked = torch.stack(parts)  # parts of one shape\n"
        "largest = stacked[stacked.flatten(1).norm(dim=1).argmax()]  # picked inside the graph"
    ),
    fix_safety=(
        "No automatic fix: stack the items and pick with `argmax`/`argmin` of the keys as one tensor, "
        "pick by a Python value decided before the compiled call, or loop and compare sizes yourself."
    ),
    detection=Detection(builtins={"max": _extremum, "min": _extremum}),
    advice=("`{code}` passes `key=` to `max`/`min` over tensors: stack them and pick with `argmax` of the keys, "
            "or choose outside the compiled function"),
)
