"""GM675 hook-handle-in-global: its documentation, in one place with how it is detected.

Measured on torch 2.13 (tests/coverage_probes/gb0100_*): `t.register_hook(fn)` in traced code
traces, on an input or an intermediate, and so does keeping its handle in a local; storing the
handle in a module global (`global HANDLE; HANDLE = t.register_hook(fn)`) breaks at the store with
GB0100. The same store in a function inlined from another module than the compiled frame's is
GB0101, which the registry names apart; which module the compiled frame comes from is not known
where the store is written, so every finding carries GB0100. With grad disabled the hooked tensor
needs no gradient and `register_hook` raises in eager: the finding names the grad mode.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import TENSOR
from graphmend_bot.vocabulary.mode_names import GRAD_ENABLED

HANDLE_IN_GLOBAL = "GB0100"  # "Storing Tensor hook handle in globals"
HOOK_REGISTRATIONS = ("register_hook", "register_post_accumulate_grad_hook")


def _global_store(rule: Rule, checker: Checker, target: ast.Name, value: ast.expr) -> None:
    if (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
            and value.func.attr in HOOK_REGISTRATIONS):
        checker.report(rule, target, f"storing the handle of `{value.func.attr}()` in the global `{target.id}` "
                       "breaks the graph", TENSOR, gb_id=HANDLE_IN_GLOBAL, mode=GRAD_ENABLED)


RULE = Rule(
    code="GM675",
    name="hook-handle-in-global",
    family="not traceable",
    gb_id=HANDLE_IN_GLOBAL,
    summary="Flags a tensor hook's handle stored in a module global from traced code (`global H; H = t.register_hook(fn)`).",
    why=(
        "Dynamo can register a tensor hook inside a graph and keep its handle in a local, but it "
        "cannot write the handle into a module's namespace: it ends the graph at the store and runs "
        "it eagerly (measured on torch 2.13: GB0100; GB0101 from a function of another module)."
    ),
    example="global HANDLE\ny = torch.sin(x)\nHANDLE = y.register_hook(lambda grad: grad * 2)",
    use_instead="y = torch.sin(x)\nhandle = y.register_hook(lambda grad: grad * 2)  # a local, or returned",
    fix_safety=(
        "No automatic fix: other code reads the global to remove the hook. Keep the handle in a "
        "local and return it, or register the hook outside the compiled function."
    ),
    detection=Detection(global_store=_global_store),
    advice=("Dynamo cannot store a hook handle in a global in `{code}`: keep it in a local and return "
            "it, or register the hook outside the compiled function"),
)
