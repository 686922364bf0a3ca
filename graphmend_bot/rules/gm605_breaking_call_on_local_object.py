"""GM605 breaking-call-on-local-object: its documentation, in one place with how it is detected.

The traversal asks at each `obj.method()` on an object built in the same function; the scope
solver keeps the finding when the method, or what it calls, has a finding (analysis/scope.py), and
names the mode when every such finding off an error branch names the same one: the call breaks
only in that mode (analysis/callee_modes.py)."""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule


def _method_of_local_object(rule: Rule, checker: Checker, call: ast.Call, method: str) -> None:
    """Measured on torch 2.13: the call line is reported ("Failed to handle graph break
    gracefully ... no bytecode reconstruction implemented for sourceless variable
    UserMethodVariable") for a plain object, a registry-built one and `Cls(...).method()`; not for
    `obj(...)`, a global object, an argument or `self.attr`, where Dynamo resumes after the call."""
    checker.report_if_callee_breaks(
        rule, call, f"`.{method}()` breaks inside, and on an object built in traced code Dynamo cannot resume at the call"
    )

def _call_holding_object(rule: Rule, checker: Checker, call: ast.Call) -> None:
    """Measured on torch 2.13 (torchsde's `sdeint.py:269`): after `sde = ForwardSDE(sde)`, whose
    `__init__` stores bound methods of the new object in its attributes (`self.step = {...:
    self.step_diagonal}.get(...)`), a later call that breaks inside cannot be resumed from ("no
    bytecode reconstruction implemented for sourceless variable UserMethodVariable"): Dynamo
    would have to rebuild the object with those attributes. Not when the object holds no bound
    methods, nor for a break before it was built. The same for an object whose `__init__` stores a
    function it got as a parameter's default (torchio's `Image.__init__(..., reader=read_image)`:
    "sourceless variable UserFunctionVariable", tests/fixtures/rules/flow_held_objects.py), not when
    the caller passes the function or `__init__` stores a global by name."""
    checker.report_if_held_object_breaks(
        rule, call, "this call breaks inside while an object built earlier in this function holds its "
        "own bound methods or a function it got as a parameter's default, which Dynamo cannot rebuild "
        "to resume here"
    )


RULE = Rule(
    code="GM605",
    name="breaking-call-on-local-object",
    family="not traceable",
    gb_id="GB0092",
    summary=(
        "Flags a method call on an object built in the same traced function (`solver = "
        "SOLVERS[name](...)`, `make_solver(...)`, `Solver(y0).integrate(t)`) when the method, or "
        "anything it calls, has a graph break; and any breaking call made after the function built "
        "an object that keeps its own bound methods in attributes (`self.step = self.step_diagonal`) "
        "or a function its `__init__` got as a parameter's default (`self.reader = reader` for "
        "`reader=read_image`)."
    ),
    why=(
        "To break the graph at a call, TorchDynamo rebuilds the callee on the Python stack and "
        "resumes after it. A method bound to an object created inside the compiled region has no "
        "source to rebuild it from, so Dynamo gives up on the whole calling function (measured on "
        "torch 2.13: GB0092 \"Reconstruction failure\"; for an nn.Module, \"step_unsupported\"): "
        "it runs eagerly, and only the method's own frame is compiled, in pieces. Calling the "
        "object itself (`solver(t)`) resumes normally."
    ),
    example=(
        "class Solver:\n"
        "    def integrate(self, t):\n"
        "        if t.sum() > 0:\n"
        "            t = t - 1\n"
        "        return t\n\n"
        "solution = Solver().integrate(t)"
    ),
    use_instead=(
        "class Solver:\n"
        "    def integrate(self, t):\n"
        "        return torch.where(t.sum() > 0, t - 1, t)\n\n"
        "solution = Solver().integrate(t)"
    ),
    fix_safety=(
        "No automatic fix. Remove the break inside the method (the finding there has its own "
        "advice), build the object outside the compiled function and pass it in, or keep it as "
        "module state (`self.solver`), which Dynamo can rebuild."
    ),
    detection=Detection(local_object_call=_method_of_local_object, held_object_call=_call_holding_object),
    advice=(
        "`{code}` calls a method that breaks on an object built inside the compiled region, so Dynamo "
        "runs this whole function eagerly: remove the break inside the method, or build the object "
        "outside and pass it in (or keep it as module state)"
    ),
)
