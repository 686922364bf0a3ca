"""`Kind`: when a value is a tensor, as the scope solver can later decide it.

A value is a tensor always, when one of the function's parameters is, or when a call site (or
one element of the tuple a call site returns) is. Two flags say what kind of value a tensor
condition is: a bool tensor (a comparison, usable as a mask) or a Python bool computed from
tensor data (`torch.equal`). The empty kind is a value that is not a tensor.

Kinds are combined on every expression of every traced function, so `|` returns an operand
unchanged whenever it can (no allocation on the common paths).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import NamedTuple


class CallResult(NamedTuple):
    """What call site `site` (an index into FunctionSummary.calls) returns; one tuple element
    of it when `element` is set."""

    site: int
    element: int | None = None


_NO_NAMES: frozenset[str] = frozenset()
_NO_CALLS: frozenset[CallResult] = frozenset()
_SET_SLOT = object.__setattr__  # Kind's own __setattr__ refuses: it is immutable


class Kind:
    __slots__ = ("always", "boolean", "calls", "data_dependent_bool", "is_tensor", "nonempty", "params")

    always: bool
    params: frozenset[str]
    calls: frozenset[CallResult]
    boolean: bool  # a bool tensor: a comparison or a predicate such as isnan
    data_dependent_bool: bool  # a Python bool computed from tensor values (GB0033)
    nonempty: bool  # anything at all (precomputed: `|` asks on every expression)
    # A tensor under some condition (the flags alone do not make one). Precomputed too: asked
    # about six times per kind made, and a property's call cost more than the slot's store.
    is_tensor: bool

    def __init__(
        self,
        always: bool = False,
        params: frozenset[str] = _NO_NAMES,
        calls: frozenset[CallResult] = _NO_CALLS,
        boolean: bool = False,
        data_dependent_bool: bool = False,
    ) -> None:
        _set = _SET_SLOT  # one lookup, not six (half a million kinds are made on transformers)
        _set(self, "always", always)
        _set(self, "params", params)
        _set(self, "calls", calls)
        _set(self, "boolean", boolean)
        _set(self, "data_dependent_bool", data_dependent_bool)
        _set(self, "is_tensor", tensor := always or bool(params) or bool(calls))
        _set(self, "nonempty", tensor or boolean or data_dependent_bool)

    # Kinds are immutable, so one per parameter name and per call site serves every function:
    # each call site and each parameter seeded or tested made a new one (and its frozenset), 190k
    # of them on transformers' models/, of 9k names and 192 sites. Names are bounded by the
    # cache's size (nine in ten are hits), sites by the most calls one function makes.
    @staticmethod
    @functools.lru_cache(maxsize=4096)
    def of_param(name: str) -> Kind:
        return Kind(params=frozenset({name}))

    @staticmethod
    @functools.cache
    def of_call(site: int) -> Kind:
        return Kind(calls=frozenset({CallResult(site)}))

    @staticmethod
    def union(kinds: Iterable[Kind]) -> Kind:
        result = NOT_TENSOR
        for kind in kinds:
            if kind.nonempty:
                result = kind if not result.nonempty else result | kind
        return result

    # ---- questions ----------------------------------------------------------------------
    @property
    def is_call_result(self) -> bool:
        """Exactly the whole results of call sites: `a, b = helper(...)` can be split."""
        return (
            bool(self.calls)
            and not (self.always or self.params or self.boolean or self.data_dependent_bool)
            and all(call.element is None for call in self.calls)
        )

    def __bool__(self) -> bool:
        return self.nonempty

    # ---- derived kinds ------------------------------------------------------------------
    def __or__(self, other: Kind) -> Kind:
        if other is self or not other.nonempty:
            return self
        if not self.nonempty:
            return other
        return Kind(
            self.always or other.always,
            self.params | other.params,
            self.calls | other.calls,
            self.boolean or other.boolean,
            self.data_dependent_bool or other.data_dependent_bool,
        )

    def without_flags(self) -> Kind:
        """The same condition, as a plain tensor value (arithmetic on a mask is not a mask)."""
        if not (self.boolean or self.data_dependent_bool):
            return self
        return Kind(self.always, self.params, self.calls)

    def without_data_dependent_bool(self) -> Kind:
        if not self.data_dependent_bool:
            return self
        return Kind(self.always, self.params, self.calls, self.boolean)

    def as_bool_tensor(self) -> Kind:
        return self if self.boolean else Kind(self.always, self.params, self.calls, True, self.data_dependent_bool)

    def without_param(self, name: str) -> Kind:
        if name not in self.params:
            return self
        return Kind(self.always, self.params - {name}, self.calls, self.boolean, self.data_dependent_bool)

    def element(self, index: int) -> Kind:
        """Element `index` of the tuples these call sites return (only for `is_call_result`)."""
        return Kind(calls=frozenset(CallResult(call.site, index) for call in self.calls))

    # ---- value semantics (frozen, hashable, picklable) --------------------------------
    def _key(self) -> tuple[bool, frozenset[str], frozenset[CallResult], bool, bool]:
        return (self.always, self.params, self.calls, self.boolean, self.data_dependent_bool)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Kind) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Kind is immutable")

    def __reduce__(self) -> tuple[Callable[..., Kind], tuple[int, tuple[str, ...], tuple[int, ...]]]:
        """Summaries come back from worker processes pickled. A Kind travels as atoms (flag bits,
        parameter names, flat call-site pairs) and is interned on arrival: a few thousand distinct
        kinds recur on every expression, and rebuilding each as fresh frozensets (which the garbage
        collector then walks) was a fifth of the parent's unpickling time."""
        flags = self.always | self.boolean << 1 | self.data_dependent_bool << 2
        calls = tuple(n for call in self.calls for n in (call.site, -1 if call.element is None else call.element))
        return (_interned_kind, (flags, tuple(self.params), calls))

    def __repr__(self) -> str:
        parts = [name for name in ("always", "boolean", "data_dependent_bool") if getattr(self, name)]
        parts += [f"param {name}" for name in sorted(self.params)]
        parts += [f"call {c.site}" + (f"[{c.element}]" if c.element is not None else "") for c in sorted(self.calls, key=str)]
        return f"Kind({', '.join(parts)})"


