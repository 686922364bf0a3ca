"""Classes of the checked tree that define `__getattribute__`, and the traced calls that build one.

Measured on torch 2.13 (tests/coverage_probes/gb0147_getattribute_class_built.py,
tests/fixtures/rules/GM628_getattribute_class_built.py): Dynamo builds an object of a user class
only when the class's `__getattribute__` is a builtin one (side_effects.py,
`cls_supports_mutation_side_effects`): it cannot track changes to an object whose attribute
lookup runs user code. Calling a class that defines its own, or inherits one, breaks at the call
with GB0147 "Unsupported function call"; an object of it built outside the compiled code (in
`__init__`) is read without a break, and so are classes that define only `__getattr__` or
`__setattr__`. The summary marks such classes (`ClassSummary.guards_attributes`: a plain class of
the module, its bases `object` or classes of the module, one of which defines the method); a class
with a base from elsewhere (an nn.Module, a tensor subclass, an Enum: built another way) or its own
`__new__` is not judged. As for pydantic classes (pydantic_classes.py), each call of a capitalized
name is drafted and kept when it resolves to a marked class, in the module or imported.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import TYPE_CHECKING

from graphmend_bot.analysis.typed_dicts import class_calls, keep_buildable

if TYPE_CHECKING:
    from graphmend_bot.analysis.model import ClassSummary, FunctionSummary
    from graphmend_bot.analysis.scope import Program, TracedDraft


def guards_attributes(node: ast.ClassDef, plain: Mapping[str, bool]) -> bool | None:
    """Whether the class `node` defines `__getattribute__` or derives from a class of the module
    that does; None when it is no plain class: a base other than `object` and the module's plain
    classes (`plain`, by name: whether each guards), a metaclass, or a `__new__` of its own."""
    bases = [base for base in node.bases if not (isinstance(base, ast.Name) and base.id == "object")]
    names = [base.id for base in bases if isinstance(base, ast.Name) and base.id in plain]
    if node.keywords or len(names) != len(bases) or _defines(node, "__new__"):
        return None  # a metaclass, or a base from elsewhere: built another way
    return _defines(node, "__getattribute__") or any(plain[name] for name in names)


def _defines(node: ast.ClassDef, name: str) -> bool:
    return any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == name for s in node.body)


def drop_unbuildable(functions: dict[str, FunctionSummary], classes: dict[str, ClassSummary]) -> None:
    """Drop the drafts of calls the module itself resolves to a function or an unmarked class."""
    keep_buildable(functions, classes, "getattribute_drafts", lambda cls: cls.guards_attributes)


def getattribute_constructions(program: Program) -> list[TracedDraft]:
    """The drafts of traced calls that build a class of the tree defining `__getattribute__`."""
    from graphmend_bot.analysis.scope import TracedDraft

    return [
        TracedDraft(program.modules[fid[0]], function, draft)
        for fid, function, draft, built in class_calls(program, "getattribute_drafts")
        if built.guards_attributes
    ]
