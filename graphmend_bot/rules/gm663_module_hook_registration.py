"""GM663 module-hook-registration: its documentation, in one place with how it is detected.

Measured on torch 2.13 (tests/test_module_hook_registration.py, tests/coverage_probes/gb0467_*):
registering a hook on an nn.Module in traced code (`m.register_forward_hook(fn)`, the forward
pre-hook, the full backward hook and pre-hook, the old backward hook, and torch's global
`register_module_forward_hook`) breaks with GB0467 "setattr() on unsupported type": the handle's
constructor counts ids on its class (`RemovableHandle.next_id += 1`), a write to a type Dynamo does
not model. A tensor's own `t.register_hook(fn)` traces (GM675 judges where its handle goes). The
methods' names are nn.Module's alone, so the receiver's type is not asked (interpretability code
hooks modules it is handed: `self.model`, `for layer in layers`).
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import TENSOR, Kind

SETATTR_ON_TYPE = "GB0467"
MODULE_HOOK_METHODS = (
    "register_forward_hook", "register_forward_pre_hook", "register_full_backward_hook",
    "register_full_backward_pre_hook", "register_backward_hook",
)
GLOBAL_MODULE_HOOKS = tuple(
    f"torch.nn.modules.module.register_module_{kind}"
    for kind in ("forward_hook", "forward_pre_hook", "full_backward_hook", "full_backward_pre_hook", "backward_hook")
)


def _method_read(rule: Rule, checker: Checker, node: ast.Attribute) -> None:
    checker.report(rule, node, f"`.{node.attr}()` registers a module hook, which breaks the graph in traced code",
                   TENSOR)


def _global_registration(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> None:
    checker.report(rule, call, f"`{name.rpartition('.')[2]}()` registers a global module hook, which breaks "
                   "the graph in traced code", TENSOR)


RULE = Rule(
    code="GM663",
    name="module-hook-registration",
    family="not traceable",
    gb_id=SETATTR_ON_TYPE,
    summary=(
        "Flags registering a hook on an nn.Module in traced code (`m.register_forward_hook(fn)`, "
        "`register_forward_pre_hook`, `register_full_backward_hook`, `register_full_backward_pre_hook`, "
        "`register_backward_hook`, torch's global `register_module_forward_hook` and its kin)."
    ),
    why=(
        "The hook's handle counts ids on its class (`RemovableHandle.next_id += 1`), a write to a type "
        "Dynamo does not model: the graph ends at the registration (measured on torch 2.13: GB0467) and "
        "the rest of the function runs eagerly."
    ),
    example="handle = self.encoder.register_forward_hook(save_output)\ny = self.encoder(x)\nhandle.remove()",
    use_instead="# register the hook once, outside the compiled function (in __init__ or before compiling)\ny = self.encoder(x)",
    fix_safety=(
        "No automatic fix: when the hook is added and removed decides what it sees. Register it "
        "outside the compiled function, or compute what it records in the forward itself."
    ),
    detection=Detection(
        attribute_reads=dict.fromkeys(MODULE_HOOK_METHODS, _method_read),
        calls=dict.fromkeys(GLOBAL_MODULE_HOOKS, _global_registration),
    ),
    advice="Dynamo cannot register a module hook in `{code}`: register it outside the compiled function",
)
