"""Locals that hold a tensor in one mode only: the mode reaches a test through a variable.

    skip_the_layer = False
    if self.training and self.config.layerdrop > 0.0:
        skip_the_layer = torch.rand([]) < self.config.layerdrop
    if not skip_the_layer or synced_gpus:   # a tensor test in training mode only

Outside training `skip_the_layer` is the Python `False` and Dynamo does not break on the `if`
(measured on torch 2.13: tests/test_modes.py), so the finding names the mode, as one inside the
`if self.training:` arm does (modes.py). A local is such a value when every binding of it to a
tensor is made inside arms of one mode, or is an operator expression (`skip | synced`, `~skip`)
whose only tensors are such locals of that mode. One binding to a tensor anywhere else (or a
parameter's own tensor) makes it a tensor in every mode for the rest of the function: the record
is per function, not per path, so it can only ever name fewer modes.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable

from graphmend_bot.analysis.modes import test_mode
from graphmend_bot.vocabulary.kind import NOT_TENSOR, Kind

Modes = tuple[str, ...]
# (the modes, the kind under which it is a tensor in every mode: operands it was built with that
# the solver may find tensors, `skip | synced` with `synced` a helper's result)
ModeValue = tuple[Modes, Kind]
# Expressions whose value is a tensor only when one of their names holds one.
_OPERATORS = (ast.Name, ast.Constant, ast.BoolOp, ast.UnaryOp, ast.BinOp, ast.Compare, ast.Load,
              ast.boolop, ast.unaryop, ast.operator, ast.cmpop)


class ModeValues:
    """Per function: which locals hold a tensor only in a mode, and in which."""

    def __init__(self) -> None:
        self._values: dict[str, ModeValue] = {}
        self._every_mode: set[str] = set()  # bound to a tensor outside a mode at least once

    def bound(self, name: str, value: ast.expr | None, kind: Kind, held_tensor: bool, modes: Modes,
              kind_of: Callable[[str], Kind]) -> None:
        """`name` was bound to `value` (None: by a loop, `with`, unpacking...) of `kind` in the arms
        of `modes`; `held_tensor`: it held a tensor before (a parameter, an earlier binding)."""
        if not kind.is_tensor or name in self._every_mode:
            return
        if value is not None and (short := test_mode(value)) is not None:
            modes = (*modes, short)  # `skip = self.training and rand < p`: Python False in other modes
        if modes:
            found: ModeValue | None = (modes, NOT_TENSOR)
        elif value is not None and self._values:  # a mode only comes from a local that holds one
            found = self.derived(value, kind_of)
        else:
            found = None
        known = self._values.get(name)
        if found is None or (known is not None and known[0] != found[0]) or (known is None and held_tensor):
            self._every_mode.add(name)
            self._values.pop(name, None)
        else:
            self._values[name] = (found[0], found[1] | known[1]) if known is not None else found

    def of(self, name: str) -> ModeValue | None:
        """The modes in which alone `name` holds a tensor, None when it may in any."""
        return self._values.get(name)

    def derived(self, value: ast.expr, kind_of: Callable[[str], Kind]) -> ModeValue | None:
        """The mode of an operator expression whose tensors are locals of one mode."""
        if not all(isinstance(node, _OPERATORS) for node in ast.walk(value)):
            return None
        return self.combined((node.id, kind_of(node.id)) for node in ast.walk(value) if isinstance(node, ast.Name))

    def combined(self, parts: Iterable[tuple[str | None, Kind]]) -> ModeValue | None:
        """The mode of a value made of `parts` (a local's name or None, and its kind) when the
        tensors among them are locals of one mode, or values the solver may find tensors (which
        make it one in every mode: the kind returned with the mode)."""
        mode: Modes | None = None
        others = NOT_TENSOR
        for name, kind in parts:
            if not kind.is_tensor:
                continue
            held = self._values.get(name) if name is not None else None
            if held is None:
                others = others | kind
            elif mode not in (None, held[0]):
                return None
            else:
                mode, others = held[0], others | held[1]
        return None if mode is None or others.always else (mode, others)


def short_circuited(value_mode: ModeValue | None, short: tuple[str, list[Kind]] | None) -> ModeValue | None:
    """A condition's mode (`value_mode`, from its locals) with the mode its `and`/`or` reaches its
    tensors in (modes.short_circuit_mode), which stands unless the operands before it are tensors."""
    if short is None:
        return value_mode
    held, every_mode_if = value_mode if value_mode is not None else ((), NOT_TENSOR)
    return (*held, short[0]), Kind.union([every_mode_if, *short[1]])
