"""GM612 unsupported-context-manager: its documentation, in one place with how it is detected.

Context managers TorchDynamo cannot enter, by resolved name, each measured on torch 2.13 as
`with <it>:` between two tensor operations (GB0142 "Unsupported context manager"). Measured to
trace, so absent: user classes with `__enter__`/`__exit__`, `@contextlib.contextmanager`
generators, `contextlib.suppress`, `contextlib.nullcontext`, `contextlib.ExitStack`,
`warnings.catch_warnings`, `torch.profiler.record_function`, `torch.nn.attention.sdpa_kernel`.
`with open(...)` is GM602's. Measured only as what a `with` enters, and reported only there
(`torch.device(...)` is mostly a value; the others are rarely called otherwise):
`torch.autograd.graph.saved_tensors_hooks`/`save_on_cpu`, `torch.utils.checkpoint.set_checkpoint_early_stop`,
`torch.backends.cudnn.flags`, `torch.autograd.set_multithreading_enabled`, `numpy.errstate`,
`torch.device`, `contextlib.closing` (tests/coverage_probes/gb0142_saved_tensors_hooks.py).

Beyond these, the context managers of the standard library and torch that Dynamo refuses whatever
their arguments, generated from the installed torch by benchmarks/context_managers.py
(vocabulary/context_managers.py: `torch.autograd.set_detect_anomaly`, `torch.cuda.device`,
`torch.jit.fuser`, `threading.Semaphore`, ...), also reported only where a `with` enters them: a
name listed above stays with the hand-measured hooks (Detection.fallback_calls).
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection, untraceable
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.context_managers import UNENTERABLE_CONTEXT_MANAGERS
from graphmend_bot.vocabulary.kind import NOT_TENSOR, TENSOR, Kind

UNSUPPORTED_CONTEXT_MANAGERS = frozenset({
    "contextlib.redirect_stdout", "contextlib.redirect_stderr",
    "torch.random.fork_rng", "torch.autograd.set_detect_anomaly", "torch.autograd.detect_anomaly",
})
UNSUPPORTED_WHEN_ENTERED = frozenset({
    "torch.autograd.graph.saved_tensors_hooks", "torch.autograd.graph.save_on_cpu",
    "torch.utils.checkpoint.set_checkpoint_early_stop", "torch.backends.cudnn.flags",
    "torch.autograd.set_multithreading_enabled", "numpy.errstate", "torch.device", "contextlib.closing",
})
MESSAGE = "Dynamo cannot enter the context manager `{name}()`"


def _entered(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind:
    if checker.is_context_manager(call):
        checker.report(rule, call, MESSAGE.format(name=name), TENSOR)
    return NOT_TENSOR

RULE = Rule(
    code="GM612",
    name="unsupported-context-manager",
    family="not traceable",
    gb_id="GB0142",
    summary=(
        "Flags context managers TorchDynamo cannot enter in traced code: "
        "`contextlib.redirect_stdout`/`redirect_stderr`, `torch.random.fork_rng`, "
        "`torch.autograd.set_detect_anomaly` and `detect_anomaly`; entered by a `with`: "
        "`torch.autograd.graph.saved_tensors_hooks`/`save_on_cpu`, `torch.backends.cudnn.flags`, "
        "`torch.utils.checkpoint.set_checkpoint_early_stop`, `torch.autograd.set_multithreading_enabled`, "
        "`numpy.errstate`, `contextlib.closing` and `torch.device(...)`; and, entered by a `with`, the "
        "standard-library and torch context managers of a table generated from the installed torch "
        "(`torch.autograd.set_detect_anomaly`, `torch.cuda.device`, `torch.jit.fuser`, "
        "`torch.backends.nnpack.flags`, `threading.Semaphore`, ...: vocabulary/context_managers.py)."
    ),
    why=(
        "Dynamo supports a fixed set of context managers (grad modes, autocast, user classes and "
        "generator-based ones it can inline). For these it ends the graph at the `with` and runs "
        "the block eagerly (GB0142, measured on torch 2.13)."
    ),
    example="with torch.random.fork_rng():\n    noise = torch.randn_like(x)",
    use_instead="noise = torch.randn(x.shape, generator=None)  # or fork the RNG outside the compiled call",
    fix_safety=(
        "No automatic fix: enter the context outside the compiled function, or keep its block out "
        "of the compiled region."
    ),
    detection=Detection(
        calls={
            **dict.fromkeys(UNSUPPORTED_CONTEXT_MANAGERS, untraceable(MESSAGE)),
            **dict.fromkeys(UNSUPPORTED_WHEN_ENTERED, _entered),
        },
        fallback_calls=dict.fromkeys(UNENTERABLE_CONTEXT_MANAGERS, _entered),
    ),
    advice=("Enter the context of `{code}` outside the compiled function, or move its block out of the "
            "compiled region"),
)
