"""Resolve the class refs of analysis/value_class.py to classes of the tree or a dependency.

Each answer is a short list of (module, class qualname); `Program._methods_of_instances` then adds
the subclasses' overrides, the over-approximation the rest of the call graph makes. Refs nest
(`result:member:typed:Q>cov>evaluate`); each level is one lookup, and resolve_call memoises the
call sites that ask, so no site costs more than the depth of its ref.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphmend_bot.analysis.value_class import is_property

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import FunctionId, Program

ClassId = tuple[str, str]
_MAX_DEPTH = 8  # refs are as deep as a chain of attribute reads in one expression


def value_classes(program: Program, fid: FunctionId, ref: str, depth: int = 0) -> list[ClassId]:
    """The classes a value of class ref `ref`, seen in function `fid`, is an instance of."""
    if depth > _MAX_DEPTH:
        return []
    kind, _, rest = ref.partition(":")
    if ref == "self":
        own = program.function(fid).class_qualname
        return [(fid[0], own)] if own is not None else []
    if kind == "typed":
        return program._classes_built_by(fid[0], ref)
    if kind in ("member", "result"):
        base, _, name = rest.rpartition(">")
        found: list[ClassId] = []
        for module, cls in value_classes(program, fid, base, depth + 1):
            if kind == "member":
                found += _attribute_classes(program, module, cls, name)
            elif (method := program._method(module, cls, name)) is not None:
                found += _returned_classes(program, method)
        return _unique(found)
    if kind == "attr":
        own = program.function(fid).class_qualname
        return _property_classes(program, fid[0], own, rest) if own is not None else []
    if kind == "self" and not rest.endswith("]"):  # "self:layers[]" is a submodule, not a result
        return _own_method_results(program, fid, rest)
    if kind in ("name", "dotted"):
        # `Cls(...)`; a function's return annotation is not followed here: what a method called
        # on its result returns would then flow as a tensor (transformers' `from_legacy_cache`
        # -> `get_seq_length()`, whose StaticCache override returns one) where it is an int
        return program._classes_built_by(fid[0], rest)
    return []


def property_getters(program: Program, fid: FunctionId, ref: str) -> list[FunctionId]:
    """`value.NAME` read on a value of class ref BASE ("BASE>NAME"): the properties it runs."""
    base, _, name = ref.rpartition(">")
    classes = value_classes(program, fid, base)
    if base.startswith("attr:"):
        classes = _unique([*classes, *_attribute_built(program, fid, base[len("attr:"):])])
    return [
        getter
        for getter in program._methods_of_instances(classes, name)
        if is_property(program.function(getter).decorators)
    ]


def _attribute_classes(program: Program, module: str, cls: str, name: str) -> list[ClassId]:
    """What attribute NAME of an instance of cls holds: built or annotated there, or a property's
    return annotation."""
    built = [
        found
        for mod, constructor in program._attribute_constructors(module, cls, name)
        for found in program._classes_built_by(mod, constructor)
    ]
    return built or _property_classes(program, module, cls, name)


def _attribute_built(program: Program, fid: FunctionId, name: str) -> list[ClassId]:
    own = program.function(fid).class_qualname
    if own is None:
        return []
    return [
        found
        for mod, constructor in program._attribute_constructors(fid[0], own, name)
        for found in program._classes_built_by(mod, constructor)
    ]


def _own_method_results(program: Program, fid: FunctionId, name: str) -> list[ClassId]:
    """`dist = self.make_dist(x)`: the classes the method `self.NAME(...)` may run (its own or a
    subclass's override) returns, each by the classes it builds (`return Categorical(...)`) or
    else by its return annotation (stable_baselines3's `_get_action_dist_from_latent(...) ->
    Distribution`, whose result's `entropy()` the policy calls)."""
    own = program.self_class(fid)
    if own is None:
        return []
    method = program._method(fid[0], own, name)
    methods = [*([method] if method is not None else []), *program._overrides(fid[0], own, name)]
    return _unique([
        cls
        for made in methods
        if not is_property(program.function(made).decorators)
        for cls in (program._factory_instances(made) or _returned_classes(program, made))
    ])


def _property_classes(program: Program, module: str, cls: str, name: str) -> list[ClassId]:
    method = program._method(module, cls, name)
    if method is None or not is_property(program.function(method).decorators):
        return []
    return _returned_classes(program, method)


def _returned_classes(program: Program, function: FunctionId) -> list[ClassId]:
    """The class a function's return annotation names (`-> LinearOperator`)."""
    annotated = program.function(function).return_class
    return program._classes_built_by(function[0], f"typed:{annotated}") if annotated else []


def _unique(classes: list[ClassId]) -> list[ClassId]:
    return list(dict.fromkeys(classes))
