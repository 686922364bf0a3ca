"""What each name of `a, b = value` holds, where the value says more than its kind.

A parameter annotated as a sequence of tensors (`params: Sequence[Tensor]`, tensor_sequences.py)
holds tensors whatever callers pass: `xs[0]` and `for x_ in xs` already read the annotation, and
so does unpacking it as it was passed (`mean, log_scale = params`, `*rest, ref = xs`): a caller
handing on what a module the analysis does not know returned (`self._params_fn(x)`, built from a
factory an `__init__` was given) left each name unknown, and its `.tolist()` or `if v > 0:`
unreported. A parameter annotated as a mapping of tensors (`feats: Dict[str, Tensor]`) unpacks
to its keys, names (`key, = feats`), whatever tensors callers put in its values.

`einops.pack(tensors, pattern)` returns `(packed, packed_shapes)`: a tensor of the type of the
items it was given and a list of shapes (einops/packing.py); `packed, ps = pack([t], "* d")` binds
a tensor and Python ints. (`unpack` returns a list of tensors: PASSED_THROUGH in known_names
gives both calls the kind of their first argument.)

Measured on torch 2.13: tests/test_unpacked_values.py.
"""

from __future__ import annotations

import ast
from typing import Any

from graphmend_bot.analysis.parameter_annotations import tensor_mapping_annotation
from graphmend_bot.analysis.tensor_sequences import iterates_tensors
from graphmend_bot.vocabulary.kind import NOT_TENSOR, TENSOR, Kind

_PACKS = frozenset({"einops.pack", "einops.packing.pack"})


def unpacked(evaluator: Any, node: ast.Assign, kind: Kind) -> tuple[Kind, tuple[Kind, ...] | None]:
    """The kind and elements to bind `node`'s targets with, for `kind`, the value's (asked only of
    an assignment to a tuple or list whose elements no display or call site tells)."""
    value = node.value
    if type(value) is ast.Name:
        name = value.id
        if name in evaluator._tensor_mappings and kind == Kind.of_param(name):  # as passed
            if iterates_tensors(evaluator.node, name):
                return TENSOR, None  # `mean, log_scale = params` of `params: Sequence[Tensor]`
            if _mapping_only(evaluator.node, name):
                return NOT_TENSOR, None  # `key, = feats` of `feats: Dict[str, Tensor]`: its keys
        return kind, None
    if type(value) is ast.Call and evaluator.resolve(value.func) in _PACKS:
        return kind, (kind, NOT_TENSOR)  # `packed, ps = pack([t], pattern)`
    return kind, None


def unpacks(node: ast.Assign) -> bool:
    """Whether every target of `node` is a tuple or list (`a, b = v`, `[a] = v`)."""
    return all(type(target) in (ast.Tuple, ast.List) for target in node.targets)


def _mapping_only(function: ast.AST, name: str) -> bool:
    """Parameter `name` of `function` is annotated a mapping of tensors, optional, and nothing else
    (`Dict[str, Tensor] | Tensor` may be a tensor, which unpacks to its rows)."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    args = function.args
    annotation = next(
        (a.annotation for a in (*args.posonlyargs, *args.args, *args.kwonlyargs) if a.arg == name), None
    )
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return False
    pending, mappings = [annotation], 0
    while pending:
        alternative = pending.pop()
        if isinstance(alternative, ast.BinOp) and isinstance(alternative.op, ast.BitOr):
            pending += [alternative.left, alternative.right]
        elif isinstance(alternative, ast.Constant) and alternative.value is None:
            continue
        elif alternative is not None and tensor_mapping_annotation(alternative):
            mappings += 1  # `Dict[str, Tensor]`, `Optional[Dict[str, Tensor]]`
        else:
            return False
    return mappings > 0
