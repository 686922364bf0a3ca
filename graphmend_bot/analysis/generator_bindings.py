"""A local one arm binds to a `torch.Generator` and another to None still may hold the generator.

torch-kmeans's seeded initialisation: `if self.seed is not None: gen = torch.Generator(device=d);
gen.manual_seed(self.seed) / else: gen = None`, then `torch.multinomial(p, k, generator=gen)`.
Measured on torch 2.13 (tests/test_generator_bindings.py): Dynamo breaks at the draw ("Missing
`as_proxy()`", GB0055) whenever the generator arm ran. The walk visits the `else` arm last, so its
`gen = None` would forget what built `gen` (FunctionState.forget); it keeps it instead, as it does
when the None is bound first and the generator under the `if`.
"""

from __future__ import annotations

import ast
from typing import Protocol

from graphmend_bot.analysis.narrowing import is_none_constant

_GENERATORS = frozenset({"torch.Generator", "torch._C.Generator"})


class _State(Protocol):
    built_by: dict[str, str]

    def forget(self, name: str) -> None: ...


def rebound(state: _State, name: str, value: ast.expr | None) -> None:
    """Forget what was known of `name` on its rebinding to `value`, but a generator it may hold."""
    kept = state.built_by.get(name) if value is not None and is_none_constant(value) else None
    state.forget(name)
    if kept in _GENERATORS:
        state.built_by[name] = kept
