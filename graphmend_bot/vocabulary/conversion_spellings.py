"""The conversions spelled otherwise than by the builtin, read as the builtin (`t.__bool__()` as
`bool(t)`, `operator.truth(t)` as `bool(t)`: analysis/call_spellings.py) but broken on with an id of
their own. Measured on torch 2.13 (tests/test_call_spellings.py): `bool(t)`, `int(t)`, `float(t)`,
`t.__int__()`, `t.__float__()` and `operator.index(t)` break with GB0124; Dynamo runs `t.__bool__()`
and `t.__index__()` as tensor methods that read the value back with `aten._local_scalar_dense`
(GB0033, "Data dependent operator"), and fails on `operator.truth(t)` as a builtin operator (GB0059)."""

from __future__ import annotations

import ast

SPELLING_IDS = {"__bool__": "GB0033", "__index__": "GB0033", "operator.truth": "GB0059"}
_SPELLING = "graphmend_spelling"  # the attribute the respelled builtin call keeps its spelling in


def spelt_as(call: ast.Call, spelling: str) -> ast.Call:
    """The builtin call `call` (`bool(t)`), marked as spelt `spelling` (`__bool__`) in the source; a plain
    `ast.Call` still, as the evaluator dispatches on the node's type."""
    setattr(call, _SPELLING, spelling)
    return call


def gb_id_of(call: ast.Call) -> str | None:
    """The id Dynamo breaks with on a conversion when its spelling's is not the builtin's, else None."""
    return SPELLING_IDS.get(getattr(call, _SPELLING, ""))
