"""GM685 generic-alias-subscript: its documentation, in one place with how it is detected.

Measured on torch 2.13 (tests/test_generic_alias_subscript.py, tests/coverage_probes/
gb4880_generic_alias_subscript.py): `numpy.typing.NDArray` is a `types.GenericAlias` object
(`np.ndarray[shape, np.dtype[T]]`). Read from a module's namespace, Dynamo holds it as a plain
object (utils.is_typing covers `typing` constructs only) with no `mp_subscript`: `NDArray[np.float64]`
in traced code breaks with GB4880 "missing_mp_subscript", typically in `cast(NDArray[...], v)`,
however spelled (`npt.NDArray[...]`, `np.typing.NDArray[...]`, `NDArray[Any]`). `typing.List[int]`,
`list[int]`, `np.ndarray[Any, np.dtype[T]]` built in place, `cast("NDArray[...]", v)` and a
local's annotation (never evaluated) trace. A module's own alias `Vec = list[T]` subscripted in
traced code breaks the same way; not detected here (the module's assignments are not looked at).
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import TENSOR

# Where numpy defines and re-exports the alias (`np.typing.NDArray` resolves to the first).
_NDARRAY_ALIASES = ("numpy.typing.NDArray", "numpy._typing.NDArray", "numpy._typing._array_like.NDArray")


def _subscripted_alias(rule: Rule, checker: Checker, node: ast.Subscript, name: str) -> None:
    checker.report(
        rule,
        node,
        f"subscripting `{name.rpartition('.')[2]}`, a `types.GenericAlias` read from a module, is not "
        "modelled by Dynamo: evaluating it in traced code breaks the graph",
        TENSOR,
    )


RULE = Rule(
    code="GM685",
    name="generic-alias-subscript",
    family="not traceable",
    gb_id="GB4880",
    summary="Flags `NDArray[...]` (numpy.typing's generic alias) evaluated in traced code, as in `cast(NDArray[np.float64], v)`.",
    why=(
        "`numpy.typing.NDArray` is a `types.GenericAlias`. TorchDynamo models `typing` constructs "
        "(`List[int]`, `Optional[T]`) but holds a generic alias read from a module as a plain object "
        "without subscripting: `NDArray[np.float64]` in traced code ends the graph (GB4880, "
        '"missing_mp_subscript", measured on torch 2.13), though it only names a type.'
    ),
    example="""
from typing import cast

import numpy as np
import torch
from numpy.typing import NDArray


class Model(torch.nn.Module):
    def forward(self, x):
        x = x * 2
        weights = cast(NDArray[np.float64], np.ones(3))
        return x * float(weights.sum())
""",
    use_instead="""
from typing import cast

import numpy as np
import torch
from numpy.typing import NDArray


class Model(torch.nn.Module):
    def forward(self, x):
        x = x * 2
        # a string type: `cast` returns its value and never evaluates the type
        weights = cast("NDArray[np.float64]", np.ones(3))
        return x * float(weights.sum())
""",
    fix_safety=(
        "No automatic fix. Quoting the type in `cast(...)` changes nothing at run time (`cast` returns "
        "its second argument unchanged), but the subscript may stand elsewhere (a default, a dict "
        "value) where a string would be a different value."
    ),
    detection=Detection(subscripted_names=dict.fromkeys(_NDARRAY_ALIASES, _subscripted_alias)),
    advice="`{code}` is evaluated while tracing: quote it (`cast(\"NDArray[...]\", v)`) or move it out of traced code",
)
