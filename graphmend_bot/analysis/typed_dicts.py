"""TypedDicts with optional keys, and the traced calls that build one: Dynamo cannot.

Measured on torch 2.13 (tests/coverage_probes/gb0257_typed_dict_optional_keys.py): calling a
TypedDict class whose `__optional_keys__` is not empty breaks with GB0257; one whose keys are all
required builds as a dict. A key is optional under `total=False` (the class's own keys) or when
annotated `NotRequired[...]`, and a subclass inherits its bases' optional keys (bases of the same
module: a subclass of an imported TypedDict is not judged). The summary marks such classes
(`ClassSummary.optional_keys`); the traversal drafts each call of a capitalized name, the summary
drops those the module itself resolves to anything else (`drop_unbuildable`), and
`typed_dict_constructions` keeps those of traced functions that resolve to a marked class, in the
module or imported from another.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from graphmend_bot.analysis.model import ClassSummary, Draft, FunctionSummary
    from graphmend_bot.analysis.scope import FunctionId, Program, TracedDraft

Resolve = Callable[[ast.expr], "str | None"]
_TYPED_DICT = frozenset({"typing.TypedDict", "typing_extensions.TypedDict"})
_NOT_REQUIRED = frozenset({"typing.NotRequired", "typing_extensions.NotRequired"})


def optional_keys(node: ast.ClassDef, resolve: Resolve, typed_dicts: dict[str, bool]) -> bool | None:
    """Whether `node`, a TypedDict, has optional keys; None when it is no TypedDict. `typed_dicts`:
    this module's TypedDicts so far, by name, with the same answer."""
    bases = [typed_dicts.get(base.id) if isinstance(base, ast.Name) else None for base in node.bases]
    if not any(resolve(base) in _TYPED_DICT for base in node.bases) and all(b is None for b in bases):
        return None
    own = _annotations(node)
    return (
        any(bases)
        or (_total_false(node.keywords) and bool(own))
        or any(_not_required(statement.annotation, resolve) for statement in own)
    )


def functional_has_optional_keys(value: ast.expr, resolve: Resolve) -> bool:
    """`TypedDict("Name", {"key": int}, total=False)` with at least one key."""
    return (
        isinstance(value, ast.Call)
        and resolve(value.func) in _TYPED_DICT
        and len(value.args) == 2
        and isinstance(value.args[1], ast.Dict)
        and bool(value.args[1].keys)
        and (_total_false(value.keywords)
             or any(_not_required(annotation, resolve) for annotation in value.args[1].values))
    )


def _total_false(keywords: list[ast.keyword]) -> bool:
    return any(k.arg == "total" and isinstance(k.value, ast.Constant) and k.value.value is False for k in keywords)


def _annotations(node: ast.ClassDef) -> list[ast.AnnAssign]:
    return [s for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]


def _not_required(annotation: ast.expr, resolve: Resolve) -> bool:
    """`NotRequired[int]`, also inside `Annotated[...]`; a string annotation is not read."""
    if not isinstance(annotation, ast.Subscript):
        return False
    if resolve(annotation.value) in _NOT_REQUIRED:
        return True
    inner = annotation.slice.elts[0] if isinstance(annotation.slice, ast.Tuple) and annotation.slice.elts else annotation.slice
    return inner is not annotation and _not_required(inner, resolve)


def drop_unbuildable(functions: dict[str, FunctionSummary], classes: dict[str, ClassSummary]) -> None:
    """Drop the drafts of calls that cannot build a TypedDict with optional keys: the callee's name
    is a function of the module or a class of it without them. `typed_dict_constructions` resolves
    the name in the module first (scope._defined_here: its functions, then its classes), so those
    drafts never stand; workers otherwise send the parent one per `Layer(...)` call (two thirds of
    the 15,000 such drafts on transformers)."""
    keep_buildable(functions, classes, "typed_dict_drafts", lambda cls: cls.optional_keys)


def keep_buildable(functions: dict[str, FunctionSummary], classes: dict[str, ClassSummary], drafts: str,
                   marked: Callable[[ClassSummary], bool]) -> None:
    """Keep, in each function's list `drafts` of (call site, draft), those whose callee's name the
    module does not resolve to its own function or to a class of it that is not `marked`."""
    for function in functions.values():
        if getattr(function, drafts):
            setattr(function, drafts, [
                (site, draft) for site, draft in getattr(function, drafts)
                if _may_build(function.calls[site].ref.partition(":")[2], functions, classes, marked)
            ])


def _may_build(name: str, functions: dict[str, FunctionSummary], classes: dict[str, ClassSummary],
               marked: Callable[[ClassSummary], bool]) -> bool:
    if name in functions:
        return False
    return name not in classes or marked(classes[name])


def typed_dict_constructions(program: Program) -> list[TracedDraft]:
    """The drafts of traced calls that build a TypedDict with optional keys."""
    from graphmend_bot.analysis.scope import TracedDraft

    return [TracedDraft(program.modules[fid[0]], function, draft)
            for fid, function, draft, built in class_calls(program, "typed_dict_drafts") if built.optional_keys]


def class_calls(program: Program, drafts: str) -> Iterator[tuple[FunctionId, FunctionSummary, Draft, ClassSummary]]:
    """(function, its function summary, draft, the class called) of the drafts of the list `drafts`
    in traced functions of the tree whose call names a class of the tree, in the module or imported."""
    for fid in program.traced_in_order():
        function = program.function(fid)
        if not getattr(function, drafts) or fid[0] in program.dependency_modules:
            continue
        for site, draft in getattr(function, drafts):
            # the class the call names: a factory returning one builds it in its own frame, where it is reported
            named = program._resolve_dotted(fid[0], function.calls[site].ref.partition(":")[2])
            if named is not None and named[0] == "class":
                yield fid, function, draft, program.modules[named[1]].classes[named[2]]
