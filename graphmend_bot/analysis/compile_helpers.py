"""A package's own compile helpers, and what it compiles with them: compiled roots.

heavyball compiles its kernels through `@decorator_knowngood`, whose wrapper calls
`fusions.compile(func, ...)`, which calls `torch.compile(fn, backend=...)`; its optimizers compile
their step with `self._run_chain = utils.fusions.compile(self._run_chain)`. Dynamo traces what
those helpers are given as it traces `@torch.compile` functions (measured on torch 2.13, as a
plain call and under an outer compile, where such wrappers call the function itself), so:

- the summary records, in a file that mentions compile, the calls a function gives one of its own
  parameters or an enclosing function's (ModuleSummary.parameter_passes), and the calls given a
  function of the module, an imported name or `self.METHOD` (ModuleSummary.handed_functions);
- a function compiles a parameter when it passes it to `torch.compile` (first place, or `model=`)
  or to a function compiling that place (compiling_places: a fixpoint over the tree);
- a function decorated with such a helper, or with a factory returning one (`@jit(mode=...)`), is a
  compiled root, and so is the function or method handed to one (helper_compiled_roots).

Such a root is no declared entry: its parameters are what its callers in the tree pass, not
tensors by assumption. heavyball's kernels are called by the package with Python flags
(`caution`, `precondition_1d`, `mu`), which taken for tensors made eight findings on its branches
and `math.log1p(mu)` (lines the wild corpus's calls never ran, so not measured; the values there are
Python's); their tensors are annotated (`List[Tensor]`).

A helper defined in a file that never says "compile" is not seen (its forwards are not recorded):
every helper of a chain lies in a file that names `torch.compile` or calls a helper that does.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from graphmend_bot.analysis.local_nodes import local_nodes

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import FunctionId, Program

# (function binding the parameter, the parameter, the callee as resolved or written, place or keyword)
ParameterPass = tuple[str, str, str, str]
# (function the call is in, "" at module level; the callee; place or keyword; "self.NAME" or the name)
HandedFunction = tuple[str, str, str, str]

_COMPILE = "torch.compile"
_COMPILED_PLACES = frozenset({"0", "model"})  # torch.compile(model, ...)


def parameter_names(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    args = node.args
    names = [arg.arg for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    return names + [arg.arg for arg in (args.vararg, args.kwarg) if arg is not None]


def _arguments(call: ast.Call) -> list[tuple[str, ast.expr]]:
    """(place or keyword, value) of each argument before the first `*args`."""
    places: list[tuple[str, ast.expr]] = []
    for index, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            break
        places.append((str(index), arg))
    return places + [(keyword.arg, keyword.value) for keyword in call.keywords if keyword.arg is not None]


def function_calls(
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    qualname: str,
    owners: Mapping[str, str],
    handable: Callable[[ast.expr], str | None],
    helper: Callable[[ast.Call], str | None],
) -> tuple[list[ParameterPass], list[HandedFunction]]:
    """The calls of `node`'s own body (nested scopes have their own) given a parameter (`owners`:
    each parameter name in scope -> the function binding it), or a function `handable` names.
    `helper`: the callee a call names, when it may be torch.compile or a helper of the tree."""
    passes: list[ParameterPass] = []
    handed: list[HandedFunction] = []
    for call in local_nodes(node.body):
        if isinstance(call, ast.Call):
            passes_in, handed_in = call_arguments(call, qualname, owners, handable, helper)
            passes += passes_in
            handed += handed_in
    return passes, handed


def call_arguments(
    call: ast.Call,
    qualname: str,
    owners: Mapping[str, str],
    handable: Callable[[ast.expr], str | None],
    helper: Callable[[ast.Call], str | None],
) -> tuple[list[ParameterPass], list[HandedFunction]]:
    """What one call is given: parameters in scope, and functions `handable` names."""
    arguments = _arguments(call)
    if not arguments:
        return [], []
    callee = helper(call)
    if callee is None:
        return [], []
    passes: list[ParameterPass] = []
    handed: list[HandedFunction] = []
    for place, value in arguments:
        if isinstance(value, ast.Name) and value.id in owners:
            passes.append((owners[value.id], value.id, callee, place))
        elif (name := handable(value)) is not None:
            handed.append((qualname, callee, place, name))
    return passes, handed


def compiling_places(program: Program) -> dict[FunctionId, frozenset[str]]:
    """Each function of the tree that compiles what it is given -> the places and keywords of
    those parameters. Memoised on the program by the caller."""
    passes = [
        (module, record)
        for module, summary in program.modules.items()
        if module not in program.dependency_modules
        for record in summary.parameter_passes
    ]
    places: dict[FunctionId, set[str]] = {}
    changed = True
    while changed:  # a helper calling a helper: each round adds the callers of the last ones found
        changed = False
        for module, (owner, param, callee, place) in passes:
            fid = (module, owner)
            if fid not in program._functions or not _compiles(program, places, module, callee, place):
                continue
            own = _places_of(program, fid, param)
            if not own <= places.setdefault(fid, set()):
                places[fid] |= own
                changed = True
    return {fid: frozenset(found) for fid, found in places.items() if found}


def _places_of(program: Program, fid: FunctionId, param: str) -> set[str]:
    """The keyword and, for a positional parameter, the place (past a method's object) of `param`."""
    function = program.function(fid)
    found = {param}
    if param in function.params and param != function.vararg:
        index = function.params.index(param)
        bound = function.class_qualname is not None and "staticmethod" not in function.decorators
        if index >= int(bound):
            found.add(str(index - int(bound)))
    return found


def _compiles(
    program: Program,
    places: Mapping[FunctionId, set[str] | frozenset[str]],
    module: str,
    callee: str,
    place: str,
) -> bool:
    """Whether `callee`, called from `module`, compiles what it is given at `place`."""
    if callee == _COMPILE:
        return place in _COMPILED_PLACES
    found = program._resolve_dotted(module, callee)
    return found is not None and found[0] == "function" and place in places.get((found[1], found[2]), ())


def helper_compiled_roots(program: Program) -> set[FunctionId]:
    """The functions the tree compiles through its own helpers (module docstring)."""
    places = compiling_places(program)
    roots: set[FunctionId] = set()
    for module, summary in program.modules.items():
        if module in program.dependency_modules:
            continue
        if places:
            for qualname, function in summary.functions.items():
                if any(
                    _compiling_decorator(program, places, module, decorator)
                    for decorator in function.decorators
                ):
                    roots.add((module, qualname))
        for in_function, callee, place, name in summary.handed_functions:
            if _compiles(program, places, module, callee, place):
                roots.update(_handed(program, module, in_function, name))
    return roots


def _compiling_decorator(
    program: Program, places: Mapping[FunctionId, frozenset[str]], module: str, decorator: str
) -> bool:
    """`@helper` compiling its first argument, or `@factory(...)` returning a nested one that does."""
    found = program._resolve_dotted(module, decorator)
    if found is None or found[0] != "function":
        return False
    fid = (found[1], found[2])
    returned = [(fid[0], f"{fid[1]}.{name}") for name in program.function(fid).returned_functions]
    return any("0" in places.get(candidate, ()) for candidate in (fid, *returned))


def _handed(program: Program, module: str, in_function: str, name: str) -> list[FunctionId]:
    """What `name` handed to a compiling helper in `in_function` runs: `self.METHOD` the method of
    the function's class (and its overrides), else the function the name resolves to."""
    if name.startswith("self."):
        fid = (module, in_function)
        own = program.self_class(fid) if fid in program._functions else None
        if own is None:
            return []
        method = program._method(module, own, name[len("self.") :])
        return [*([method] if method else []), *program._overrides(module, own, name[len("self.") :])]
    found = program._resolve_dotted(module, name)
    return [(found[1], found[2])] if found is not None and found[0] == "function" else []
