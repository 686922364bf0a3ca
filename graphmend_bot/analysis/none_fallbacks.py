"""A None-defaulted parameter's fallback counts only when some call leaves the parameter None.

`def mask(self, lengths, maxlen=None): if maxlen is None: maxlen = lengths.max()` then
`torch.arange(0, maxlen)`: with `maxlen` left None the fallback is a 0-d tensor and Dynamo breaks
at `torch.arange` (GB0033); when every call passes a number (`self.mask(x, maxlen=x.shape[1])`)
the fallback never runs, `maxlen` is a Python int and the line traces (measured on torch 2.13:
tests/test_none_fallbacks.py).

The summary walks the `if p is None:` block as usual, then gives `p` after it, on that arm, the
kind of a pseudo-parameter (`fallback_name(p)`) instead of what the block assigned, and records
that kind (FunctionSummary.none_fallbacks). The solver makes the pseudo-parameter a tensor when the
fallback's kind holds and some call may leave `p` None (`leaves_none`): a call that does not pass
it, or passes something that may be None (a name, an attribute, a call, a literal None); a
function that is an entry point, used as a value, under an unknown decorator, or imported by a file
the analysis did not read (its callers are not all seen). Only the arguments written as values
that are never None (`x.shape[1]`, `4`, `n + 1`, `len(xs)`) are recorded per call site
(FunctionSummary.valued_arguments, `valued_slots`); anything else is taken as possibly None.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from graphmend_bot.analysis.model import CallSite, FunctionSummary
from graphmend_bot.vocabulary.kind import Kind

if TYPE_CHECKING:
    from graphmend_bot.analysis.caller_arguments import CallerArguments
    from graphmend_bot.analysis.scope import FunctionId, _TensorFlow

_SUFFIX = "?fallback"  # no identifier holds it: the pseudo-parameter never meets a real one
# Builtins returning a value, never None, whatever they are given.
_VALUED_BUILTINS = frozenset({"int", "float", "bool", "str", "len", "tuple", "list", "dict", "set", "abs", "round",
                              "max", "min", "sum", "range", "slice"})
# Tensor methods returning a number, a size or a tensor, never None.
_VALUED_METHODS = frozenset({"size", "dim", "numel", "item", "shape"})
_VALUED_NODES = (ast.BinOp, ast.UnaryOp, ast.Compare, ast.List, ast.Tuple, ast.Dict, ast.Set, ast.ListComp,
                 ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.JoinedStr, ast.Lambda)


def fallback_name(parameter: str) -> str:
    """The pseudo-parameter holding what `if parameter is None:` assigns it."""
    return parameter + _SUFFIX


def tested_parameter(node: ast.If, function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> str | None:
    """`p` of an `if p is None:` without an `else` whose block rebinds `p`, `p` a parameter of
    `function` defaulting to None."""
    test = node.test
    if node.orelse or not (
        isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Is) and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
    ):
        return None
    name = test.left.id
    if not any(isinstance(target, ast.Name) and target.id == name for statement in node.body
               if isinstance(statement, (ast.Assign, ast.AnnAssign)) for target in _targets(statement)):
        return None
    return name if name in _none_defaulted(function.args) else None


def expanded(kind: Kind, function: FunctionSummary) -> Kind:
    """`kind` with each pseudo-parameter of `function` replaced by its fallback's kind, whatever the
    callers pass: in code nothing traces, judged without a solve (hierarchy.py, untraced_callers.py)."""
    if not function.none_fallbacks or not kind.params:
        return kind
    fallbacks = {fallback_name(parameter): fallback for parameter, fallback in function.none_fallbacks}
    pseudo = [name for name in kind.params if name in fallbacks]
    if not pseudo:
        return kind
    rest = Kind(kind.always, kind.params.difference(pseudo), kind.calls, kind.boolean, kind.data_dependent_bool)
    return Kind.union([rest, *(fallbacks[name] for name in pseudo)])


def record(summary: FunctionSummary, parameter: str, env: dict[str, Kind]) -> None:
    """After `if parameter is None:`'s block ran on `env`: the kind it assigned is recorded, and
    the parameter holds the pseudo-parameter there instead."""
    kind = env.get(parameter)
    if kind is None or not kind.nonempty:
        return
    recorded = dict(summary.none_fallbacks)
    recorded[parameter] = recorded[parameter] | kind if parameter in recorded else kind
    summary.none_fallbacks = tuple(recorded.items())
    env[parameter] = Kind(params=frozenset({fallback_name(parameter)}), boolean=kind.boolean,
                          data_dependent_bool=kind.data_dependent_bool)


def _targets(statement: ast.Assign | ast.AnnAssign) -> list[ast.expr]:
    return statement.targets if isinstance(statement, ast.Assign) else [statement.target]


def _none_defaulted(args: ast.arguments) -> set[str]:
    positional = [*args.posonlyargs, *args.args]
    pairs = [*zip(positional[len(positional) - len(args.defaults):], args.defaults),
             *((arg, default) for arg, default in zip(args.kwonlyargs, args.kw_defaults) if default is not None)]
    return {arg.arg for arg, default in pairs if isinstance(default, ast.Constant) and default.value is None}


def valued_slots(call: ast.Call) -> tuple[int | str, ...]:
    """The positions and keywords of `call`'s arguments written as values that are never None;
    () when a `*args` or `**kwargs` hides what the others bind to."""
    if any(isinstance(arg, ast.Starred) for arg in call.args) or any(k.arg is None for k in call.keywords):
        return ()
    found: list[int | str] = [index for index, arg in enumerate(call.args) if _valued(arg)]
    found += [keyword.arg for keyword in call.keywords if keyword.arg is not None and _valued(keyword.value)]
    return tuple(found)


def note_site(summary: FunctionSummary, site: int, call: ast.Call) -> None:
    """Record the valued arguments of call site `site`, one that may call the tree's code."""
    if slots := valued_slots(call):
        summary.valued_arguments[site] = slots


