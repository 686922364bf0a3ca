"""GM502 boolean-mask-indexing: its documentation, in one place with how it is detected and fixed."""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import Kind

_MESSAGE = "Indexing with a boolean mask gives a shape that depends on tensor values"


def _mask_index(rule: Rule, checker: Checker, subscript: ast.Subscript, owner: Kind, key: Kind) -> None:
    if not owner.is_tensor:
        return
    if key.boolean:
        checker.report(rule, subscript, _MESSAGE, owner | key, gb_id=_ZERO_D_MASK if _zero_d(checker, subscript.slice) else None)
    else:  # a mask a helper returns or an attribute holds: the scope solver decides
        checker.report_if_masks(rule, subscript, _MESSAGE, owner | key, key)


# A 0-d mask (`x[t.sum() > 0]`) is read back as a Python bool first: measured on torch 2.13,
# "Data dependent operator" (aten._local_scalar_dense), not the nonzero of a mask of higher rank.
_ZERO_D_MASK = "GB0033"


def _zero_d(checker: Checker, key: ast.expr) -> bool:
    """`t.sum() > 0`, `n == 0` with a 0-d `n`: a comparison of 0-d tensors and Python numbers."""
    if not (isinstance(key, ast.Compare) and len(key.ops) == 1):
        return False
    sides = (key.left, key.comparators[0])
    return any(checker.is_scalar_tensor(side) for side in sides) and all(
        checker.is_scalar_tensor(side) or (isinstance(side, ast.Constant) and isinstance(side.value, (int, float)))
        for side in sides
    )


RULE = Rule(
    code="GM502",
    name="boolean-mask-indexing",
    family="data-dependent shape",
    gb_id="GB0036",
    other_gb_ids=(_ZERO_D_MASK,),  # a 0-d mask
    summary=(
        "Flags indexing a tensor with a boolean mask, `x[mask]`: a comparison, a predicate (`isnan`, "
        "`all(dim)`, `any(dim)`), `&`, `|`, `^` or `~` of masks, a tensor made with `dtype=torch.bool` "
        "or converted by `.bool()`/`.to(torch.bool)`, `torch.tensor` of bool constants, a `BoolTensor` parameter, a mask "
        "padded, flipped, rolled, reshaped, copied or moved (`F.pad(x.diff() != 0, [0, 1], value=1.0)`, `m.flip(0)`, "
        "`m.view(-1)`, `m.cpu()`, and `m.numpy()`, a bool array indexing an array: `a[(x > 0).numpy()]`), a mask "
        "reduced along a dim (`m.amax(-1)`, the values of `m.max(-1)`: `.values`, `[0]`, the first name unpacked; "
        "not its indices); also a mask made elsewhere: "
        "what a helper or method returns when every `return` of it gives a mask (`x[positive(x)]`; the values "
        "when every `return` is `mask.max(dim)`: `valid, idx = first_nonzero(m)` then `idx[valid]`), or an "
        "attribute or buffer every write of which stores one (`self.register_buffer(\"keep\", x > 0)`, then "
        "`x[self.keep]`). Assigning through a mask, `x[mask] = v`, is index_put and does not break."
    ),
    why="The result's length is the number of True values, known only at run time.",
    example="y = x[x > 0]",
    use_instead="y = torch.where(x > 0, x, 0)  # same shape; or reduce with a masked sum",
    fix_safety=(
        "No rewrite of the indexing. Unsafe fix, offered for a break on every call of a plain module-level helper: "
        "`@torch.compiler.disable` runs the helper eagerly (its caller still breaks at the call; the helper's "
        "own frame and fragment graph go). It assumes the helper's tensor work is not worth compiling. The "
        "break moves, it is not removed: `--fix` reports it as moved, never as fixed, and the next check reports each call of the helper (GM620)."
    ),
    fixes=("shapes.run_eagerly",),
    detection=Detection(indexing=_mask_index),
    advice=(
        "`{code}` keeps only the selected entries, so its shape depends on tensor values: when what "
        "follows only combines elementwise or reduces, keep the full shape with `torch.where(mask, x, 0)` "
        "and a masked reduction; when it needs the filtered entries (an edge list, a gather), leave it "
        "(`torch.cond` cannot return branches of different shapes) or set "
        "`torch._dynamo.config.capture_dynamic_output_shape_ops = True`"
    ),
)
