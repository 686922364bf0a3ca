"""Classes whose metaclass guards attribute access, and the classmethods Dynamo cannot reach on them.

Measured on torch 2.13 (tests/coverage_probes/gb5458_metaclass_getattribute.py): when a class's
metaclass defines `__getattribute__`, Dynamo refuses to look up a classmethod on the class
(`Cls.make(x)` breaks with GB5458), its own or one it inherits; reading a plain class attribute,
a staticmethod or a function traces. Read from one module: the class, its metaclass and the
bases that give it the metaclass or the classmethod are the module's own classes.
"""

from __future__ import annotations

import ast

from graphmend_bot.vocabulary.dotted_names import dotted_name


def guarded_class_methods(tree: ast.Module) -> frozenset[str]:
    """`Cls.method` for each classmethod a module-level class whose metaclass (a class of the
    module, or one derived from it there) defines `__getattribute__` has or inherits in the module."""
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    guarding: set[str] = set()  # metaclasses defining __getattribute__, and their subclasses
    guarded: dict[str, set[str]] = {}  # class -> its classmethods, inherited ones too
    for node in classes.values():  # in source order: a base comes before the classes deriving from it
        bases = [base.id for base in node.bases if isinstance(base, ast.Name)]
        if _defines(node, "__getattribute__") or any(base in guarding for base in bases):
            guarding.add(node.name)
        meta = next((k.value for k in node.keywords if k.arg == "metaclass"), None)
        if (isinstance(meta, ast.Name) and meta.id in guarding) or any(base in guarded for base in bases):
            inherited = set().union(
                *(guarded.get(base, _classmethods(classes[base])) for base in bases if base in classes)
            )
            guarded[node.name] = inherited | _classmethods(node)
    return frozenset(f"{name}.{method}" for name, methods in guarded.items() for method in methods)


def _defines(node: ast.ClassDef, name: str) -> bool:
    return any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == name for s in node.body)


def _classmethods(node: ast.ClassDef) -> set[str]:
    return {
        s.name
        for s in node.body
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
        and any(dotted_name(d) == "classmethod" for d in s.decorator_list)
    }
