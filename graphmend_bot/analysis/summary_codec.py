"""Summaries and text scans as JSON values, and back with every value's type checked.

The summary cache (summary_cache.py) stores what this writes. A cache is data anyone may have
written (a folder committed in a pull request, a restored CI cache), so it is never unpickled:
pickle runs whatever the file says. JSON only holds lists, strings, numbers and booleans, and
`decoder` rebuilds exactly the classes of analysis/model.py from them, checking each field
against its annotation: a value of the wrong shape raises CodecError and the entry is not used.

A dataclass travels as the list of its fields in declaration order, a Kind as its atoms (as it
pickles), a dict as a list of pairs (its keys may be numbers), a set as a list.

Decoding runs on every warm check (hundreds of thousands of values on a large project), so the
hot shapes are checked without a Python call per element: `_positional_decoder` writes one
function per dataclass from its field names, pairs and dict items are unpacked inline, and lists
of scalars are checked by the set of their types.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable
from functools import cache
from typing import Any

from graphmend_bot.vocabulary.kind import Kind, _interned_kind

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
            return _scalars_decoder(build, args[0])
        if args[0] is Kind:
            return lambda value: build(_kinds(value))
        if args[0] == tuple[str, Kind]:  # keyword arguments at a call site
            return lambda value: build(_named_kinds(value))
        item = decoder(args[0])
        return lambda value: build(map(item, _list(value)))
    if origin is tuple and len(args) == 2:
        return _pair_decoder(args[0], args[1])
    if origin is tuple:
        items = [decoder(arg) for arg in args]
        return lambda value: tuple([decode(element) for decode, element in zip(items, _list(value, len(items)),
                                                                            strict=True)])
    if origin is dict:
        pair = _pair_decoder(args[0], args[1])
        return lambda value: dict(map(pair, _list(value)))
    raise TypeError(f"no codec for {annotation}")


def _scalars_decoder(build: Callable[[list[Any]], Any], kind: type) -> Codec:
    """A list of str (or of int) as `build` makes it: hundreds of thousands per project, most
    of them short, so one call each, the types of the elements found without a call per element."""
    allowed = {kind}

    def decode_scalars(value: Any) -> Any:
        if type(value) is not list or (value and not set(map(type, value)) <= allowed):
            raise CodecError(f"expected a list of {kind.__name__}")
        return build(value)

    return decode_scalars


def _pair_decoder(first_type: Any, second_type: Any) -> Codec:
    """A (first, second) pair (and a dict's item): hundreds of thousands per project, so the list's
    shape and scalar members are checked inline."""
    first_scalars, second_scalars = _scalar_types(first_type), _scalar_types(second_type)
    if first_scalars is not None and second_scalars is not None:
        def decode_scalars(value: Any) -> tuple[Any, Any]:
            if type(value) is not list or len(value) != 2:
                raise CodecError("expected a pair")
            first, second = value
            if type(first) not in first_scalars or type(second) not in second_scalars:
                raise CodecError("expected a pair of scalars")
            return first, second

        return decode_scalars
    decode_first, decode_second = decoder(first_type), decoder(second_type)

    def decode(value: Any) -> tuple[Any, Any]:
        if type(value) is not list or len(value) != 2:
            raise CodecError("expected a pair")
        first, second = value
        return decode_first(first), decode_second(second)

    return decode


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
        return _sparse_decoder(cls, hints)
    return _positional_decoder(cls, hints)


def _sparse_decoder(cls: Any, hints: list[tuple[dataclasses.Field[Any], Any]]) -> Codec:
    """A decoder written for a class that travels as {field: value} (21,000 function summaries on
    transformers, most with a few of their 31 fields): the object's __dict__ set as its __init__
    would, in field order: the defaults (a fresh container from each factory), then the fields
    present, each decoded by its own. A field without a default must be present, and a name that
    is no field is refused. As `_positional_decoder`, the text is made of field names and indexes
    only, never of cached data."""
    if hasattr(cls, "__post_init__") or hasattr(cls, "__slots__") or cls.__dataclass_params__.frozen:
        raise TypeError(f"no sparse codec for {cls.__name__}")
    by_name = {field.name: decoder(hint) for field, hint in hints}
    namespace: dict[str, Any] = {"CodecError": CodecError, "new": object.__new__, "cls": cls, "by_name": by_name,
                                 "names": frozenset(by_name), "message": f"not a {cls.__name__}"}
    required, defaults = [], []
    for index, (field, _) in enumerate(hints):
        if field.default_factory is not dataclasses.MISSING:
            namespace[f"factory{index}"] = field.default_factory
            defaults.append(f"{field.name!r}: factory{index}()")
        elif field.default is not dataclasses.MISSING:
            namespace[f"default{index}"] = field.default
            defaults.append(f"{field.name!r}: default{index}")
        else:
            required.append(field.name)
            defaults.append(f"{field.name!r}: None")  # its place in field order; always given
    namespace["required"] = frozenset(required)
    source = ("def decode(value):\n"
              "    if type(value) is not dict or not (keys := value.keys()) <= names or not required <= keys:\n"
              "        raise CodecError(message)\n"
              "    made = new(cls)\n"
              f"    made.__dict__.update({{{', '.join(defaults)}}})\n"
              "    made.__dict__.update({name: by_name[name](item) for name, item in value.items()})\n"
              "    return made\n")
    exec(source, namespace)  # the text above, made of this class's field names
    return namespace["decode"]


def _positional_decoder(cls: Any, hints: list[tuple[dataclasses.Field[Any], Any]]) -> Codec:
    """A decoder written for `cls` (tens of thousands of drafts and call sites per project): the
    list unpacked into its fields, scalar fields checked inline, the others decoded by theirs.

    The object is built as its __init__ would (no class here has __post_init__): its fields set in
    its __dict__ directly, which a frozen dataclass's __init__ does one object.__setattr__ at a
    time. The generated text is made of field indexes only, never of cached data."""
    if hasattr(cls, "__post_init__") or hasattr(cls, "__slots__"):
        raise TypeError(f"no positional codec for {cls.__name__}")
    names = [f"v{index}" for index in range(len(hints))]
    namespace: dict[str, Any] = {"CodecError": CodecError, "new": object.__new__, "cls": cls,
                                 "message": f"not a {cls.__name__}"}
    checks, values = [], []
    for index, (field, hint) in enumerate(hints):
        allowed = _scalar_types(hint)
        if allowed is not None:
            namespace[f"allowed{index}"] = allowed
            checks.append(f"type(v{index}) not in allowed{index}")
            values.append(f"{field.name!r}: v{index}")
        else:
            namespace[f"decode{index}"] = decoder(hint)
            values.append(f"{field.name!r}: decode{index}(v{index})")
    unpack = f"    {', '.join(names)}, = value\n" if names else ""
    check = f"    if {' or '.join(checks)}:\n        raise CodecError(message)\n" if checks else ""
    source = (f"def decode(value):\n"
              f"    if type(value) is not list or len(value) != {len(names)}:\n        raise CodecError(message)\n"
              f"{unpack}{check}"
              f"    made = new(cls)\n    made.__dict__.update({{{', '.join(values)}}})\n    return made\n")
    exec(source, namespace)  # the text above, made of this class's field names
    return namespace["decode"]


def _same(value: Any) -> Any:
    return value


def _checked(*kinds: type) -> Codec:
    def check(value: Any) -> Any:
        if type(value) not in kinds:  # bool is an int subclass: `type`, not isinstance
            raise CodecError(f"expected {' or '.join(k.__name__ for k in kinds)}, got {type(value).__name__}")
        return value

    return check


_INT, _STR = {int}, {str}


def _types(values: list[Any]) -> set[type]:
    """The types of `values` (bool apart from int), found without a Python call per element."""
    return set(map(type, values))


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
    if type(value) is not list:
        raise CodecError("not a list of kinds' indexes")
    if not value:
        return value
    table = _DECODED_KINDS[-1]
    if not set(map(type, value)) <= _INT or min(value) < 0 or max(value) >= len(table):
        raise CodecError("not a kind's index")
    return [table[index] for index in value]


def _kind_from_atoms(value: Any) -> Kind:
    flags, params, calls = _list(value, 3)
    if (type(flags) is not int or not 0 <= flags < 8 or type(params) is not list or type(calls) is not list
            or len(calls) % 2 or not _types(params) <= _STR
            or not _types(calls) <= _INT or (calls and min(calls) < -1)):
        raise CodecError("not a kind")
    return _interned_kind(flags, tuple(params), tuple(calls))


def _named_kinds(value: Any) -> list[tuple[str, Kind]]:
    if type(value) is list and not value:  # most calls pass no keyword
        return value
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
