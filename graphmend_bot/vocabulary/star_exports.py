"""Builtin names a star import binds, for the modules whose star import code commonly writes.

`from torch import *` binds `pow`, `int`, `range`, `max`... (torch's `__all__` is built at import
time: no reading of its source tells it), so there `pow(x, 2)` is `torch.pow` and `int` a dtype.
Measured by running the star import on the pinned versions (torch 2.13, numpy 2); the test
tests/test_shadowed_builtins.py runs it again on what is installed. A star import of any other
module is taken to bind no builtin name.
"""

from __future__ import annotations

STAR_EXPORTED_BUILTINS: dict[str, frozenset[str]] = {
    "torch": frozenset(
        {
            "abs",
            "all",
            "any",
            "bool",
            "compile",
            "complex",
            "float",
            "int",
            "max",
            "min",
            "pow",
            "range",
            "round",
            "sum",
        }
    ),
    "numpy": frozenset({"abs", "all", "any", "bool", "divmod", "max", "min", "pow", "round", "sum"}),
    "math": frozenset({"pow"}),
}
