"""Sorts in traced code: what `sorted(...)` / `.sort(...)` / a keyless sort of tensors compares.

Dynamo compares what a sort's key gives while tracing: a tensor there breaks (GM618's hooks,
`checks.SORT_KEYS`). The kind of what is compared comes from the key: the element itself, a
`key=lambda` body, a torch function, or a mapping's lookup.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import cast

from graphmend_bot.analysis import checks as C
from graphmend_bot.analysis import skipped_frames
from graphmend_bot.analysis.function_objects import ObjectTracker
from graphmend_bot.analysis.function_state import Env
from graphmend_bot.vocabulary import known_names as V
from graphmend_bot.vocabulary.kind import NOT_TENSOR, Kind
from graphmend_bot.vocabulary.sort_keys import picks_dict_value


class SortChecker(ObjectTracker):
    def _check_sort(self, node: ast.Call, args: list[Kind], env: Env) -> None:
        """A sort's key, checked with the kind of what it sorts: `items.sort(...)` sorts the local
        list `items`, `sorted(items, ...)` its argument."""
        func = node.func
        if isinstance(func, ast.Name):  # `sorted(...)`, or an alias of builtins.sorted: asked before the builtin
            if len(node.args) != 1 or (func.id != "sorted" and self.resolve(func) != "builtins.sorted"):
                return
        elif not (isinstance(func, ast.Attribute) and func.attr == "sort"):
            return  # most calls: no sort, and no need to ask which builtin a name is
        sort_key = _sort_key(node, self.builtin_of)
        if sort_key is None:
            return
        items = env.get(cast(ast.Name, func.value).id, NOT_TENSOR) if isinstance(func, ast.Attribute) else args[0]
        if (view := self._dict_view(node.args[0] if node.args else None)) is not None:
            items = env.get(view, NOT_TENSOR)  # `sorted(feats.items())`: pairs holding its values
        elif (zipped := self._zipped_locals(node.args[0] if node.args else None)) is not None:
            items = Kind.union(env.get(name, NOT_TENSOR) for name in zipped)  # pairs holding their items
        if sort_key is not _NO_KEY:
            self._check_sort_key(node, sort_key, items, env)
        elif self._sorts_a_sequence(node):  # not `x.sort()` on a tensor, which traces
            self._check_sort_key(node, None, items, env)

    def _check_sort_key(self, node: ast.Call, key: ast.expr | None, items: Kind, env: Env) -> None:
        """What a sort compares, as Dynamo computes it while tracing: each element itself (no key),
        what a `key=lambda` body gives with its parameter bound to an element of what is sorted
        (`items`, the kind of the whole), or what a torch function (`key=torch.norm`) or a
        mapping's lookup (`key=scores.get`) gives for one."""
        if key is None:
            kind = items.without_flags()
        elif isinstance(key, ast.Lambda):
            inner = dict(env)
            inner[key.args.args[0].arg] = items.without_flags()
            kind = self.expr(key.body, inner)
        elif (resolved := self.resolve(key) or "").startswith("torch.") or (
            isinstance(key, ast.Name) and self.builtin_of(key) == "abs"  # `abs(t)` is a tensor
        ):
            if resolved.removeprefix("torch.") in V.TORCH_NON_TENSOR_FUNCS:
                return  # `key=torch.numel`: a Python number, which sorts (measured)
            kind = items.without_flags()
        elif isinstance(key, ast.Attribute) and key.attr in _LOOKUPS and isinstance(key.value, ast.Name):
            kind = env.get(key.value.id, NOT_TENSOR).without_flags()
        elif isinstance(key, ast.Call) and self.resolve(key.func) == "operator.itemgetter" and picks_dict_value(node, key):
            kind = items.without_flags()  # `sorted(d.items(), key=itemgetter(1))`: by the values
        else:
            return  # a function of the tree, `len`, `str.lower`: what it returns is not known here
        for check_sort_key in C.SORT_KEYS:
            check_sort_key(self, node, key, kind)

    def _dict_view(self, node: ast.expr | None) -> str | None:
        """`feats.items()` / `feats.values()` of a local dict: its name."""
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("items", "values")
                and not node.args and isinstance(node.func.value, ast.Name) and node.func.value.id in self._collections):
            return node.func.value.id
        return None

    def _zipped_locals(self, node: ast.expr | None) -> list[str] | None:
        """`zip(scores, names)` of locals: their names. Dynamo compares the pairs whole, and a pair
        holding a tensor is no constant, whichever element comes first (measured on torch 2.13:
        tests/fixtures/rules/GM618_sort_by_tensor_key.py)."""
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and self.builtin_of(node.func) == "zip"
                and node.args and not node.keywords):
            return None
        names = [arg.id for arg in node.args if isinstance(arg, ast.Name)]
        return names if len(names) == len(node.args) else None

    def _sorts_a_sequence(self, call: ast.Call) -> bool:
        """What a keyless sort orders is a list, tuple or generator, not a tensor (`sorted(t)`
        breaks otherwise, `t.sort()` traces): a local bound to a list, a display, a comprehension,
        or `list(...)`/`tuple(...)`."""
        func = call.func
        if isinstance(func, ast.Attribute):
            return isinstance(func.value, ast.Name) and func.value.id in self._collections and func.value.id not in self._dicts
        items = call.args[0]
        if isinstance(items, ast.Name):
            return items.id in self._collections and items.id not in self._dicts  # a dict's keys are names
        if self._dict_view(items) is not None or self._zipped_locals(items) is not None:
            return True
        return isinstance(items, (ast.Tuple, ast.GeneratorExp)) or skipped_frames.builds_collection(
            items, True, self.builtin_of)


_NO_KEY = ast.Constant(None)  # `sorted(items)`: the elements are compared themselves
_LOOKUPS = frozenset({"get", "__getitem__"})  # `key=scores.get`: the mapping's values are the keys


def _sort_key(call: ast.Call, builtin: Callable[[ast.expr], str | None]) -> ast.expr | None:
    """The key of `sorted(items, ...)` or `items.sort(...)`: `_NO_KEY` when there is none (or
    `key=None`), else a one-parameter `key=lambda` or another expression; None for no such sort."""
    func = call.func
    sorts = (
        isinstance(func, ast.Name) and builtin(func) == "sorted" and len(call.args) == 1
    ) or (isinstance(func, ast.Attribute) and func.attr == "sort" and isinstance(func.value, ast.Name) and not call.args)
    if not sorts or any(keyword.arg is None for keyword in call.keywords):
        return None  # `**options`: the key is not written here
    key = next((keyword.value for keyword in call.keywords if keyword.arg == "key"), None)
    if key is None or (isinstance(key, ast.Constant) and key.value is None):
        return _NO_KEY
    if isinstance(key, ast.Lambda) and (len(key.args.args) != 1 or key.args.kwonlyargs):
        return None
    return key

