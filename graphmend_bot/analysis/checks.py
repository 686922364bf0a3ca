"""Which rule looks at which construct: the dispatch tables of the one ast traversal.

Built once from the rules' `Detection`s (rules/detect.py). Each key belongs to one rule; a
second claim is a programming error caught at import, so no rule depends on another's order.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from graphmend_bot.rules import RULES, Conversion, Detection, Rule
from graphmend_bot.vocabulary.kind import Kind

K = TypeVar("K")
H = TypeVar("H")


def _table(
    part: Callable[[Detection], Mapping[K, Callable[..., H]]], rules: Sequence[Rule] = RULES
) -> dict[K, Callable[..., H]]:
    """Key -> the hook of the one rule that claimed it, with that rule bound as its first argument."""
    table: dict[K, Callable[..., H]] = {}
    owner: dict[K, str] = {}
    for rule in rules:
        for key, hook in part(rule.detection).items():
            if key in table:
                raise ValueError(f"{rule.code} and {owner[key]} both detect {key!r}")
            table[key], owner[key] = functools.partial(hook, rule), rule.code
    return table


def _hooks(part: Callable[[Detection], Callable[..., H] | None]) -> tuple[Callable[..., H], ...]:
    return tuple(functools.partial(hook, rule) for rule in RULES if (hook := part(rule.detection)) is not None)


# Bound hooks: a conversion hook takes (checker, test, kind); a call hook (checker, call, name,
# args) and returns the call's Kind or None; a method hook (checker, call, method, receiver, args);
# a subscript hook (checker, subscript, owner, key).
CONVERSIONS: dict[Conversion, Callable[..., None]] = _table(lambda d: d.conversions)
MODULE_FUNCTIONS: dict[tuple[str, str], Callable[..., Kind | None]] = _table(lambda d: d.module_functions)
CALLS: dict[str, Callable[..., Kind | None]] = {
    **{
        name: hook for name, hook in _table(lambda d: d.fallback_calls).items()
        if (name.partition(".")[0], name.rpartition(".")[2]) not in MODULE_FUNCTIONS
    },
    **_table(lambda d: d.calls),
}
MODULE_FUNCTION_MODULES = frozenset(module for module, _ in MODULE_FUNCTIONS)
TORCH_FUNCTIONS: dict[str, Callable[..., Kind | None]] = _table(lambda d: d.torch_functions)
TORCH_FUNCTION_LEAVES: dict[str, Callable[..., Kind | None]] = _table(lambda d: d.torch_function_leaves)
TENSOR_METHODS: dict[str, Callable[..., Kind | None]] = _table(lambda d: d.tensor_methods)
NDARRAY_METHODS: dict[str, Callable[..., Kind | None]] = _table(lambda d: d.ndarray_methods)
NDARRAY_ATTRIBUTES: dict[str, Callable[..., None]] = _table(lambda d: d.ndarray_attributes)
TENSOR_ATTRIBUTES: dict[str, Callable[..., None]] = _table(lambda d: d.tensor_attributes)
BUILTINS: dict[str, Callable[..., Kind | None]] = _table(lambda d: d.builtins)
LOGGER_CALLS: tuple[Callable[..., Kind | None], ...] = _hooks(lambda d: d.logger_call)
SLICE_BOUNDS: tuple[Callable[..., None], ...] = _hooks(lambda d: d.slice_bounds)
INDEXING: tuple[Callable[..., None], ...] = _hooks(lambda d: d.indexing)
INDEXED_STORES: tuple[Callable[..., None], ...] = _hooks(lambda d: d.indexed_store)
CALLED_SUBSCRIPTS: tuple[Callable[..., None], ...] = _hooks(lambda d: d.called_subscript)
ASSERTIONS: tuple[Callable[..., None], ...] = _hooks(lambda d: d.assertion)
LOCAL_OBJECT_CALLS: tuple[Callable[..., None], ...] = _hooks(lambda d: d.local_object_call)
INSTANCE_METHOD_CALLS: tuple[Callable[..., None], ...] = _hooks(lambda d: d.instance_method_call)
SUPER_INITS: tuple[Callable[..., None], ...] = _hooks(lambda d: d.super_init)
SUPER_REINITS: tuple[Callable[..., None], ...] = _hooks(lambda d: d.super_reinit)
DEPENDENCY_CALLS: tuple[Callable[..., None], ...] = _hooks(lambda d: d.dependency_call)
OBJECT_ASSERTIONS: tuple[Callable[..., None], ...] = _hooks(lambda d: d.object_assertion)
GENERATOR_ARGUMENT_CALLS: tuple[Callable[..., None], ...] = _hooks(lambda d: d.generator_argument_call)
HELD_OBJECT_CALLS: tuple[Callable[..., None], ...] = _hooks(lambda d: d.held_object_call)
GENERATOR_KEYWORDS: tuple[Callable[..., None], ...] = _hooks(lambda d: d.generator_keyword)
REQUIRES_GRAD_KEYWORDS: tuple[Callable[..., None], ...] = _hooks(lambda d: d.requires_grad_keyword)
METACLASS_CALLS: tuple[Callable[..., None], ...] = _hooks(lambda d: d.metaclass_call)
STR_METHODS: tuple[Callable[..., None], ...] = _hooks(lambda d: d.str_method)
SKIPPED_FRAME_COMPREHENSIONS: tuple[Callable[..., None], ...] = _hooks(lambda d: d.skipped_frame_comprehension)
ITERATED: tuple[Callable[..., None], ...] = _hooks(lambda d: d.iterated)
SIZED: tuple[Callable[..., None], ...] = _hooks(lambda d: d.sized)
CONTAINED: tuple[Callable[..., None], ...] = _hooks(lambda d: d.contained)
CLASS_STATEMENTS: tuple[Callable[..., None], ...] = _hooks(lambda d: d.class_statement)
CAUGHT_EXCEPTION_WRITES: tuple[Callable[..., None], ...] = _hooks(lambda d: d.caught_exception_write)
CLASS_CALLS: tuple[Callable[..., None], ...] = _hooks(lambda d: d.class_call)
AUTOGRAD_APPLIES: tuple[Callable[..., None], ...] = _hooks(lambda d: d.autograd_apply)
AUTOGRAD_CONTEXT_CALLS: tuple[Callable[..., None], ...] = _hooks(lambda d: d.autograd_context_call)
VARARG_AUTOGRAD_FORWARDS: tuple[Callable[..., None], ...] = _hooks(lambda d: d.vararg_autograd_forward)
TORCH_FUNCTION_OVERRIDES: tuple[Callable[..., None], ...] = _hooks(lambda d: d.torch_function_override)
ENTERED_VALUES: tuple[Callable[..., None], ...] = _hooks(lambda d: d.entered_value)
ENTERED_CALLS: tuple[Callable[..., None], ...] = _hooks(lambda d: d.entered_call)
BUILT_MANAGERS: tuple[Callable[..., None], ...] = _hooks(lambda d: d.built_manager)
MANAGER_BODIES: tuple[Callable[..., None], ...] = _hooks(lambda d: d.manager_body)
BREAKING_TRIES: tuple[Callable[..., None], ...] = _hooks(lambda d: d.breaking_try)
BREAKING_READS: tuple[Callable[..., None], ...] = _hooks(lambda d: d.breaking_read)
BREAKING_DUNDERS: tuple[Callable[..., None], ...] = _hooks(lambda d: d.breaking_dunder)
SUPER_METHOD_CALLS: tuple[Callable[..., None], ...] = _hooks(lambda d: d.super_method_call)
SUPER_READS: tuple[Callable[..., None], ...] = _hooks(lambda d: d.super_read)
OBJECT_OPERANDS: tuple[Callable[..., None], ...] = _hooks(lambda d: d.object_operand)
MEMBERSHIPS: tuple[Callable[..., None], ...] = _hooks(lambda d: d.membership)
COMPARISONS: tuple[Callable[..., None], ...] = _hooks(lambda d: d.comparison)
OPERATORS: tuple[Callable[..., None], ...] = _hooks(lambda d: d.operator)
SUBSCRIPTED_RECEIVERS: tuple[Callable[..., None], ...] = _hooks(lambda d: d.subscripted_receiver)
GUARDED_CLASS_CALLS: tuple[Callable[..., None], ...] = _hooks(lambda d: d.guarded_class_call)
SUBSCRIPTED_NAMES: dict[str, Callable[..., None]] = _table(lambda d: d.subscripted_names)
GLOBAL_STORES: tuple[Callable[..., None], ...] = _hooks(lambda d: d.global_store)
DICT_VIEW_COMPREHENSION_CALLS: tuple[Callable[..., None], ...] = _hooks(lambda d: d.dict_view_comprehension_call)
SORT_KEYS: tuple[Callable[..., None], ...] = _hooks(lambda d: d.sort_key)
THIRD_PARTY_CALLS: tuple[Callable[..., None], ...] = _hooks(lambda d: d.third_party_call)
STDLIB_METHOD_CALLS: tuple[Callable[..., None], ...] = _hooks(lambda d: d.stdlib_method_call)
ATTRIBUTE_WRITES: dict[str, Callable[..., None]] = _table(lambda d: d.attribute_writes)
ATTRIBUTE_READS: dict[str, Callable[..., None]] = _table(lambda d: d.attribute_reads)

def contained(checker: Any, node: ast.expr) -> None:
    """`k in NODE`: the `contained` hooks see the container (GM678)."""
    for check in CONTAINED:
        check(checker, node)


# Builtins that iterate their first argument, each measured to break on a held `values()` view
# (GB0811, tests/test_held_dict_views.py): the `iterated` hooks see that argument, as they see a
# `for`'s iterable; the builtin's own hook (GM106's `any`, GM627's `max`) runs after them.
ITERATING_BUILTINS = ("list", "tuple", "sorted", "set", "frozenset", "dict", "sum", "max", "min", "any", "all")


# `len(x)` and `bool(x)` ask the object for its size: the `sized` hooks see `x` (GM677).
SIZING_BUILTINS = ("len", "bool")


def _iterating(
    hook: Callable[..., Kind | None] | None, hooks: tuple[Callable[..., None], ...]
) -> Callable[..., Kind | None]:
    def run(checker: Any, call: ast.Call, name: str, args: list[Kind]) -> Kind | None:
        if call.args and (len(call.args) == 1 or name == "sum") and not isinstance(call.args[0], ast.Starred):
            for check in hooks:
                check(checker, call.args[0])
        return hook(checker, call, name, args) if hook is not None else None

    return run


for _names, _argument_hooks in ((ITERATING_BUILTINS, ITERATED), (SIZING_BUILTINS, SIZED)):
    if _argument_hooks:
        BUILTINS.update({name: _iterating(BUILTINS.get(name), _argument_hooks) for name in _names})
