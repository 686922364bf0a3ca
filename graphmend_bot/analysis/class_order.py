"""The method resolution order (C3, as Python computes it) of the checked tree's classes.

`super()` in a method of class O searches the classes after O in the MRO of the instance's class,
which for a mixin is a class that lists O among its bases (super_calls.py); an operator's object
is traceable or not by what its class derives from (object_operands.py). A base outside the tree
stands in the order as its dotted name: its own bases are not known, so a reader that meets one
knows the order is not complete. `object`, which ends every order, is left out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import Program

ClassId = tuple[str, str]  # (module, class qualname)
Entry = ClassId | str  # a class of the tree, or the dotted name of a base outside it
OBJECT = frozenset({"object", "builtins.object"})


class MethodOrder:
    """The MROs of one Program's classes, each linearised once (a base's order is asked by every
    subclass)."""

    def __init__(self, program: Program) -> None:
        self.program = program
        self._orders: dict[ClassId, tuple[Entry, ...] | None] = {}

    def of(self, cls: ClassId) -> tuple[Entry, ...] | None:
        """The class's MRO without `object`; None where Python would refuse the class (no
        consistent order) or the bases form a cycle."""
        if cls in self._orders:
            return self._orders[cls]
        self._orders[cls] = None  # a cycle among the bases ends here
        bases = self._bases(cls)
        orders: list[list[Entry]] = []
        for base in bases:
            if isinstance(base, str):
                orders.append([base])
                continue
            order = self.of(base)
            if order is None:
                return None
            orders.append(list(order))
        merged = _merge([*orders, list(bases)])
        found = None if merged is None else (cls, *merged)
        self._orders[cls] = found
        return found

    def outside_tree(self, cls: ClassId) -> list[str] | None:
        """The bases outside the tree anywhere in the class's MRO, None when it has no MRO."""
        order = self.of(cls)
        return None if order is None else [entry for entry in order if isinstance(entry, str)]

    def _bases(self, cls: ClassId) -> list[Entry]:
        module, qualname = cls
        bases: list[Entry] = []
        for base in self.program.modules[module].classes[qualname].bases:
            if base in OBJECT:
                continue
            found = self.program.resolve_class(module, base)
            bases.append(found if found is not None else base)
        return bases


def _merge(sequences: list[list[Entry]]) -> list[Entry] | None:
    """C3's merge: repeatedly take the first head that is in no other sequence's tail."""
    sequences = [list(sequence) for sequence in sequences if sequence]
    merged: list[Entry] = []
    while sequences:
        for sequence in sequences:
            head = sequence[0]
            if not any(head in other[1:] for other in sequences):
                break
        else:
            return None
        merged.append(head)
        sequences = [rest for sequence in sequences if (rest := [e for e in sequence if e != head])]
    return merged
