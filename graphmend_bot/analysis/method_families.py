"""What `obj.name(...)` runs when nothing says what `obj` is: the tree's own family of `name`.

A library hands its own objects around without saying their class: linear_operator's
`linear_op.cholesky()._cholesky_solve(rhs)` on a parameter, `self.base_linear_op._diagonal()` on
an attribute `__init__` copied from a parameter, nflows' `self._distribution.log_prob(x)`. Dynamo
traces the method of whatever object arrives (measured on torch 2.13: linear_operator's solves
enter `DenseLinearOperator._cholesky_solve` through such a call). When exactly one class of the
tree defines `name` and every other class defining it is a subclass of that one (a method and its
overrides: `LinearOperator._cholesky_solve` and each operator's), the object is of that family,
and the call may run the method or any override.

Left out, since the object may well be someone else's:
- a name two unrelated classes of the tree define (no one family says which);
- a name a tensor, an nn.Module, an optimizer or a builtin container also has (`obj.to(...)`,
  `obj.update(d)`, `opt.step()`), and dunders (operators and calls are resolved elsewhere);
- an object built by a callable of another package (`opt = torch.optim.SGD(...)`, `self.d =
  Normal(...)`) or by a builtin, and one whose class an annotation names (resolved as annotated).
"""

from __future__ import annotations

import builtins
from collections.abc import Callable

from graphmend_bot.vocabulary.known_names import TENSOR_API

ClassId = tuple[str, str]

# dir(torch.nn.Module) on torch 2.13 without dunders (tests/test_scope_families.py keeps it in step)
MODULE_API = frozenset({
    "T_destination", "_apply", "_call_impl", "_compiled_call_impl", "_get_backward_hooks",
    "_get_backward_pre_hooks", "_get_name", "_load_from_state_dict", "_maybe_warn_non_full_backward_hook",
    "_named_members", "_register_load_state_dict_pre_hook", "_register_state_dict_hook",
    "_replicate_for_data_parallel", "_save_to_state_dict", "_slow_forward", "_version", "_wrapped_call_impl",
    "add_module", "apply", "bfloat16", "buffers", "call_super_init", "children", "compile", "cpu", "cuda",
    "double", "dump_patches", "eval", "extra_repr", "float", "forward", "get_buffer", "get_extra_state",
    "get_parameter", "get_submodule", "half", "ipu", "load_state_dict", "modules", "mtia", "named_buffers",
    "named_children", "named_modules", "named_parameters", "parameters", "register_backward_hook",
    "register_buffer", "register_forward_hook", "register_forward_pre_hook", "register_full_backward_hook",
    "register_full_backward_pre_hook", "register_load_state_dict_post_hook", "register_load_state_dict_pre_hook",
    "register_module", "register_parameter", "register_state_dict_post_hook", "register_state_dict_pre_hook",
    "requires_grad_", "set_extra_state", "set_submodule", "share_memory", "state_dict", "to", "to_empty",
    "train", "type", "xpu", "zero_grad",
})  # fmt: skip
# What a library most often holds of torch's besides tensors and modules: an optimizer or a scheduler.
OPTIMIZER_API = frozenset({"step", "zero_grad", "add_param_group", "state_dict", "load_state_dict", "get_last_lr"})
_BUILTIN_API = frozenset(name for kind in (dict, list, set, str, tuple, object) for name in dir(kind))
_BUILTIN_NAMES = frozenset(dir(builtins))
SHARED_NAMES = TENSOR_API | MODULE_API | OPTIMIZER_API | _BUILTIN_API


class MethodFamilies:
    """The tree's classes by the methods they define, asked by name (memoised per name)."""

    def __init__(self, classes: dict[str, list[ClassId]], descendants: Callable[[ClassId], tuple[ClassId, ...]]) -> None:
        self._definers = classes  # method name -> the classes of the tree whose body defines it
        self._descendants = descendants
        self._heads: dict[str, ClassId | None] = {}

    def head(self, name: str) -> ClassId | None:
        """The class whose `name` every other definer overrides, or None when there is no one such
        class (or the name is one others' objects share)."""
        if name not in self._heads:
            self._heads[name] = None if name in SHARED_NAMES or name.startswith("__") else self._find_head(name)
        return self._heads[name]

    def _find_head(self, name: str) -> ClassId | None:
        definers = self._definers.get(name, [])
        for candidate in definers:
            below = set(self._descendants(candidate))
            if all(other == candidate or other in below for other in definers):
                return candidate
        return None


def unknown_receiver(constructor: str, imports: dict[str, str], in_tree: Callable[[str], bool]) -> bool:
    """Whether the instance-site constructor `constructor` leaves the object's class unknown,
    rather than naming another package's callable or an annotated class: `dotted:op.cholesky`
    (a method of a parameter), `attr:inner` (an attribute nothing of the tree builds), not
    `dotted:torch.optim.SGD`, `name:Normal` (imported from torch), `name:dict`."""
    kind, _, name = constructor.partition(":")
    if kind == "attr":
        return True  # the caller checks that nothing of the tree builds the attribute
    if kind not in ("dotted", "name"):
        return False  # `typed:`, `member:`, `result:`: an annotation says the class
    head = name.split(".", 1)[0]
    if head in _BUILTIN_NAMES:
        return False
    imported = imports.get(head)
    return imported is None or in_tree(imported)

