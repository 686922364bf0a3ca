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

The other way round, a block under `if p is not None:` or `if p:` (`p` with a falsy default,
parameter_guards.py) runs only on a call passing a truthy value: `generator.manual_seed(0)` under
`if generator is not None:` breaks (GB7650) only then. When every call seen leaves `p` at its
default or passes None (or another falsy literal for `if p:`), and all calls are seen, the drafts
of the block are dropped (`dead_guards`; FunctionSummary.falsy_arguments per call site).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from graphmend_bot.analysis.model import CallSite, FunctionSummary
from graphmend_bot.analysis.parameter_guards import passed_arguments
from graphmend_bot.vocabulary.kind import Kind

if TYPE_CHECKING:
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
    """Record the valued and the falsy literal arguments of call site `site`, one that may call the
    tree's code (None for the latter when a `*args` or `**kwargs` hides what it passes)."""
    if slots := valued_slots(call):
        summary.valued_arguments[site] = slots
    passed = passed_arguments(call)
    if passed is None:
        summary.falsy_arguments[site] = None
    elif falsy := tuple((slot, literal) for slot, literal in passed if literal):
        summary.falsy_arguments[site] = falsy


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


class CallsSeen:
    """Every call of some traced functions the analysis sees, or None where their callers are not all
    seen: an entry point, a function used as a value or under an unknown decorator, or one a file the
    analysis did not read imports."""

    def __init__(self, solver: _TensorFlow, fids: set[FunctionId]) -> None:
        from graphmend_bot.analysis.caller_arguments import CallerArguments

        self.solver = solver
        program = solver.program
        self._arguments = CallerArguments(program, solver, program.unread_imports)
        self._uses = self._arguments._value_uses(fids) if fids else {}
        self._entries = program.entry_points() if fids else set()
        self._untraced: dict[FunctionId, list[tuple[FunctionId, CallSite]]] = {}
        for caller, site, callee in solver.untraced_callers.calling(fids) if fids else ():
            self._untraced.setdefault(callee, []).append((caller, site))

    def sites(self, fid: FunctionId) -> list[tuple[FunctionSummary, int, CallSite]] | None:
        """(calling function, site index, site) of every call of `fid`; None when not all are seen."""
        if fid in self._entries or fid in self._uses or self._arguments._unread_importer(fid) is not None:
            return None
        program = self.solver.program
        found = [
            (function, index, site)
            for caller in sorted(self.solver.callers.get(fid, ()))
            for function in (program.function(caller),)
            for index, site in enumerate(function.calls)
            if fid in self.solver.targets.get((caller, index), ())
        ]
        for caller, site in self._untraced.get(fid, ()):
            function = program.function(caller)
            found.append((function, function.calls.index(site), site))
        return found or None


def gates(solver: _TensorFlow, seen: CallsSeen) -> dict[FunctionId, list[tuple[str, Kind]]]:
    """For each traced function with fallbacks, (pseudo-parameter, the fallback's kind) of those
    some call may leave None: the solver makes the pseudo-parameter a tensor when the kind holds."""
    program = solver.program
    found: dict[FunctionId, list[tuple[str, Kind]]] = {}
    for fid in solver.traced:
        if fallbacks := program.function(fid).none_fallbacks:
            sites = seen.sites(fid)
            found[fid] = [(fallback_name(parameter), kind) for parameter, kind in fallbacks
                          if sites is None or any(_may_leave_none(solver, fid, parameter, *site) for site in sites)]
    return found


def dead_guards(solver: _TensorFlow, seen: CallsSeen) -> dict[FunctionId, list[tuple[int, int]]]:
    """For each traced function, the rows of its `if p is not None:` / `if p:` blocks (p with a
    falsy default, parameter_guards.py) that no call runs: every call the analysis sees leaves `p`
    at its default or passes None (or, for `if p:`, another falsy literal), and it sees them all."""
    program = solver.program
    found: dict[FunctionId, list[tuple[int, int]]] = {}
    for fid in solver.traced:
        if guards := program.function(fid).default_guards or program.function(fid).param_guards:
            sites = seen.sites(fid)
            rows = [(first, last) for name, _, tests_none, first, last in guards
                    if sites is not None and all(_leaves_falsy(solver, fid, name, tests_none, *site) for site in sites)]
            if rows:
                found[fid] = rows
    return found


def _may_leave_none(solver: _TensorFlow, callee: FunctionId, parameter: str,
                    function: FunctionSummary, index: int, site: CallSite) -> bool:
    bound, slot = _slot_of(solver, site, callee, parameter)
    return not bound or slot not in function.valued_arguments.get(index, ())


def _leaves_falsy(solver: _TensorFlow, callee: FunctionId, parameter: str, tests_none: bool,
                  function: FunctionSummary, index: int, site: CallSite) -> bool:
    if index in function.falsy_arguments and function.falsy_arguments[index] is None:
        return False  # `f(*args)`, `f(**kwargs)`: what it passes is not seen
    bound, slot = _slot_of(solver, site, callee, parameter)
    if not bound:
        return True
    literal = dict(function.falsy_arguments.get(index) or ()).get(slot, "") if slot is not None else ""
    return literal == "none" or (literal == "falsy" and not tests_none)


def _slot_of(solver: _TensorFlow, site: CallSite, callee: FunctionId, parameter: str) -> tuple[bool, int | str | None]:
    """(whether `site` binds `parameter` of `callee`, the position or keyword that does: None when
    several do, a `*args`), as the solver binds them."""
    marked = CallSite(site.ref, tuple(Kind.of_param(f"#{index}") for index in range(len(site.args))),
                      tuple((name, Kind.of_param(f"#{name}")) for name, _ in site.kwargs), site.bound, site.row)
    kind = solver._bind_arguments(marked, callee).get(parameter)
    if kind is None:
        return False, None
    if len(kind.params) != 1:
        return True, None
    (mark,) = kind.params
    slot = mark[1:]
    return True, int(slot) if slot.isdigit() else slot
