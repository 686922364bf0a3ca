"""GM503 data-dependent-repeat: its documentation, in one place with how it is detected and fixed."""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import TENSOR, Kind

MESSAGE = "`repeat_interleave` with tensor repeats has a data-dependent length"


def _sized(call: ast.Call) -> bool:
    """`output_size=` gives the length up front: no break (measured on torch 2.13)."""
    return any(keyword.arg == "output_size" for keyword in call.keywords)


def _torch_function(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind | None:
    if len(args) < 2 or not args[1].is_tensor or _sized(call):
        return None
    checker.report(rule, call, MESSAGE, args[1])
    return TENSOR


def _tensor_method(rule: Rule, checker: Checker, call: ast.Call, method: str, receiver: Kind, args: list[Kind]) -> Kind | None:
    if not args or not args[0].is_tensor or _sized(call):
        return None
    checker.report(rule, call, MESSAGE, args[0])
    return receiver


RULE = Rule(
    code="GM503",
    name="data-dependent-repeat",
    family="data-dependent shape",
    gb_id="GB0036",
    summary="Flags `repeat_interleave` with tensor repeats.",
    why="The output length is the sum of the repeats, a value known only at run time.",
    example="y = x.repeat_interleave(counts)",
    use_instead="y = x.repeat_interleave(counts, output_size=total)  # when the total is static",
    fix_safety=(
        "No rewrite of the repeat. Unsafe fix, offered for a break on every call of a plain module-level helper: "
        "`@torch.compiler.disable` runs the helper eagerly (its caller still breaks at the call; the helper's "
        "own frame and fragment graph go). It assumes the helper's tensor work is not worth compiling. The "
        "break moves, it is not removed: `--fix` reports it as moved, never as fixed, and the next check reports each call of the helper (GM620)."
    ),
    fixes=("shapes.run_eagerly",),
    detection=Detection(
        torch_functions={"repeat_interleave": _torch_function},
        tensor_methods={"repeat_interleave": _tensor_method},
    ),
    advice="Pass `output_size=` to `{code}` when the total is known, so the shape is static",
)