def computed_from(result: Kind, operands: Iterable[Kind]) -> Kind:
    """`result`, a tensor a torch function made, with the conditions of the tensors it computed it
    from: `torch.sum(mask)` is data of `mask`, unlike `torch.div(n, 2)` of Python ints (GM305)."""
    return result | Kind.union(operand.without_flags() for operand in operands if operand.is_tensor)


NOT_TENSOR = Kind()
TENSOR = Kind(always=True)
BOOL_TENSOR = Kind(always=True, boolean=True)
DATA_DEPENDENT_BOOL = Kind(always=True, data_dependent_bool=True)


# Unpickled kinds by their atoms; the constants above are seeded so they stay singletons. Two
# equal kinds whose sets iterate in another order only miss the cache: equality is by value.
_INTERNED: dict[tuple[int, tuple[str, ...], tuple[int, ...]], Kind] = {}
_MAX_INTERNED = 100_000


def _interned_kind(flags: int, params: tuple[str, ...], calls: tuple[int, ...]) -> Kind:
    key = (flags, params, calls)
    kind = _INTERNED.get(key)
    if kind is None:
        if len(_INTERNED) >= _MAX_INTERNED:
            _INTERNED.clear()
        sites = frozenset(CallResult(calls[i], None if calls[i + 1] < 0 else calls[i + 1])
                          for i in range(0, len(calls), 2))
        kind = Kind(bool(flags & 1), frozenset(params), sites, bool(flags & 2), bool(flags & 4))
        _INTERNED[key] = kind
    return kind


for _constant in (NOT_TENSOR, TENSOR, BOOL_TENSOR, DATA_DEPENDENT_BOOL):
    _INTERNED[_constant.__reduce__()[1]] = _constant
