"""Pydantic classes of the checked tree, and the traced calls that build one: Dynamo cannot.

Measured on torch 2.13 with pydantic 2.14.4 (tests/coverage_probes/gb3383_pydantic_dataclass.py):
calling a class decorated with `pydantic.dataclasses.dataclass` breaks with GB3383 (Dynamo refuses
the constructor: validation mutates the instance outside tracing), and calling a subclass of
`pydantic.BaseModel` breaks with GB0156 (its `__init__` calls pydantic-core's
`SchemaValidator.validate_python`), as does an undecorated subclass of a pydantic dataclass. A
standard-library dataclass builds; an instance built outside the traced code (in `__init__`) is
read without a break. The summary marks such classes with that id (`ClassSummary.build_breaks`;
bases of the same module: a subclass of an imported pydantic class is not judged), drafts each call of a capitalized name as GM615 does (analysis/typed_dicts.py), and
`pydantic_constructions` keeps those of traced functions that resolve to a marked class, each
with its class's id.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from graphmend_bot.analysis.typed_dicts import class_calls, keep_buildable

if TYPE_CHECKING:
    from graphmend_bot.analysis.model import ClassSummary, FunctionSummary
    from graphmend_bot.analysis.scope import Program, TracedDraft

Resolve = Callable[[ast.expr], "str | None"]
DATACLASS_CONSTRUCTOR = "GB3383"  # "Pydantic dataclass constructor"
UNSUPPORTED_METHOD = "GB0156"  # "Unsupported method call": SchemaValidator.validate_python
_DATACLASS = frozenset({"pydantic.dataclasses.dataclass"})
_BASE_MODEL = frozenset({"pydantic.BaseModel", "pydantic.main.BaseModel"})


def build_breaks(node: ast.ClassDef, resolve: Resolve, marked: dict[str, str]) -> str:
    """The id calling the class `node` breaks with, "" when it is no pydantic class. `marked`:
    this module's classes so far, by name, with their id."""
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator  # `@dataclass(frozen=True)`
        if resolve(target) in _DATACLASS:
            return DATACLASS_CONSTRUCTOR
    for base in node.bases:
        if resolve(base) in _BASE_MODEL:
            return UNSUPPORTED_METHOD
        if isinstance(base, ast.Name) and marked.get(base.id):
            # a model's subclass is a model; an undecorated pydantic dataclass's subclass breaks
            # at `type.__new__` (GB0156, measured): Dynamo's check reads the class's own __dict__
            return UNSUPPORTED_METHOD
    return ""


def drop_unbuildable(functions: dict[str, FunctionSummary], classes: dict[str, ClassSummary]) -> None:
    """Drop the drafts of calls the module itself resolves to a function or an unmarked class
    (the solver resolves a name in the module first), as typed_dicts.drop_unbuildable does."""
    keep_buildable(functions, classes, "pydantic_drafts", lambda cls: bool(cls.build_breaks))


def pydantic_constructions(program: Program) -> list[TracedDraft]:
    """The drafts of traced calls that build a pydantic class of the tree, with its class's id."""
    from graphmend_bot.analysis.scope import TracedDraft

    return [
        TracedDraft(program.modules[fid[0]], function, replace(draft, gb_id=built.build_breaks), draft)
        for fid, function, draft, built in class_calls(program, "pydantic_drafts")
        if built.build_breaks
    ]
