"""Classes and functions an object is given when it is built, and calls it later.

DeepXDE builds `jacobian._Jacobians = Jacobians(JacobianReverse)` at import time; Jacobians keeps
the class (`self.JacobianClass = JacobianClass`), builds `self.Js[key] = self.JacobianClass(ys,
xs)` and calls `self.Js[key](i, j)`: JacobianReverse.__call__ runs, and Dynamo traces it (measured
on torch 2.13). transformers' Cache is given `layer_class_to_replicate=DynamicLayer` by a
subclass's `super().__init__(...)`. What the object holds is the name its builders pass:

- the summary records `self.NAME = PARAM` of an `__init__` parameter (ClassSummary.given: NAME ->
  the parameter's place after `self` and its name), and every `Cls(..., Name, key=Name)` or
  `super().__init__(...)` passing a name of the module or of an import
  (ModuleSummary.given_arguments);
- the scope solver (scope.Program.given_values) resolves the builders that reach that `__init__`
  and the names they pass at that place or by that keyword. A builder passing anything else (a
  local, a parameter of its own) adds nothing: an under-approximation, as explicit calls are.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from graphmend_bot.vocabulary.dotted_names import dotted_name

# (callee as written, resolved through the imports, or "super:CLASS" for `super().__init__` in a
# method of CLASS; the argument's place ("0") or keyword; the name passed, resolved likewise)
GivenArgument = tuple[str, str, str]


def init_parameter(init: ast.FunctionDef, value: ast.expr) -> tuple[int, str] | None:
    """(place after `self`, name) when `value` is a plain parameter of `init` (not `*args`)."""
    if not isinstance(value, ast.Name):
        return None
    positional = [arg.arg for arg in (*init.args.posonlyargs, *init.args.args)][1:]
    if value.id in positional:
        return positional.index(value.id), value.id
    if value.id in (arg.arg for arg in init.args.kwonlyargs):
        return -1, value.id  # keyword only: matched by name alone
    return None


def construction_arguments(
    call: ast.Call, resolve: Callable[[ast.expr], str | None], method_class: str | None
) -> list[tuple[GivenArgument, bool]]:
    """The names `call` passes when it builds an object: `Cls(Name, key=mod.Name)` on a
    capitalised callee (a class as written), or `super().__init__(...)` in a method of
    `method_class`, each with whether the imports resolved its name. Names only; which of them
    are classes or functions the solver decides."""
    # The callee first: most calls build no object (`self.proj(x)`), and their arguments need no look.
    func = call.func
    written: str | None = None
    if (
        isinstance(func, ast.Attribute)
        and func.attr == "__init__"
        and isinstance(func.value, ast.Call)
        and dotted_name(func.value.func) == "super"
    ):
        if method_class is None:
            return []
    else:
        written = dotted_name(func)
        if written is None or not written.rpartition(".")[2][:1].isupper():
            return []
    slots = [(str(index), arg) for index, arg in enumerate(call.args) if isinstance(arg, (ast.Name, ast.Attribute))]
    slots += [(keyword.arg, keyword.value) for keyword in call.keywords
              if keyword.arg is not None and isinstance(keyword.value, (ast.Name, ast.Attribute))]
    if not slots:
        return []  # `Block()`, `Cls(x + 1)`: no name given, nothing to resolve (summaries stay cheap)
    callee = f"super:{method_class}" if written is None else resolve(func) or written
    return [
        ((callee, slot, qualified or name), qualified is not None)
        for slot, value in slots
        if (name := dotted_name(value)) is not None
        for qualified in (resolve(value),)
    ]


def module_names_only(
    found: list[tuple[GivenArgument, bool]], defined: set[str]
) -> tuple[GivenArgument, ...]:
    """Those of `found` whose name the imports resolved or whose head the module defines at its
    top level: a local or a parameter (`config.hidden_size`) names no class or function the
    solver can find."""
    return tuple(given for given, imported in found if imported or given[2].partition(".")[0] in defined)
