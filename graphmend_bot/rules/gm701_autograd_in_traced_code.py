"""GM701 autograd-in-traced-code: its documentation, in one place with how it is detected and fixed.

Measured on torch 2.13.0 (tests/fixtures/rules/GM701_autograd_in_traced_code.py), with
`torch._dynamo.config.trace_autograd_ops` at its default (False):
- `t.requires_grad_(flag)` follows Dynamo's `method_requires_grad_` (tests/test_requires_grad_inputs.py):
  a call that leaves the flag as it is traces (`p.requires_grad_()` on an nn.Parameter); one that
  changes a graph input's flag breaks with GB0125, read again or not, under `no_grad` or not (an
  argument of the function, or a loop's element of one: `requires_grad_()` "(when the input does not
  require grad yet)", `requires_grad_(False)` "(when the input requires grad)"; a parameter frozen with
  `requires_grad_(False)`); on a tensor the function builds, `requires_grad_()` breaks with GB8985
  "requires_grad_() intermediate leaked as output" when the tensor is used afterwards (an unused one
  traces: analysis/discarded_locals.py), with grad enabled, and under `torch.no_grad()` only when it
  leaves the graph, so its message says `(with grad enabled)`; `requires_grad_(False)` there is a no-op;
- `torch.autograd.grad(...)`: GB9186;
- `t.backward()`: GB0123; `torch.autograd.backward(...)`: GB0007 (a skipped function);
- `t.requires_grad = flag`, on any tensor or parameter, True or False: GB0206;
- `super().requires_grad_(mode)` in a torch.Tensor subclass's override (pina's LabelTensor), when
  no class of the tree after it defines the method: torch's own, GB0125 when the instance is a graph
  input whose flag it changes; a false constant flag is not reported (tests/test_super_requires_grad.py);
- a torch function building a tensor with `requires_grad=True` (`torch.zeros(3, requires_grad=True)`,
  `torch.tensor`, `randn`, `full`, `arange`, `linspace`, `eye`, the `*_like` factories): GB0225
  (`requires_grad=False` traces; tests/coverage_probes/gb0225_factory_requires_grad.py).
In an arm of `if self.training:` each breaks in training mode only, and its message says so
(analysis/modes.py; tests/test_modes.py).
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import CallHook, Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary import known_names as V
from graphmend_bot.vocabulary.kind import NOT_TENSOR, TENSOR, Kind
from graphmend_bot.vocabulary.mode_names import GRAD_ENABLED

# The id Dynamo reports for each construct (torch 2.13.0).
REQUIRES_GRAD_ = "GB8985"
AUTOGRAD_GRAD = "GB9186"
TENSOR_BACKWARD = "GB0123"
AUTOGRAD_BACKWARD = "GB0007"
SET_REQUIRES_GRAD = "GB0206"  # "setattr() on Tensor.requires_grad", on a parameter too
CREATED_REQUIRING_GRAD = "GB0225"  # "Attempted to use tensor creation function with requires_grad=True"
FREEZE_INPUT = "GB0125"  # "Unsupported Tensor.requires_grad_() call", on a graph input


def _flag(call: ast.Call) -> ast.expr | None:
    """The flag `requires_grad_(flag)` is given, positionally or by keyword; None when it is not."""
    return call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "requires_grad"), None)


def _turns_off(call: ast.Call) -> bool:
    """`requires_grad_(False)`: a no-op Dynamo traces, except on a graph input (a parameter)."""
    flag = _flag(call)
    return isinstance(flag, ast.Constant) and flag.value is False


def _turns_on(call: ast.Call) -> bool:
    """`requires_grad_()` or `requires_grad_(True)`: a no-op on a tensor that requires grad already."""
    flag = _flag(call)
    return flag is None or (isinstance(flag, ast.Constant) and flag.value is True)


def _may_turn_off(call: ast.Call) -> bool:
    """A flag that is a false constant (`requires_grad_(0)`, `requires_grad_(None)`): a no-op Dynamo
    traces. A flag the caller passes may be true at some call, and then the call breaks (GB0125 on a
    graph input, GB8985 on an intermediate that leaves the graph), so it is reported, as GM684
    reports a manager under `if verbose:`."""
    flag = _flag(call)
    return isinstance(flag, ast.Constant) and not flag.value


def _parameter(checker: Checker, node: ast.expr) -> bool:
    """`p` of `for p in m.parameters()`, or a submodule's `self.encoder.weight` / `.bias`: an
    nn.Parameter, a graph input that requires grad."""
    if isinstance(node, ast.Name):
        return checker.is_parameter_loop_variable(node.id)
    owner = node.value if isinstance(node, ast.Attribute) and node.attr in ("weight", "bias") else None
    while isinstance(owner, ast.Attribute):
        owner = owner.value
        if isinstance(owner, ast.Name):
            return owner.id == "self"
    return False


def _requires_grad_(rule: Rule, checker: Checker, call: ast.Call, method: str, receiver: Kind, args: list[Kind]) -> Kind:
    """Dynamo's `method_requires_grad_`: a call that leaves the flag as it is traces; one that changes
    a graph input's flag breaks (GB0125); one that turns on a tensor the graph built breaks when the
    tensor leaves the graph (GB8985)."""
    owner = call.func.value if isinstance(call.func, ast.Attribute) else None
    if owner is not None and _parameter(checker, owner):
        # An nn.Parameter requires grad already: only a flag that may be false changes it.
        if _turns_off(call):
            checker.report(rule, call, "`requires_grad_(False)` on a parameter in traced code breaks the graph",
                           TENSOR, gb_id=FREEZE_INPUT)
        elif not _turns_on(call):
            checker.report(rule, call, "`requires_grad_(flag)` on a parameter in traced code breaks the graph "
                           "(when the flag is false)", TENSOR, gb_id=FREEZE_INPUT)
    elif isinstance(owner, ast.Name) and checker.holds_argument(owner.id):
        # A value the caller passed: a graph input when this function is compiled, whose flag
        # Dynamo cannot change, used again or not, with grad enabled or not.
        when = "(when the input requires grad)" if _may_turn_off(call) else "(when the input does not require grad yet)"
        checker.report(rule, call, f"`requires_grad_()` on an argument in traced code breaks the graph {when}",
                       receiver, gb_id=FREEZE_INPUT)
    # `y.requires_grad_()` on a local nothing reads again (it never leaves the graph) or on a gradient
    # built with create_graph=True (it requires grad already): no break.
    elif not _may_turn_off(call) and not checker.requires_grad_traces(call):
        # Built here (`torch.zeros_like(q).requires_grad_()`): an intermediate, which breaks with grad
        # enabled.
        checker.report(rule, call, "`requires_grad_()` in traced code breaks the graph", receiver, gb_id=REQUIRES_GRAD_,
                       mode=GRAD_ENABLED if receiver.always else None)
    return receiver


def _super_requires_grad(rule: Rule, checker: Checker, call: ast.Call, method: str) -> None:
    """`super().requires_grad_(mode)` in a torch.Tensor subclass's override (pina's LabelTensor): torch's
    own method on the instance, which breaks with GB0125 when the instance is a graph input whose flag
    it changes (an intermediate's traces); it stands when the class's bases leave the method to
    torch.Tensor (super_calls.py). A false constant flag changes nothing on an input that needs no grad."""
    if method in V.TENSOR_METHODS_REFUSED_VIA_SUPER and not _may_turn_off(call):
        message = "`super().requires_grad_()` in a tensor subclass changes a graph input's `requires_grad`: it breaks the graph"
        checker.report_if_super_reaches_object(rule, call, method, message, gb_id=FREEZE_INPUT)


def _backward(rule: Rule, checker: Checker, call: ast.Call, method: str, receiver: Kind, args: list[Kind]) -> Kind:
    checker.report(rule, call, "`.backward()` in traced code breaks the graph", receiver, gb_id=TENSOR_BACKWARD)
    return NOT_TENSOR


def _set_requires_grad(rule: Rule, checker: Checker, target: ast.Attribute, owner: Kind) -> None:
    checker.report(
        rule, target, "assigning `requires_grad` in traced code breaks the graph", owner, gb_id=SET_REQUIRES_GRAD
    )


def _created_requiring_grad(rule: Rule, checker: Checker, call: ast.Call, resolved: str) -> None:
    """`torch.zeros(3, requires_grad=True)`: a literal true flag on a function of `torch` itself
    (`torch.nn.Parameter(...)` is GM607's)."""
    name = resolved[len("torch."):]
    flag = next(keyword.value for keyword in call.keywords if keyword.arg == "requires_grad")
    if "." not in name and not name[:1].isupper() and isinstance(flag, ast.Constant) and flag.value is True:
        checker.report(rule, call, f"`torch.{name}(..., requires_grad=True)` in traced code breaks the graph",
                       TENSOR, gb_id=CREATED_REQUIRING_GRAD)


def _autograd_function(gb_id: str) -> CallHook:
    def hook(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind:
        checker.report(rule, call, f"`torch.{name}` in traced code breaks the graph", TENSOR, gb_id=gb_id)
        return TENSOR

    return hook


RULE = Rule(
    code="GM701",
    name="autograd-in-traced-code",
    family="autograd state",
    gb_id=REQUIRES_GRAD_,
    other_gb_ids=(AUTOGRAD_GRAD, TENSOR_BACKWARD, AUTOGRAD_BACKWARD, SET_REQUIRES_GRAD, CREATED_REQUIRING_GRAD, FREEZE_INPUT),
    summary=(
        "Flags autograd state changes and autograd calls in traced code: `t.requires_grad_()`, "
        "`t.requires_grad = flag`, `p.requires_grad_(False)` on a parameter, `super().requires_grad_(mode)` "
        "in a torch.Tensor subclass, a tensor built with `requires_grad=True` (`torch.zeros(n, requires_grad=True)`), "
        "`torch.autograd.grad(...)`, `t.backward()`, `torch.autograd.backward(...)`."
    ),
    why=(
        "TorchDynamo traces the forward computation; it does not trace turning a traced tensor into "
        "a leaf that requires grad, nor running the backward pass inside the graph (with "
        "`torch._dynamo.config.trace_autograd_ops=False`, the default on torch 2.13). It ends the "
        "graph and runs the call eagerly. Ids measured on torch 2.13: `requires_grad_()` GB8985 (when "
        "the tensor the function built is used afterwards), `requires_grad_(flag)` that changes a graph input's flag "
        "(an argument, `requires_grad_(False)` on a parameter) GB0125, a tensor subclass's "
        "`super().requires_grad_(mode)` on a graph input GB0125, `t.requires_grad = flag` GB0206 (on a "
        "parameter too, either value), a torch factory given `requires_grad=True` GB0225, `torch.autograd.grad` GB9186, `Tensor.backward` GB0123, "
        "`torch.autograd.backward` GB0007; each finding carries its own. One in an arm of "
        "`if self.training:` breaks only a model compiled in training mode (Dynamo traces that arm "
        "only then, never in eval): its message says `(in training mode)`. `requires_grad_()` on a "
        "tensor the function builds breaks with grad enabled, and under `torch.no_grad()` only when the "
        "tensor leaves the graph (returned, or alive across another break): its message says `(with grad "
        "enabled)`. On an argument the message says which flag of the caller's input breaks; on a parameter, "
        "which requires grad already, only turning it off does."
    ),
    example="""
loss = torch.zeros((), device=x.device)
loss.requires_grad_()
y = x + loss
""",
    use_instead="""
# Make leaves (and call autograd) outside the compiled function, or build the value from the
# inputs so it inherits requires_grad:
loss = x.new_zeros(())
y = x + loss
""",
    fix_safety=(
        "No automatic fix: where a tensor starts requiring grad, or where the backward pass runs, is "
        "the program's training logic. Move the call out of the compiled region (compile the forward "
        "only), or, for `torch.autograd.grad` in a model (physics-informed losses, SDE solvers), try "
        "`torch._dynamo.config.trace_autograd_ops = True` and measure."
    ),
    detection=Detection(
        tensor_methods={"requires_grad_": _requires_grad_, "backward": _backward},
        super_method_call=_super_requires_grad,
        attribute_writes={"requires_grad": _set_requires_grad},
        requires_grad_keyword=_created_requiring_grad,
        torch_functions={
            "autograd.grad": _autograd_function(AUTOGRAD_GRAD),
            "autograd.backward": _autograd_function(AUTOGRAD_BACKWARD),
        },
    ),
    advice=(
        "`{code}` changes autograd state inside the compiled region: set it up before calling the "
        "compiled function, or move this code out of it"
    ),
)
