"""GM618 sort-by-tensor-key: its documentation, in one place with how it is detected.

Measured on torch 2.13 (tests/coverage_probes/gb0207_sort_by_tensor_key.py): `sorted(items,
key=...)` and `items.sort(key=...)` break with GB0207 when the key returns a tensor for an element
(variables/lists.py: every key must be a Python constant): `key=lambda t: t.norm()`,
`key=lambda i: scores[i]`, `key=torch.norm`, `key=scores.get`; and with no key when an element is a
tensor or holds one (`sorted(totals)`, `sorted((t.sum(), i) for ...)`: a tuple holding one is no constant;
tests/coverage_probes/gb0207_sorted_tensors.py), also pairs of `zip(scores, names)` of locals, whichever
element holds the tensor (tests/fixtures/rules/GM618_sort_by_tensor_key.py). A key that returns a size (`t.shape[0]`, `t.numel()`) sorts while
tracing, and so does a torch function's that gives one (`key=torch.numel`). Only a key whose body
computes the tensor is reported: `key=lambda pair: pair[1]` picks a part of an element, which the
analysis cannot tell from the others (`pair[0]` may be a name); but sorting a dict's `items()` by
`kv[1]`, `-kv[1]` or `operator.itemgetter(1)` picks its values, and `key=abs` gives a tensor for a
tensor (tests/fixtures/rules/GM618_sort_by_tensor_key.py, measured).
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary import known_names as V
from graphmend_bot.vocabulary.kind import Kind
from graphmend_bot.vocabulary.sort_keys import picks_dict_value


def _sort_key(rule: Rule, checker: Checker, call: ast.Call, key: ast.expr | None, kind: Kind) -> None:
    # Left out: a key that is a tensor only because an entry point's unannotated parameter is
    # assumed to be one (a list of names sorted by a rank, in practice).
    if not kind.is_tensor or checker.assumed_tensor(kind):
        return
    if isinstance(key, ast.Lambda) and not (
        _computes_tensor(key.body, key.args.args[0].arg) or picks_dict_value(call, key)
    ):
        return
    sort = "sorted" if isinstance(call.func, ast.Name) else "list.sort"
    if key is None:
        message = f"`{sort}` of tensors compares their values: Dynamo sorts only Python constants"
    else:
        message = f"`{sort}` with a key that returns a tensor breaks the graph"
    checker.report(rule, call, message, kind)


def _computes_tensor(body: ast.expr, param: str) -> bool:
    """The key's value is made by a tensor operation, not a part of the element picked out
    (`kv[1]`), whose kind is the whole element's."""
    if isinstance(body, ast.UnaryOp):
        return _computes_tensor(body.operand, param)
    if isinstance(body, ast.BinOp):
        return _computes_tensor(body.left, param) or _computes_tensor(body.right, param)
    if isinstance(body, ast.Call):
        # `kv[0].split(".")` is a str's method on a part of the element; `t.norm()` only a tensor has
        func = body.func
        if isinstance(func, ast.Attribute) and _rooted_at(func.value, param):
            return func.attr in V.TENSOR_METHODS
        return True
    if isinstance(body, ast.Subscript):
        return not _rooted_at(body.value, param)  # `scores[i]`, not `pair[0]`
    return False


def _rooted_at(node: ast.expr, param: str) -> bool:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return isinstance(node, ast.Name) and node.id == param


RULE = Rule(
    code="GM618",
    name="sort-by-tensor-key",
    family="not traceable",
    gb_id="GB0207",
    summary=(
        "Flags `sorted(items, key=lambda item: ...)` and `items.sort(key=lambda item: ...)` in "
        "traced code whose key computes a tensor (`t.norm()`, `scores[i]`), a key that is a torch "
        "function, `abs` or a mapping's lookup of tensors (`key=torch.norm`, `key=scores.get`), a "
        "dict's items sorted by value (`sorted(scores.items(), key=lambda kv: kv[1])`), and a sort "
        "with no key of a list, tuple or generator of tensors (`sorted([a.sum(), b.sum()])`, "
        "`totals.sort()`), of a dict's items or values (`sorted(feats.items())`) or of `zip` of "
        "locals one of which holds tensors (`sorted(zip(scores, names))`), which compares the "
        "tensors themselves."
    ),
    why=(
        "TorchDynamo sorts a list while tracing only when every key is a Python constant: it "
        "cannot order tensors whose values it does not know, so a key that returns a tensor ends "
        "the graph (GB0207, \"sort with non-constant keys\", measured on torch 2.13) and the sort "
        "runs eagerly. Keys that are sizes (`t.shape[0]`) sort."
    ),
    example=(
        "ranked = sorted(candidates, key=lambda t: t.norm())\n"
        "y = ranked[0] * 2"
    ),
    use_instead=(
        "stacked = torch.stack(candidates)  # candidates of one shape\n"
        "ranked = stacked[torch.argsort(stacked.flatten(1).norm(dim=1))]  # sorted inside the graph\n"
        "y = ranked[0] * 2"
    ),
    fix_safety=(
        "No automatic fix: compute the keys as one tensor and order with `torch.argsort` or "
        "`torch.sort` (then gather), or sort outside the compiled function."
    ),
    detection=Detection(sort_key=_sort_key),
    advice=("`{code}` sorts by tensor keys while tracing: stack the keys and use `torch.argsort`, or sort "
            "outside the compiled function"),
)
