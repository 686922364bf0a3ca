"""GM645 hook-mutates-outer-state: its documentation, in one place with how it is detected.

Dynamo traces a hook registered in traced code (`y.register_hook(h)` on a tensor the frame
computed) as a higher-order op whose body may not change anything from outside it. Measured on
torch 2.13 (tests/fixtures/rules/GM645_hook_mutates_outer_state.py,
tests/coverage_probes/gb0067_hook_mutates_outer_state.py): the hook's first statement that stores
into an outer value (`store[k] = g`, `self.last = g`), rebinds a `nonlocal` or `global` name, or
calls a container's mutating method on one (`store.append(g)`) breaks with GB0067, at that line
(vocabulary/hook_mutations.py). The hook read: a lambda written at the call, or a function a `def` of
this function defines. A hook that only reads outer values or fills its own container traces, and
so does a hook on a parameter (`self.weight.register_hook(h)`: a leaf, whose hook runs outside the
graph), not reported; a hook passed by other names (a method, a function of the module) may be
defined anywhere and is not read.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.hook_mutations import outer_mutation
from graphmend_bot.vocabulary.kind import Kind
from graphmend_bot.vocabulary.mode_names import GRAD_ENABLED


def report_outer_mutation(checker: Checker, call: ast.Call, receiver: Kind) -> None:
    """`t.register_hook(h)` (GM633 owns the method's hook and hands the call on here)."""
    hook = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "hook"), None)
    if hook is None or not receiver.is_tensor or checker.assumed_tensor(receiver):
        return
    owner = call.func.value if isinstance(call.func, ast.Attribute) else None
    if owner is None or checker.compiled_input(owner) or (
            isinstance(owner, ast.Attribute) and isinstance(owner.value, ast.Name) and owner.value.id == "self"):
        return  # a graph input or a module's parameter: a leaf, whose hook Dynamo leaves to eager
    body = hook if isinstance(hook, ast.Lambda) else checker.local_def(hook)
    if body is None or (found := outer_mutation(body)) is None:
        return
    node, name = found
    # With grad disabled the tensor needs none and `register_hook` raises in eager: a grad-mode break.
    checker.report(RULE, node, f"a tensor hook registered in traced code mutates `{name}`, from outside the hook: "
                   "Dynamo traces the hook as a subgraph that may not change outer state", receiver,
                   mode=GRAD_ENABLED)


RULE = Rule(
    code="GM645",
    name="hook-mutates-outer-state",
    family="not traceable",
    gb_id="GB0067",
    summary=(
        "Flags the first statement of a tensor hook registered in traced code (`t.register_hook(h)`, `h` a "
        "lambda at the call or a function a nested `def` defines, `t` a tensor the frame computed) that "
        "mutates a value from outside the hook: `store[k] = g`, `self.last = g`, `store.append(g)`, a "
        "`nonlocal` or `global` rebound."
    ),
    why=(
        "Dynamo traces the hook as a higher-order op whose body may not change state from outside it "
        "(\"HOP: Unsafe side effect\", GB0067, measured on torch 2.13): the graph breaks at the mutation."
    ),
    example=(
        "grads = {}\n"
        "def keep(g):\n"
        "    grads[g.device] = g\n"
        "y = torch.sin(x)\n"
        "y.register_hook(keep)"
    ),
    use_instead=(
        "grads = {}\n"
        "y = torch.sin(x)\n"
        "# keep the gradient outside the compiled region: register the hook where the forward is not compiled,\n"
        "# or return `y` and hook it there"
    ),
    fix_safety=(
        "No automatic fix: where the gradient should go is the program's choice; register the hook "
        "outside the compiled function, or use `torch.autograd.grad` to get the gradient as a value."
    ),
    detection=Detection(),
    advice=("`{code}` changes outer state in a tensor hook registered in traced code, which Dynamo cannot trace: "
            "register the hook outside the compiled region, or return the gradient instead"),
)
