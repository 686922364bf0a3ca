"""What one item of an iterated value is, where the iterated expression says more than its kind.

A local dict's keys are names, not its values. An optimizer's parameter group's "params" are
its tensors: `torch.optim.Optimizer.param_groups` is a list of dicts whose "params" entry lists
the parameters (torch/optim/optimizer.py, `add_param_group`), so in

    for group in self.param_groups:
        for p in group["params"]:

`p` is a tensor though `group` is a dict the analysis knows nothing of: optimizers' steps
(`p.grad`, `state["exp_avg"]`) are read through it. So is a method's parameter named as torch's
optimizers name the group they hand a helper (`def _init_group(self, group): for p in
group["params"]:`), whoever the analysis finds calling it.
"""

from __future__ import annotations

import ast
from typing import Any

from graphmend_bot.analysis.tensor_sequences import iterates_tensors
from graphmend_bot.vocabulary.kind import NOT_TENSOR, TENSOR, Kind

_GROUPS = "param_groups"
# An optimizer's parameter: a tensor, and one from outside the compiled region (it has a source:
# `p.data = ...` on it traces, GM630), which the pseudo-parameter says; no function has it.
GROUP_PARAMETER = Kind(always=True, params=frozenset({"param_groups[params]"}))
_PARAMS = "params"


def item_kind(evaluator: Any, node: ast.expr, kind: Kind) -> Kind:
    """The kind of an item of `for ... in node`, `node` of kind `kind`, in `evaluator`'s function."""
    if _iterates_dict_keys(node, evaluator._dicts):
        return NOT_TENSOR
    if type(node) is ast.Subscript and _is_params_key(node.slice) and (
            _is_group(node.value, evaluator.node) or _group_parameter(evaluator, node.value)):
        return GROUP_PARAMETER
    if type(node) is ast.Name and kind == Kind.of_param(node.id) and iterates_tensors(evaluator.node, node.id):
        return TENSOR  # `for x_ in x` of `x: List[Tensor]` as passed (tensor_sequences.py)
    return kind


# Builtins whose items are the items of their one iterable argument, in another order or container.
# (`sorted` of tensors compares them, which breaks by itself: GB0207, left to its own rule.)
_SAME_ITEMS = frozenset({"reversed", "list", "tuple", "iter"})
# nn.Module's iterators over its tensors, and those over (name, tensor) pairs.
_MODULE_TENSORS = frozenset({"parameters", "buffers"})
_NAMED_MODULE_TENSORS = frozenset({"named_parameters", "named_buffers"})


def wrapper_items(evaluator: Any, node: ast.Call, env: Any) -> tuple[Kind, tuple[Kind, ...] | None] | None:
    """The item kind (and elements) of iterating a call that says what its items are, None for
    others: `enumerate(xs)` pairs an int with an item of `xs`, `zip(xs, ys)` an item of each,
    `reversed(xs)` / `list(xs)` / `iter(xs)` are items of `xs` (torchcrf's
    `for hist in reversed(history)`), and `m.buffers()`, `m.parameters()` (`m.named_buffers()`: a
    name beside each) yield tensors whatever `m` is known to be (torchcde's `for buffer in
    X.buffers()`). Measured on torch 2.13: tests/test_iterated_wrappers.py."""
    func = node.func
    if type(func) is ast.Attribute:
        if node.args:
            return None
        if func.attr in _MODULE_TENSORS:
            evaluator.expr(node, env)  # the call's own hooks
            return TENSOR, None
        if func.attr in _NAMED_MODULE_TENSORS:
            evaluator.expr(node, env)
            return TENSOR, (NOT_TENSOR, TENSOR)
        return None
    if type(func) is not ast.Name:
        return None
    if node.keywords:
        return None
    name = evaluator.builtin_of(func)
    if name == "enumerate" and len(node.args) == 1:
        item, _ = evaluator._iteration(node.args[0], env)
        return item, (NOT_TENSOR, item)
    if name == "zip" and node.args:
        items = tuple(evaluator._iteration(arg, env)[0] for arg in node.args)
        return Kind.union(items), items
    if name in _SAME_ITEMS and len(node.args) == 1:
        return evaluator._iteration(node.args[0], env)
    return None


def _iterates_dict_keys(node: ast.expr, dicts: set[str]) -> bool:
    """`for k in feats` / `feats.keys()` of a local dict: its keys (names), not its values."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "keys" and not node.args:
        node = node.func.value
    return isinstance(node, ast.Name) and node.id in dicts


def _is_params_key(key: ast.expr) -> bool:
    return type(key) is ast.Constant and key.value == _PARAMS


def _is_group(value: ast.expr, function: ast.AST) -> bool:
    """`opt.param_groups[0]`, or a name `function` binds by iterating `<x>.param_groups` (also
    under `enumerate`), in a loop or a comprehension. Asked only of `...["params"]` iterated, so
    the walk is rare."""
    if type(value) is ast.Subscript:
        return _is_groups(value.value)
    if type(value) is not ast.Name:
        return False
    return value.id in _group_names(function)


# The names torch's optimizers give a param group they are handed (`Adam._init_group(self, group,
# ...)`, `Optimizer.add_param_group(self, param_group)`), which optimizers written after them copy.
_GROUP_PARAMETERS = frozenset({"group", "param_group"})


def _group_parameter(evaluator: Any, value: ast.expr) -> bool:
    """`group` of a method `def _init_group(self, group, ...)`, as it was passed: a param group
    whose "params" are the optimizer's tensors, whatever the analysis knows its callers pass."""
    return (type(value) is ast.Name and value.id in _GROUP_PARAMETERS and evaluator.self_name is not None
            and value.id in evaluator.summary.params and value.id not in evaluator._rebound)


def _is_groups(node: ast.expr) -> bool:
    return type(node) is ast.Attribute and node.attr == _GROUPS


def _group_names(function: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(function):
        if not isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            continue
        target, iterated = node.target, node.iter
        if (type(iterated) is ast.Call and type(iterated.func) is ast.Name and iterated.func.id == "enumerate"
                and len(iterated.args) == 1 and type(target) is ast.Tuple and len(target.elts) == 2):
            target, iterated = target.elts[1], iterated.args[0]
        if _is_groups(iterated) and type(target) is ast.Name:
            names.add(target.id)
    return names
