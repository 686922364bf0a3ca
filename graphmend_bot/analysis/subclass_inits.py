"""`Cls(...)` in traced code, Cls a torch.Tensor subclass of the tree whose `__init__` needs arguments.

Dynamo builds a tensor subclass (variables/tensor.py, `TensorSubclassVariable.call_function`) by
tracing its `__new__` with the call's arguments, then its `__init__` with the new object and the
call's *keyword* arguments only: the positional ones are not passed. An `__init__` that needs a
parameter no keyword gives (`def __init__(self, x, labels)`, pina's `LabelTensor`) fails to bind:
GB7312 "failed to bind arguments when attempting to inline", at the call. `__init__(self, *args, **kwargs)`, one whose parameters all have defaults,
one the keywords bind, and a class with no `__init__` of the tree trace (measured on torch 2.13:
tests/coverage_probes/gb7312_tensor_subclass_init.py, tests/fixtures/rules/GM635_tensor_subclass_init.py).

Judged only for a class deriving from `torch.Tensor` through classes of the tree, with a `__new__`
of the tree or called with one positional argument (torch's `__new__` given more breaks another
way: "Calling subclass default constructor with more than tensor argument"), and no
`__torch_dispatch__` or `__tensor_flatten__` (Dynamo wraps those another way); a call passing
`**mapping` is not judged (its keywords are not known).
"""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import TYPE_CHECKING

from graphmend_bot.analysis.public_api import is_tensor_class
from graphmend_bot.analysis.typed_dicts import keep_buildable

if TYPE_CHECKING:
    from graphmend_bot.analysis.model import ClassSummary, FunctionSummary
    from graphmend_bot.analysis.scope import Program, TracedDraft

# Methods that make Dynamo build the class another way than TensorSubclassVariable (builder.py)
_OTHER_WRAPPERS = ("__torch_dispatch__", "__tensor_flatten__")
UNBOUND = "{unbound}"  # the placeholder GM635's message leaves for the parameters no keyword binds
_POSITIONAL_ONLY = "/"  # a required positional-only parameter: no keyword binds it


def init_binding(node: ast.ClassDef) -> tuple[str, ...] | None:
    """The required parameters after `self` of the class's own `__init__` (a positional-only one
    marked, as no keyword binds it); None when it defines no `__init__`."""
    init = next((s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
    if init is None:
        return None
    args = init.args
    positional = [*args.posonlyargs, *args.args][1:]  # after `self`
    first_default = len(positional) - len(args.defaults)
    required = [
        (_POSITIONAL_ONLY + arg.arg if arg in args.posonlyargs else arg.arg)
        for index, arg in enumerate(positional) if index < first_default
    ]
    required += [arg.arg for arg, default in zip(args.kwonlyargs, args.kw_defaults) if default is None]
    return tuple(required)


def unbound(required: tuple[str, ...], keywords: tuple[str, ...]) -> list[str]:
    """The required parameters of `__init__(obj, **keywords)` the keywords leave unbound. (A keyword
    it has no parameter for raises in eager too, where `__init__` gets the call's arguments.)"""
    return [name.lstrip(_POSITIONAL_ONLY) for name in required if name not in keywords]


def drop_unbuildable(functions: dict[str, FunctionSummary], classes: dict[str, ClassSummary]) -> None:
    """Drop the drafts of calls the module itself resolves to a function or a class with no bases."""
    keep_buildable(functions, classes, "subclass_init_drafts", lambda cls: bool(cls.bases))


def subclass_init_constructions(program: Program) -> list[TracedDraft]:
    """The drafts of traced `Cls(...)` whose tensor subclass's `__init__` the keywords do not bind."""
    from graphmend_bot.analysis.scope import TracedDraft

    found: list[TracedDraft] = []
    for fid in program.traced_in_order():
        function = program.function(fid)
        if not function.subclass_init_drafts or fid[0] in program.dependency_modules:
            continue
        for site, draft in function.subclass_init_drafts:
            call = function.calls[site]
            problems = _unbound_at(program, fid[0], call.ref.partition(":")[2], tuple(k for k, _ in call.kwargs),
                                   len(call.args))
            if problems:
                message = draft.message.replace(UNBOUND, ", ".join(f"`{p}`" for p in problems))
                found.append(TracedDraft(program.modules[fid[0]], function, replace(draft, message=message)))
    return found


def _unbound_at(program: Program, module: str, callee: str, keywords: tuple[str, ...], positional: int) -> list[str]:
    """What keeps the `__init__` of the tensor subclass `callee` names from binding `keywords`;
    [] when it binds, or when `callee` is no tensor subclass of the tree Dynamo builds this way."""
    named = program._resolve_dotted(module, callee)
    if named is None or named[0] != "class" or not is_tensor_class(program, named[1], named[2]):
        return []
    cls = (named[1], named[2])
    if any(program.class_method(*cls, method) for method in _OTHER_WRAPPERS):
        return []
    init, new = program.class_method(*cls, "__init__"), program.class_method(*cls, "__new__")
    if init is None or (new is None and (positional != 1 or keywords)):
        return []  # torch's own `__init__`; torch's `__new__` given more than a tensor breaks otherwise
    binding = program.modules[init[0]].classes[init[1].rpartition(".")[0]].init_binding
    return [] if binding is None else unbound(binding, keywords)