def _valued(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return node.value is not None
    if isinstance(node, _VALUED_NODES):
        return True
    if isinstance(node, ast.Subscript):  # `x.shape[1]`, `x.size()[0]`: a size; `caches[i]` may be None
        return _valued(node.value) and not isinstance(node.value, (ast.Dict, ast.List, ast.Tuple))
    if isinstance(node, ast.Attribute):
        return node.attr == "shape"
    if isinstance(node, ast.Call):
        func = node.func
        return (isinstance(func, ast.Name) and func.id in _VALUED_BUILTINS) or (
            isinstance(func, ast.Attribute) and func.attr in _VALUED_METHODS)
    return False


def gates(solver: _TensorFlow) -> dict[FunctionId, list[tuple[str, Kind]]]:
    """For each traced function with fallbacks, (pseudo-parameter, the fallback's kind) of those
    some call may leave None: the solver makes the pseudo-parameter a tensor when the kind holds."""
    from graphmend_bot.analysis.caller_arguments import CallerArguments

    program = solver.program
    candidates = {fid: fallbacks for fid in solver.traced if (fallbacks := program.function(fid).none_fallbacks)}
    if not candidates:
        return {}
    callers = CallerArguments(program, solver, program.unread_imports)
    uses = callers._value_uses(set(candidates))
    entries = program.entry_points()
    return {fid: [(fallback_name(parameter), kind) for parameter, kind in fallbacks
                  if leaves_none(solver, callers, fid, parameter, uses, entries)]
            for fid, fallbacks in candidates.items()}


def leaves_none(solver: _TensorFlow, callers: CallerArguments, fid: FunctionId, parameter: str,
                value_uses: dict[FunctionId, str], entries: set[FunctionId]) -> bool:
    """Whether some call of traced `fid` may leave `parameter` None (or its callers are not all seen)."""
    if fid in entries or fid in value_uses or callers._unread_importer(fid) is not None:
        return True
    program = solver.program
    sites: list[tuple[FunctionId, int, CallSite]] = [
        (caller, index, program.function(caller).calls[index])
        for (caller, index), targets in solver.targets.items() if fid in targets
    ]
    untraced = [(caller, site) for caller, site, callee in solver.untraced_callers.calling({fid}) if callee == fid]
    if not sites and not untraced:
        return True
    for caller, site in [*((caller, site) for caller, _, site in sites), *untraced]:
        index = program.function(caller).calls.index(site)
        valued = program.function(caller).valued_arguments.get(index, ())
        slot = _slot_of(solver, site, fid, parameter)
        if slot is None or slot not in valued:
            return True
    return False


def _slot_of(solver: _TensorFlow, site: CallSite, callee: FunctionId, parameter: str) -> int | str | None:
    """The position or keyword of `site` that binds `parameter` of `callee`, as the solver binds them."""
    marked = CallSite(site.ref, tuple(Kind.of_param(f"#{index}") for index in range(len(site.args))),
                      tuple((name, Kind.of_param(f"#{name}")) for name, _ in site.kwargs), site.bound, site.row)
    kind = solver._bind_arguments(marked, callee).get(parameter)
    if kind is None or len(kind.params) != 1:
        return None
    (mark,) = kind.params
    slot = mark[1:]
    return int(slot) if slot.isdigit() else slot
