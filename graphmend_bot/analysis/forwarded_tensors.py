"""Public callables that take a tensor because they hand a parameter on to one that does.

A loss object's `__call__(self, y_pred, **kwargs)` names no tensor: it returns `self.fdm(u=y_pred)`,
whose `u` reaches `FiniteDiff.dx(u)`, documented as `u : torch.Tensor` (neuralop's equation
losses). What a parameter is handed to says what it is: a parameter passed (as itself or a value
computed from it) to a parameter of a function that takes a tensor there takes one too. A function
takes a tensor at a parameter seeded as one (annotated) or that its body uses or its docstring
documents as one (tensor_uses.tensor_param_names), or where its callers hand one on, by this rule.
Handing on only Python values (`describe(n)` calling `g(x, order=n)`, `get_rho(sigma, delta)`
taking `delta`, a scale) takes none, nor does a parameter of the caller seeded as one (`batch_size: int`
mixed into a tensor argument). The least fixpoint over the calls of the candidates and what they
reach, so a cycle proves nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from graphmend_bot.analysis.model import CallSite, FunctionSummary
    from graphmend_bot.analysis.scope import FunctionId, Program
    from graphmend_bot.vocabulary.kind import Kind


def forwarding_tensors(program: Program, candidates: Iterable[FunctionId]) -> set[FunctionId]:
    """Those of `candidates` that hand a parameter on to a tensor parameter, directly or through
    what they call (module docstring)."""
    starts = list(candidates)
    edges: dict[FunctionId, list[tuple[CallSite, FunctionId]]] = {}
    pending = list(starts)
    while pending:  # the candidates and what their calls reach
        fid = pending.pop()
        if fid in edges:
            continue
        function = program.function(fid)
        # Not into a constructor: storing a value is no use of it as a tensor (a loader hands its
        # paths and sizes to a dataset's `__init__`, whose docstring names the tensors it loads).
        edges[fid] = [(site, callee) for index, site in enumerate(function.calls) if site.args or site.kwargs
                      for callee in program.call_targets_at(fid, index) if callee[1].rpartition(".")[2] != "__init__"]
        pending.extend(callee for _, callee in edges[fid])
    taking: dict[FunctionId, set[str]] = {
        fid: params for fid in edges if (params := _tensor_params(program.function(fid)))
    }
    grown = True
    while grown:
        grown = False
        for fid, sites in edges.items():
            function = program.function(fid)
            own = {name for name in function.params if function.param_seeds.get(name) is not False}
            found = {
                name
                for site, callee in sites if callee in taking
                for param, kind in _bound(program, site, callee) if param in taking[callee]
                for name in kind.params & own
            }
            known = taking.get(fid, set())
            if not found <= known:
                taking[fid] = known | found
                grown = True
    return {fid for fid in starts if fid in taking}


def _tensor_params(function: FunctionSummary) -> set[str]:
    """The parameters seeded, used or documented as tensors."""
    return {name for name in function.params if function.param_seeds.get(name)} | set(function.tensor_params)


def _bound(program: Program, site: CallSite, callee: FunctionId) -> list[tuple[str, Kind]]:
    """(parameter, kind passed) at `site`, by position and keyword (`*args` and `**kwargs` left out)."""
    function = program.function(callee)
    params = function.params
    if program.first_param_implicit(site, callee):
        params = params[1:]
    star = params.index(function.vararg) if function.vararg in params else len(params)
    return [*zip(params[:star], site.args), *site.kwargs]
