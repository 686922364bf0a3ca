"""Summaries and text scans as JSON values, and back with every value's type checked.

The summary cache (summary_cache.py) stores what this writes. A cache is data anyone may have
written (a folder committed in a pull request, a restored CI cache), so it is never unpickled:
pickle runs whatever the file says. JSON only holds lists, strings, numbers and booleans, and
`decoder` rebuilds exactly the classes of analysis/model.py from them, checking each field
against its annotation: a value of the wrong shape raises CodecError and the entry is not used.

A dataclass travels as the list of its fields in declaration order, a Kind as its atoms (as it
pickles), a dict as a list of pairs (its keys may be numbers), a set as a list.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable
from functools import cache
from typing import Any

from graphmend_bot.analysis.kind import Kind, _interned_kind

Codec = Callable[[Any], Any]
_SCALARS = {str, int, bool, type(None)}


class CodecError(ValueError):
    """A cached value that does not have the shape its class declares."""


@cache
def encoder(annotation: Any) -> Codec:
    """A function turning a value of `annotation` into JSON-able lists, strings, numbers and booleans."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if annotation is Kind:
        return _encode_kind
    if annotation in (str, int, bool, type(None)):
        return _same
    if dataclasses.is_dataclass(annotation):
        fields = [(field.name, encoder(hint)) for field, hint in _fields(annotation)]
        if _sparse(annotation):
            defaults = _defaults(annotation)
            return lambda value: {name: encode(getattr(value, name)) for name, encode in fields
                                  if name not in defaults or getattr(value, name) != defaults[name]}
        return lambda value: [encode(getattr(value, name)) for name, encode in fields]
    if origin in (typing.Union, types.UnionType):
        if set(args) <= _SCALARS:
            return _same
        (inner,) = [encoder(arg) for arg in args if arg is not type(None)]
        return lambda value: None if value is None else inner(value)
    if (origin is tuple and len(args) == 2 and args[1] is Ellipsis) or origin in (list, frozenset, set):
        item = encoder(args[0])
        return lambda value: [item(element) for element in value]
    if origin is tuple:
        items = [encoder(arg) for arg in args]
        return lambda value: [encode(element) for encode, element in zip(items, value, strict=True)]
    if origin is dict:
        key, item = encoder(args[0]), encoder(args[1])
        return lambda value: [[key(k), item(v)] for k, v in value.items()]
    raise TypeError(f"no codec for {annotation}")


