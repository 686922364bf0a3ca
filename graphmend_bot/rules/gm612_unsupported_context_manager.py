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
`torch.device`, `contextlib.closing` (tests/coverage_probes/gb0142_saved_tensors_hooks.py), `numpy.printoptions`
and the `config.patch(...)` of `torch._dynamo`, `torch._inductor`, `torch._functorch`.

Beyond these, the context managers of the standard library and torch that Dynamo refuses whatever
their arguments, generated from the installed torch by benchmarks/context_managers.py
(vocabulary/context_managers.py: `torch.autograd.set_detect_anomaly`, `torch.cuda.device`,
`torch.jit.fuser`, `threading.Semaphore`, ...), also reported only where a `with` enters them: a
name listed above stays with the hand-measured hooks (Detection.fallback_calls).

Entered as a value rather than called at the `with`: a local bound to one of these (`rng =
torch.random.fork_rng()`, `lock = threading.Lock()`; `with rng:`), and `with self.NAME:` on a
manager built outside the compiled region, which Dynamo refuses even for managers it enters when
built in the traced frame (`torch.no_grad()`, a class of the tree with `__enter__`, a
`@contextlib.contextmanager` generator, `threading.Lock()`: REFUSED_WHEN_HELD and
analysis/held_contexts.py, tests/test_held_context_managers.py). The same `with` in a function Dynamo
compiles as a frame of its own because it breaks: `with ctx:` on a parameter annotated with a
context-manager class of the tree, or passed one by every traced call (`helper(CM(), x)`,
`helper(torch.no_grad(), x)`), `with self.cm:` in a method of an object built in traced code; the
manager is then an input. And `with ctx:` on a held manager passed on (`helper(self.cm, x)`), an
input wherever it is entered; and `with cm:` on a manager of the tree built in the frame before a
top-level break, an input of the frame Dynamo resumes in (analysis/own_frame_managers.py,
tests/test_own_frame_managers.py).

A call of a `@contextlib.contextmanager` function of the tree that yields nothing (it returns the
generator another function made) breaks where it is made (GB0221; GB0142 when a `with` enters it
there): the scope solver finds these calls (analysis/generator_managers.py).
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.advice import AdviceCase
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
    "numpy.printoptions", "torch._dynamo.config.patch", "torch._inductor.config.patch", "torch._functorch.config.patch",
})
MESSAGE = "Dynamo cannot enter the context manager `{name}()`"
# Locks Dynamo cannot enter, built in the traced frame or outside it (measured on torch 2.13).
LOCKS = frozenset({"threading.Lock", "threading.RLock"})
REFUSED_ANYWHERE = UNSUPPORTED_CONTEXT_MANAGERS | UNSUPPORTED_WHEN_ENTERED | LOCKS | frozenset(UNENTERABLE_CONTEXT_MANAGERS)
# Managers Dynamo enters when built in the traced frame, and refuses once built outside it and held
# (`self.cm = torch.no_grad()` in `__init__`, `with self.cm:` in forward), each measured on torch 2.13
# (tests/test_held_context_managers.py). `torch.autocast`, `contextlib.nullcontext` and
# `torch.profiler.record_function` are entered either way, so absent.
REFUSED_WHEN_HELD = REFUSED_ANYWHERE | frozenset({
    "threading.Semaphore", "threading.BoundedSemaphore", "threading.Condition",
    "torch.no_grad", "torch.enable_grad", "torch.inference_mode", "torch.set_grad_enabled",
    "contextlib.suppress", "contextlib.ExitStack", "warnings.catch_warnings",
})
HELPER_MESSAGE = "Dynamo cannot enter the context manager this call returns: `{name}()`"
HELD_MESSAGE = "Dynamo cannot enter a context manager built outside the compiled region: `{name}` is built {where}"


