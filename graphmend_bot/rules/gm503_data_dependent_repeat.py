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


def _repeats_only(call: ast.Call) -> bool:
    """`torch.repeat_interleave(counts)`: one tensor, the repeats, repeating its own indices."""
    return not any(keyword.arg in ("repeats", "dim") for keyword in call.keywords)


def _torch_function(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind | None:
    repeats = args[1] if len(args) >= 2 else args[0] if len(args) == 1 and _repeats_only(call) else None
    if repeats is None or not repeats.is_tensor or _sized(call):
        return None
    checker.report(rule, call, MESSAGE, repeats)
    return TENSOR


def _tensor_method(rule: Rule, checker: Checker, call: ast.Call, method: str, receiver: Kind, args: list[Kind]) -> Kind | None:
    repeats = args[0] if args else receiver if not call.keywords else None  # `counts.repeat_interleave()`
    if repeats is None or not repeats.is_tensor or _sized(call):
        return None
    checker.report(rule, call, MESSAGE, repeats)
    return receiver


RULE = Rule(
    code="GM503",
    name="data-dependent-repeat",
    family="data-dependent shape",
    gb_id="GB0036",
    summary=(
        "Flags `repeat_interleave` with tensor repeats, including the one-argument form "
        "`torch.repeat_interleave(counts)` that repeats each index `counts[i]` times."
    ),
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