@cache
def decoder(annotation: Any) -> Codec:
    """The inverse of `encoder`, raising CodecError on any value that `encoder` could not have made."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if annotation is Kind:
        return _decode_kind
    if annotation in (str, int, bool):
        return _checked(annotation)
    if dataclasses.is_dataclass(annotation):
        return _dataclass_decoder(annotation)
    if origin in (typing.Union, types.UnionType):
        if set(args) <= _SCALARS:
            return _checked(*args)
        (inner,) = [decoder(arg) for arg in args if arg is not type(None)]
        return lambda value: None if value is None else inner(value)
    if origin in (list, frozenset) or (origin is tuple and args[-1] is Ellipsis):
        build = list if origin is list else origin
        if args[0] in (str, int):  # the common cases, checked in one pass
            kind = args[0]
            return lambda value: build(value) if all(type(e) is kind for e in _list(value)) else _wrong(kind)
        if args[0] is Kind:
            return lambda value: build(_kinds(value))
        if args[0] == tuple[str, Kind]:  # keyword arguments at a call site
            return lambda value: build(_named_kinds(value))
        item = decoder(args[0])
        return lambda value: build([item(element) for element in _list(value)])
    if origin is tuple and len(args) == 2:
        first, second = decoder(args[0]), decoder(args[1])
        return lambda value: (first(value[0]), second(value[1])) if len(_list(value)) == 2 else _wrong(tuple)
    if origin is tuple:
        items = [decoder(arg) for arg in args]
        return lambda value: tuple([decode(element) for decode, element in zip(items, _list(value, len(items)),
                                                                            strict=True)])
    if origin is dict:
        key, item = decoder(args[0]), decoder(args[1])
        return lambda value: {key(k): item(v) for k, v in (_list(pair, 2) for pair in _list(value))}
    raise TypeError(f"no codec for {annotation}")


def _fields(cls: Any) -> list[tuple[dataclasses.Field[Any], Any]]:
    hints = typing.get_type_hints(cls)
    return [(field, hints[field.name]) for field in dataclasses.fields(cls)]


def _sparse(cls: Any) -> bool:
    """Classes with container fields (most of them empty) travel as {field: value} of the fields
    that differ from their defaults; the others as the list of their fields."""
    return any(field.default_factory is not dataclasses.MISSING for field in dataclasses.fields(cls))


def _defaults(cls: Any) -> dict[str, Any]:
    defaults = {}
    for field in dataclasses.fields(cls):
        if field.default is not dataclasses.MISSING:
            defaults[field.name] = field.default
        elif field.default_factory is not dataclasses.MISSING:
            defaults[field.name] = field.default_factory()
    return defaults


def _scalar_types(annotation: Any) -> frozenset[type] | None:
    """The types a field of this annotation may hold when it is a scalar one (checked inline)."""
    if annotation in (str, int, bool):
        return frozenset({annotation})
    if typing.get_origin(annotation) in (typing.Union, types.UnionType) and set(typing.get_args(annotation)) <= _SCALARS:
        return frozenset(typing.get_args(annotation))
    return None


def _dataclass_decoder(cls: Any) -> Codec:
    hints = _fields(cls)
    if _sparse(cls):
        by_name = {field.name: decoder(hint) for field, hint in hints}

        def decode_sparse(value: Any) -> Any:
            if type(value) is not dict or not value.keys() <= by_name.keys():
                raise CodecError(f"not a {cls.__name__}")
            return cls(**{name: by_name[name](item) for name, item in value.items()})  # TypeError: one missing

        return decode_sparse
    # Scalar fields are checked by type in one pass; only the others call a decoder each.
    scalars = [(index, allowed) for index, (_, hint) in enumerate(hints) if (allowed := _scalar_types(hint))]
    others = [(index, decoder(hint)) for index, (_, hint) in enumerate(hints) if not _scalar_types(hint)]
    count = len(hints)

    def decode(value: Any) -> Any:
        if type(value) is not list or len(value) != count:
            raise CodecError(f"not a {cls.__name__}")
        found = [*map(type, value)]
        for index, allowed in scalars:
            if found[index] not in allowed:
                raise CodecError(f"not a {cls.__name__}")
        arguments = value.copy()
        for index, field in others:
            arguments[index] = field(value[index])
        return cls(*arguments)

    return decode


def _same(value: Any) -> Any:
    return value


def _checked(*kinds: type) -> Codec:
    def check(value: Any) -> Any:
        if type(value) not in kinds:  # bool is an int subclass: `type`, not isinstance
            raise CodecError(f"expected {' or '.join(k.__name__ for k in kinds)}, got {type(value).__name__}")
        return value

    return check


def _wrong(kind: type) -> Any:
    raise CodecError(f"expected a list of {kind.__name__}")


def _list(value: Any, length: int | None = None) -> list[Any]:
    if type(value) is not list or (length is not None and len(value) != length):
        raise CodecError(f"expected a list{f' of {length}' if length is not None else ''}")
    return value


def _encode_kind(kind: Kind) -> Any:
    """A kind's index in the entry's table of kinds (a few hundred distinct kinds recur thousands of times)."""
    _, atoms = kind.__reduce__()
    index = _ENCODED_KINDS[-1].setdefault(atoms, len(_ENCODED_KINDS[-1]))
    return index


def _decode_kind(value: Any) -> Kind:
    table = _DECODED_KINDS[-1]
    if type(value) is not int or not 0 <= value < len(table):
        raise CodecError("not a kind's index")
    return table[value]


def _kinds(value: Any) -> list[Kind]:
    table = _DECODED_KINDS[-1]
    if not all(type(index) is int and 0 <= index < len(table) for index in _list(value)):
        raise CodecError("not a kind's index")
    return [table[index] for index in value]


def _kind_from_atoms(value: Any) -> Kind:
    flags, params, calls = _list(value, 3)
    if (type(flags) is not int or not 0 <= flags < 8 or type(params) is not list or type(calls) is not list
            or len(calls) % 2 or not all(type(p) is str for p in params)
            or not all(type(n) is int and n >= -1 for n in calls)):
        raise CodecError("not a kind")
    return _interned_kind(flags, tuple(params), tuple(calls))


def _named_kinds(value: Any) -> list[tuple[str, Kind]]:
    table = _DECODED_KINDS[-1]
    pairs = []
    for pair in _list(value):
        if type(pair) is not list or len(pair) != 2:
            raise CodecError("not a (name, kind) pair")
        name, index = pair
        if type(name) is not str or type(index) is not int or not 0 <= index < len(table):
            raise CodecError("not a (name, kind) pair")
        pairs.append((name, table[index]))
    return pairs


# The kind tables of the entries being encoded and decoded (innermost last).
_ENCODED_KINDS: list[dict[tuple[int, tuple[str, ...], tuple[int, ...]], int]] = []
_DECODED_KINDS: list[list[Kind]] = []


def encode_entry(annotation: Any, value: Any) -> dict[str, Any]:
    """`value` as JSON: {"kinds": the table of kinds, "value": the value, kinds as indexes in it}."""
    _ENCODED_KINDS.append({})
    try:
        encoded = encoder(annotation)(value)
        kinds = [[flags, list(params), list(calls)] for (flags, params, calls) in _ENCODED_KINDS[-1]]
    finally:
        _ENCODED_KINDS.pop()
    return {"kinds": kinds, "value": encoded}


def decode_entry(annotation: Any, data: Any) -> Any:
    """What `encode_entry` encoded; CodecError when `data` is not what it writes."""
    if type(data) is not dict or type(data.get("kinds")) is not list:
        raise CodecError("not an entry")
    _DECODED_KINDS.append([_kind_from_atoms(atoms) for atoms in data["kinds"]])
    try:
        return decoder(annotation)(data.get("value"))
    finally:
        _DECODED_KINDS.pop()