def _entered(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind:
    if checker.is_context_manager(call):
        checker.report(rule, call, MESSAGE.format(name=name), TENSOR)
    return NOT_TENSOR

def _entered_value(rule: Rule, checker: Checker, value: ast.expr) -> None:
    """`with cm:` on a local bound to a refused manager (`cm = torch.random.fork_rng()`), `with
    helper():` on a function of the module every path of which returns one (`return
    torch.random.fork_rng()`), and `with self.cm:` / `with CM:` on one the scope solver finds built
    outside the compiled region (in `__init__`, at module level)."""
    if isinstance(value, ast.Call):
        if checker.resolve(value.func) is None and (built := checker.built_outside(value)) and all(
            name in REFUSED_ANYWHERE for name in built
        ):
            checker.report(rule, value, HELPER_MESSAGE.format(name=" / ".join(sorted(set(built)))), TENSOR)
    elif isinstance(value, ast.Name):
        built_by = checker.builder_of(value.id)
        if built_by in REFUSED_ANYWHERE:
            checker.report(rule, value, MESSAGE.format(name=built_by), TENSOR)
        else:  # a global, a parameter, a local built before a break (analysis/own_frame_managers.py)
            checker.report_if_held_context_refused(rule, value, HELD_MESSAGE.format(name=value.id, where="at module level"))
    elif isinstance(value, ast.Attribute):
        checker.report_if_held_context_refused(
            rule, value, HELD_MESSAGE.format(name=f"self.{value.attr}", where="in `__init__`")
        )


def _cached_property_read(rule: Rule, name: str) -> str:
    """The first read of a `functools.cached_property`: its `__get__` enters an RLock (Python < 3.12),
    found by the scope solver (analysis/cached_property_reads.py)."""
    return (
        f"`{name}` is a `functools.cached_property`: its first read enters the property's `RLock` "
        "(Python < 3.12), which Dynamo cannot enter, so it gives up on this whole frame and runs it eagerly"
    )


NOT_A_GENERATOR = "GB0221"  # "non-generator contextlib.contextmanager"


def _manager_without_yield(rule: Rule, entered: bool) -> str:
    """`with helper():` breaks at its line twice, GB0221 then GB0142 (the manager, built eagerly,
    is entered in the resumed frame): the census keeps the last. `cm = helper()` is GB0221."""
    return rule.gb_id if entered else NOT_A_GENERATOR


RULE = Rule(
    code="GM612",
    name="unsupported-context-manager",
    family="not traceable",
    gb_id="GB0142",
    other_gb_ids=(NOT_A_GENERATOR,),
    summary=(
        "Flags context managers TorchDynamo cannot enter in traced code: "
        "`contextlib.redirect_stdout`/`redirect_stderr`, `torch.random.fork_rng`, "
        "`torch.autograd.set_detect_anomaly` and `detect_anomaly`; entered by a `with`: "
        "`torch.autograd.graph.saved_tensors_hooks`/`save_on_cpu`, `torch.backends.cudnn.flags`, "
        "`torch.utils.checkpoint.set_checkpoint_early_stop`, `torch.autograd.set_multithreading_enabled`, "
        "`numpy.errstate`, `numpy.printoptions`, `contextlib.closing`, `torch.device(...)` and the "
        "`config.patch(...)` of `torch._dynamo`/`_inductor`/`_functorch`; and, entered by a `with`, the "
        "standard-library and torch context managers of a table generated from the installed torch "
        "(`torch.autograd.set_detect_anomaly`, `torch.cuda.device`, `torch.jit.fuser`, "
        "`torch.backends.nnpack.flags`, `threading.Semaphore`, `tempfile.TemporaryDirectory`, "
        "`socket.socket`, ...: vocabulary/context_managers.py); "
        "`with name:` on a local bound to one of these or to `threading.Lock()`; `with helper(...):` on a "
        "function of the module every path of which returns one (`return torch.random.fork_rng()`); and `with self.NAME:` "
        "where `self.NAME` is built in `__init__` as a lock, `torch.no_grad()` and the grad modes, "
        "`contextlib.suppress`/`ExitStack`, `warnings.catch_warnings`, a class of the tree with "
        "`__enter__` or a `@contextlib.contextmanager` generator, in every value `__init__` stores "
        "(not when its class is instantiated in traced code, or a traced `self.` method stores it "
        "again first); `with NAME:` on such a global, or on a nested function's free name its enclosing function "
        "bound once to one (`lock = threading.Lock()` around a hook); `with ctx:` on a parameter annotated with a "
        "context-manager class of the tree or passed one by every traced call (a class of the tree, "
        "`torch.no_grad()`, a `@contextlib.contextmanager` generator), or `with self.NAME:` on one an "
        "object built in traced code holds, in a function that breaks (Dynamo compiles it as a frame "
        "of its own, the manager an input), and `with ctx:` on a held manager passed on "
        "(`helper(self.cm, x)`); `with cm:` on a manager of the tree built in the function before a "
        "top-level break (an input of the frame Dynamo resumes in); and a call of a `@contextlib.contextmanager` "
        "function of the tree that yields nothing (it returns another generator); the first read "
        "of a `functools.cached_property` of the tree whose class's `__init__` does not read it "
        "(Python < 3.12)."
    ),
    why=(
        "Dynamo supports a fixed set of context managers (grad modes, autocast, user classes and "
        "generator-based ones it can inline). For these it ends the graph at the `with` and runs "
        "the block eagerly (GB0142, measured on torch 2.13). A manager built outside the compiled "
        "region and held in an attribute is refused even when Dynamo enters one built in the frame "
        "(only `torch.autocast`, `contextlib.nullcontext` and `record_function` are entered held). "
        "A function that breaks is compiled as a frame of its own, where a manager it was handed "
        "(a parameter, an attribute of `self`) is such an input. "
        "A `@contextlib.contextmanager` function that yields nothing (`return other_generator()`) "
        "it cannot build a manager from: the call breaks (GB0221), and so does the `with` entering it. "
        "Before Python 3.12 `functools.cached_property` computes a value under `with self.lock:`, an "
        "RLock: its first read in traced code breaks on the attribute read, which Dynamo cannot resume "
        "after, so it skips the whole frame (measured: on an nn.Module's `self`, a module-level object, "
        "an argument; once the value is cached the read traces)."
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
        entered_value=_entered_value,
        held_context=REFUSED_WHEN_HELD.__contains__,
        manager_without_yield=_manager_without_yield,
        cached_property_read=_cached_property_read,
    ),
    advice_cases=(AdviceCase(lambda finding: "frame of its own" in finding.message, (
        "Build the manager in the caller's traced code and remove the break from this function (its own "
        "finding has the advice), so that Dynamo inlines it; or enter `{code}` in the caller instead of "
        "handing it in"
    )), AdviceCase(lambda finding: "yields nothing" in finding.message, (
        "Make the function behind `{code}` a generator: `yield from` the generator it returns instead of "
        "returning it (the same manager), which Dynamo inlines"
    )), AdviceCase(lambda finding: "cached_property" in finding.message, (
        "Compute `{code}` before the compiled call (in `__init__`, or read it once eagerly), so the traced "
        "read finds it cached"
    ))),
    advice=("Enter the context of `{code}` outside the compiled function, or move its block out of the "
            "compiled region"),
)
