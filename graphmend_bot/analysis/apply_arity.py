"""What each parameter of a static autograd `forward` receives when Dynamo binds `Fn.apply(...)`
one place over: the solver's side of vocabulary/apply_binding.py, which says when and why."""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphmend_bot.vocabulary.apply_binding import shifted

if TYPE_CHECKING:
    from graphmend_bot.analysis.model import CallSite, FunctionSummary
    from graphmend_bot.vocabulary.kind import Kind


def shifted_arguments(function: FunctionSummary, site: CallSite) -> dict[str, Kind]:
    """What each named parameter after `ctx` of the static autograd `forward` receives at `site`
    when Dynamo binds the call one place over; {} when the counts differ, `forward` has no `*args`
    (without it a call of that count raises in eager too), or the call passes keywords (Dynamo
    binds those before it counts)."""
    if function.vararg is None or site.kwargs or len(site.args) != len(function.params):
        return {}
    named = function.params[1 : function.params.index(function.vararg)]
    passed = {shifted(name): site.args[index] for index, name in enumerate(named, start=1)}
    if site.args[0].nonempty:
        passed.update({shifted(name, True): site.args[index] for index, name in enumerate(named, start=1)})
    return passed
