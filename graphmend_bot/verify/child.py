"""The measurement child: one entry point of one arm, in a fresh interpreter.

Run as a script, never imported by the code it measures:

    python -s -P child.py REQUEST.json RESULT.json

in a neutral working directory; it imports what it needs, then enters the arm's root and puts it
first on sys.path. It imports only the standard library, torch and its siblings protocol.py,
line_recorder.py and user_code.py (loaded by path), so the code under test (and nothing of
graphmend's) is what gets imported; the parent gives each child its own empty
TORCHINDUCTOR_CACHE_DIR so the first compiled call is really cold.

For each seed it builds the entry point with the factory, runs it eagerly and compiled, and
saves both outputs; on the first seed it also times the first compiled call (cold start, compile
included) and the median of `repeat` calls after `warmup` calls (steady state; CUDA events on a
GPU, perf_counter on the CPU) and, on CUDA, counts graph and kernel launches of one call with the
profiler. Finally it counts graphs and breaks with torch._dynamo.explain. The result is a JSON
file (protocol.ArmResult, which the parent parses strictly); failures are a result too, with
`error_kind` and a one-paragraph `error`.

On request it also saves, per seed:
- `backward`: the gradients (of the parameters and of the floating-point inputs) of a scalar
  loss, the sum of every floating-point output's elements (so each output's gradient is all
  ones: every output element counts, none is favoured), eagerly and compiled;
- `reference` (the original arm): the same entry point rebuilt from the same seed, cast to
  float64 and run eagerly, outputs and gradients: the reference compiled results are judged by.
  A model that cannot run in float64 gets `reference_error` instead;
- `coverage` ({path: [line, ...]} under the root): which of those lines ran while the module was
  imported and during the eager calls (sys.settrace, limited to those files), in `covered`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import importlib.util
import json
import math
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from types import ModuleType
from typing import TYPE_CHECKING, Any

# The arm's root, not this file's folder, is where user imports resolve from.
if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
    sys.path.pop(0)


def _load_by_path(name: str, *path: str) -> ModuleType:
    """A module of ours with no graphmend_bot imports (protocol.py, line_recorder.py, user_code.py:
    standard library only), loaded by path under a name of its own: importing it as
    `graphmend_bot.verify.protocol` would put a `graphmend_bot` in sys.modules that the code under
    test may want to import from its own root."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    spec = importlib.util.spec_from_file_location(name, os.path.join(package, *path))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


if TYPE_CHECKING:
    from graphmend_bot.census import dynamo
    from graphmend_bot.verify import line_recorder, protocol, user_code
else:
    protocol = _load_by_path("_graphmend_verify_protocol", "verify", "protocol.py")
    line_recorder = _load_by_path("_graphmend_verify_line_recorder", "verify", "line_recorder.py")
    user_code = _load_by_path("_graphmend_verify_user_code", "verify", "user_code.py")
    dynamo = None  # census/dynamo.py imports torch: loaded by explain(), after import_own_modules

LineRecorder = line_recorder.LineRecorder
ChildError = user_code.ChildError
resolve_factory, accepted_keywords = user_code.resolve_factory, user_code.accepted_keywords
describe, first_line, relative = user_code.describe, user_code.first_line, user_code.relative

# torch, bound once by import_own_modules: before that the child must not touch it, and after it
# every function uses this one module.
torch: Any = None


def main(argv: list[str]) -> int:
    request_path, result_path = argv[1], argv[2]
    root = ""
    try:
        with open(request_path, encoding="utf-8") as handle:
            request = protocol.ChildRequest.from_json(json.load(handle))
        root = os.path.abspath(request.root)
        import_own_modules(request.backend)
        # Only now does the code under test become importable (the parent starts this process with
        # `-s -P` in a neutral folder): a `torch/` or `json.py` of its own cannot replace ours.
        os.chdir(root)
        sys.path.insert(0, root)
        result = measure(request, root)
    except protocol.ProtocolError as error:
        result = protocol.ArmResult.failed("bad-request", str(error))
    except ChildError as error:
        result = protocol.ArmResult.failed(error.kind, error.message)
    except BaseException as error:
        result = protocol.ArmResult.failed("internal", describe(error, root))
    with open(result_path, "w", encoding="utf-8") as handle:
        json.dump(result.to_json(), handle, indent=1)
    return 0


def import_own_modules(backend: str) -> None:
    """torch and the parts of it this child uses, imported before the arm's root is on sys.path."""
    global torch
    import torch as imported
    import torch._dynamo
    import torch.profiler

    if backend == "inductor":
        # Also makes cold start compile time, not module import time.
        import torch._inductor.compile_fx
    torch = imported


@dataclasses.dataclass
class Timings:
    """What the first seed measures of the compiled entry point."""

    cold_start_s: float = 0.0
    steady_state_s: float = 0.0  # the median of the samples
    steady_state_min_s: float = 0.0
    steady_state_max_s: float = 0.0
    launches: dict[str, int | None] = dataclasses.field(default_factory=dict)


def measure(request: protocol.ChildRequest, root: str) -> protocol.ArmResult:
    device = pick_device(request.device)
    recorder = LineRecorder(root, request.coverage)
    with recorder:
        factory = resolve_factory(request.factory, root)
    dtype = getattr(torch, request.dtype) if request.dtype else None
    grad_context = torch.no_grad if request.no_grad else contextlib.nullcontext
    outputs: dict[str, dict[str, protocol.SavedOutput]] = {}
    timings = Timings()
    reference_error: str | None = None
    first: tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]] | None = None
    for index, seed in enumerate(request.seeds):
        with recorder:
            fn, args, kwargs = build(factory, request.factory, seed, device, dtype, root)
        prefix = os.path.join(request.output_dir, f"seed{seed}")
        # Outputs are saved (copied to the CPU) as soon as they exist: with CUDA graphs a later
        # replay overwrites the buffers an earlier call returned.
        with grad_context():
            with recorder:
                eager = run_call("the eager call", fn, args, kwargs, root)
            saved: dict[str, protocol.SavedOutput] = {"eager": save_output(eager, f"{prefix}-eager.pt")}
            del eager
            compiled_fn = torch.compile(fn, backend=request.backend, mode=request.mode)
            if index == 0:
                first = (fn, args, kwargs)
                compiled, timings.cold_start_s = timed_first_call(device, compiled_fn, args, kwargs, root)
                saved["compiled"] = save_output(compiled, f"{prefix}-compiled.pt")
                del compiled
                samples = steady_state(device, compiled_fn, args, kwargs, request.warmup, request.repeat, root)
                timings.steady_state_s = statistics.median(samples)
                timings.steady_state_min_s, timings.steady_state_max_s = min(samples), max(samples)
                timings.launches = launch_counts(device, compiled_fn, args, kwargs)
            else:
                compiled = run_call("the compiled call", compiled_fn, args, kwargs, root)
                saved["compiled"] = save_output(compiled, f"{prefix}-compiled.pt")
        if request.backward:
            with recorder:
                grads = gradients("the eager backward", fn, args, kwargs, root)
            saved["grad-eager"] = save_output(grads, f"{prefix}-grad-eager.pt", "grad")
            grads = gradients("the compiled backward", compiled_fn, args, kwargs, root, owner=fn)
            saved["grad-compiled"] = save_output(grads, f"{prefix}-grad-compiled.pt", "grad")
            del grads
        if request.reference and reference_error is None:
            try:
                saved.update(reference(request, factory, seed, device, dtype, root, prefix, grad_context))
            except ChildError as error:
                reference_error = error.message
        outputs[str(seed)] = saved
    assert first is not None
    with grad_context():
        graphs = explain(*first, root)
    return protocol.ArmResult(
        ok=True,
        device=str(device),
        torch_version=torch.__version__,
        cold_start_s=timings.cold_start_s,
        steady_state_s=timings.steady_state_s,
        steady_state_min_s=timings.steady_state_min_s,
        steady_state_max_s=timings.steady_state_max_s,
        cuda_graph_launches=timings.launches.get("cuda_graph_launches"),
        cuda_kernel_launches=timings.launches.get("cuda_kernel_launches"),
        outputs=outputs,
        reference_error=reference_error,
        covered=recorder.covered(),
        **graphs,
    )


def reference(
    request: protocol.ChildRequest,
    factory: Callable[..., Any],
    seed: int,
    device: Any,
    dtype: Any,
    root: str,
    prefix: str,
    grad_context: Callable[[], Any],
) -> dict[str, protocol.SavedOutput]:
    """The entry point rebuilt exactly as measured (same seed, same dtype, so the same values),
    then cast to float64 and run eagerly: what the working precision approximates."""
    fn, args, kwargs = build(factory, request.factory, seed, device, dtype, root)
    fn, args, kwargs = move((fn, args, kwargs), dtype=torch.float64)
    with grad_context():
        output = run_call("the float64 reference call", fn, args, kwargs, root)
    saved = {"reference": save_output(output, f"{prefix}-reference.pt")}
    if request.backward:
        grads = gradients("the float64 reference backward", fn, args, kwargs, root)
        saved["grad-reference"] = save_output(grads, f"{prefix}-grad-reference.pt", "grad")
    return saved


def gradients(
    what: str,
    fn: Callable[..., Any],
    args: Any,
    kwargs: Any,
    root: str,
    owner: Any = None,
) -> dict[str, Any]:
    """d loss / d (parameters, floating inputs), loss = the sum of every floating output element.

    The parameters are those of `owner` (default `fn`) when it is a module: the eager module, so
    a compiled wrapper's parameters get the same names. Inputs are copied with requires_grad, so
    the arms' inputs stay as built; a parameter or input the loss does not reach has gradient None
    (saved as a non-tensor leaf, compared too)."""
    owner = fn if owner is None else owner
    inputs = [(f"input.{path}", t) for path, t in tensors_in(args, "args")]
    inputs += [(f"input.{path}", t) for path, t in tensors_in(kwargs, "kwargs")]
    copies = {id(t): t.detach().clone().requires_grad_(True) for _, t in inputs if t.is_floating_point()}
    args, kwargs = replace_tensors((args, kwargs), copies)
    parameters = list(owner.named_parameters()) if isinstance(owner, torch.nn.Module) else []
    for _, parameter in parameters:
        parameter.grad = None
    with torch.enable_grad():
        output = run_call(what.replace("backward", "call"), fn, args, kwargs, root)
        floating = [
            t
            for _, t in flatten(output, "output")
            if isinstance(t, torch.Tensor) and t.is_floating_point() and t.requires_grad
        ]
        if not floating:
            raise ChildError(
                "no-gradient", f"{what}: no floating-point output depends on a parameter or input"
            )
        loss = sum(t.sum() for t in floating)
        try:
            loss.backward()
        except BaseException as error:
            raise ChildError("run-failed", f"{what} raised {describe(error, root)}") from None
    grads: dict[str, Any] = {f"parameter.{name}": p.grad for name, p in parameters if p.requires_grad}
    grads.update({path: copies[id(t)].grad for path, t in inputs if id(t) in copies})
    return grads


def replace_tensors(value: Any, replacements: Mapping[int, Any]) -> Any:
    if isinstance(value, torch.Tensor):
        return replacements.get(id(value), value)
    if isinstance(value, tuple | list):
        return type(value)(replace_tensors(item, replacements) for item in value)
    if isinstance(value, Mapping):
        return {key: replace_tensors(item, replacements) for key, item in value.items()}
    return value


def pick_device(requested: str) -> Any:
    available = torch.cuda.is_available()
    if requested == "cuda" and not available:
        raise ChildError("cuda-unavailable", "CUDA requested but no GPU is available")
    if requested == "auto":
        requested = "cuda" if available else "cpu"
    return torch.device(requested)


def build(
    factory: Callable[..., Any], spec: str, seed: int, device: Any, dtype: Any, root: str
) -> tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]:
    seed_everything(seed)
    accepted = accepted_keywords(factory)
    offered = {"seed": seed, "device": device, "dtype": dtype}
    keywords = {key: value for key, value in offered.items() if key in accepted}
    try:
        made = factory(**keywords)
    except BaseException as error:
        raise ChildError("factory-raised", f"factory {spec} raised {describe(error, root)}") from None
    if not isinstance(made, tuple) or len(made) not in (2, 3):
        raise ChildError(
            "bad-factory-result",
            f"factory {spec} must return (fn_or_module, args) or (fn_or_module, args, kwargs), "
            f"got {type(made).__name__}",
        )
    fn, args, kwargs = (*made, {}) if len(made) == 2 else made
    if not callable(fn):
        raise ChildError("bad-factory-result", f"factory {spec}: {type(fn).__name__} is not callable")
    if not isinstance(args, tuple | list) or not isinstance(kwargs, Mapping):
        raise ChildError("bad-factory-result", f"factory {spec}: args must be a tuple and kwargs a dict")
    args, kwargs = tuple(args), dict(kwargs)
    if "device" not in accepted:
        fn, args, kwargs = move((fn, args, kwargs), device=device)
    if dtype is not None and "dtype" not in accepted:
        fn, args, kwargs = move((fn, args, kwargs), dtype=dtype)
    check_placement(spec, fn, args, kwargs, device)
    return fn, args, kwargs


def seed_everything(seed: int) -> None:
    random.seed(seed)
    torch.manual_seed(seed)  # also seeds every CUDA device
    with contextlib.suppress(ImportError):
        import numpy

        numpy.random.seed(seed)


def move(value: Any, device: Any = None, dtype: Any = None) -> Any:
    """Move modules and tensors (inside tuples, lists and dicts) to `device` / floating `dtype`."""
    if isinstance(value, torch.nn.Module):
        if device is not None:
            value = value.to(device)
        return value.to(dtype) if dtype is not None else value
    if isinstance(value, torch.Tensor):
        if device is not None:
            value = value.to(device)
        if dtype is not None and value.is_floating_point():
            value = value.to(dtype)
        return value
    if isinstance(value, tuple | list):
        return type(value)(move(item, device, dtype) for item in value)
    if isinstance(value, dict):
        return {key: move(item, device, dtype) for key, item in value.items()}
    return value


def check_placement(spec: str, fn: Any, args: Any, kwargs: Any, device: Any) -> None:
    found: list[tuple[str, Any]] = list(tensors_in(args, "args")) + list(
        tensors_in(kwargs, "kwargs")
    )
    if isinstance(fn, torch.nn.Module):
        found += [(f"parameter {name}", t) for name, t in fn.named_parameters()]
        found += [(f"buffer {name}", t) for name, t in fn.named_buffers()]
    for where, tensor in found:
        if tensor.device.type != device.type:
            raise ChildError(
                "wrong-device",
                f"factory {spec}: {where} is on {tensor.device}, but the entry point runs on {device}; "
                "build it on the `device` the factory is given (or drop the parameter and let verify move it)",
            )


def tensors_in(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    if isinstance(value, torch.Tensor):
        yield path, value
    elif isinstance(value, tuple | list):
        for index, item in enumerate(value):
            yield from tensors_in(item, f"{path}[{index}]")
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from tensors_in(item, f"{path}[{key!r}]")


def run_call(what: str, fn: Callable[..., Any], args: Any, kwargs: Any, root: str) -> Any:
    try:
        return fn(*args, **kwargs)
    except BaseException as error:
        message = str(error)
        if "same device" in message or "Expected all tensors to be on" in message:
            raise ChildError("wrong-device", f"{what} raised {describe(error, root)}") from None
        kind = "compile-failed" if "compiled" in what else "run-failed"
        raise ChildError(kind, f"{what} raised {describe(error, root)}") from None


def synchronize(device: Any) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def timed_first_call(
    device: Any, compiled_fn: Callable[..., Any], args: Any, kwargs: Any, root: str
) -> tuple[Any, float]:
    synchronize(device)
    start = time.perf_counter()
    output = run_call("the first compiled call", compiled_fn, args, kwargs, root)
    synchronize(device)
    return output, time.perf_counter() - start


def steady_state(
    device: Any,
    compiled_fn: Callable[..., Any],
    args: Any,
    kwargs: Any,
    warmup: int,
    repeat: int,
    root: str,
) -> list[float]:
    """The seconds of each of `repeat` calls after `warmup` ones (at least one call is timed)."""
    def call() -> None:
        if device.type == "cuda":
            torch.compiler.cudagraph_mark_step_begin()  # a new iteration for CUDA-graph trees
        compiled_fn(*args, **kwargs)

    try:
        for _ in range(warmup):
            call()
        samples: list[float] = []
        if device.type == "cuda":
            for _ in range(repeat):
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                synchronize(device)
                start.record()
                call()
                end.record()
                torch.cuda.synchronize(device)
                samples.append(start.elapsed_time(end) / 1000.0)
        else:
            for _ in range(repeat):
                start_s = time.perf_counter()
                call()
                samples.append(time.perf_counter() - start_s)
    except BaseException as error:
        raise ChildError("run-failed", f"a steady-state call raised {describe(error, root)}") from None
    return samples


def launch_counts(
    device: Any, compiled_fn: Callable[..., Any], args: Any, kwargs: Any
) -> dict[str, Any]:
    """On CUDA: CUDA-graph launches and kernel launches in one steady-state call (profiler)."""
    if device.type != "cuda":
        return {"cuda_graph_launches": None, "cuda_kernel_launches": None}
    from torch.profiler import ProfilerActivity, profile

    synchronize(device)
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as profiler:
        torch.compiler.cudagraph_mark_step_begin()
        compiled_fn(*args, **kwargs)
        synchronize(device)
    names = [event.name for event in profiler.events()]
    return {
        "cuda_graph_launches": sum(name in ("cudaGraphLaunch", "cuGraphLaunch") for name in names),
        "cuda_kernel_launches": sum(
            name in ("cudaLaunchKernel", "cuLaunchKernel", "cudaLaunchKernelExC") for name in names
        ),
    }


def explain(fn: Callable[..., Any], args: Any, kwargs: Any, root: str) -> dict[str, Any]:
    """Dynamo's breaks for one call: explain's, plus those only the `graph_breaks` log reports (a
    break before a frame's first tensor operation makes no graph, so explain does not count it:
    a rewrite that moves a break there must not read as a break removed)."""
    global dynamo
    if dynamo is None:
        dynamo = _load_by_path("_graphmend_census_dynamo", "census", "dynamo.py")
    torch._dynamo.reset()
    try:
        explained = dynamo.explain_breaks(fn, args, kwargs, dynamo.Tree([root]))
    except BaseException as error:
        raise ChildError("explain-failed", f"torch._dynamo.explain raised {describe(error, root)}") from None
    real_root = os.path.realpath(root)  # the breaks' paths are real paths
    reasons = [protocol.BreakReason(reason=first_line(b.reason),
                                    location=f"{relative(b.location[0], real_root)}:{b.location[1]}" if b.location else "")
               for b in explained.breaks]
    logged_only = sum(b.source == "log" for b in explained.breaks)
    count = explained.graph_break_count
    if logged_only:  # explain's count is graph_count - 1 (-1 without a graph): add what it missed
        count = max(count, 0) + logged_only
    return {"graph_count": explained.graph_count, "graph_break_count": count, "break_reasons": reasons}


def save_output(output: Any, path: str, name: str = "output") -> protocol.SavedOutput:
    """Flatten an output to {path: tensor} (saved) and {path: repr} for non-tensor leaves."""
    tensors: dict[str, Any] = {}
    leaves: dict[str, str] = {}
    for key, value in flatten(output, name):
        if isinstance(value, torch.Tensor):
            tensors[key] = value.detach().to("cpu").clone()
        else:
            leaves[key] = value
    torch.save(tensors, path)
    return protocol.SavedOutput(tensors=path, leaves=leaves)


def flatten(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    if isinstance(value, torch.Tensor):
        yield path, value
    elif isinstance(value, Mapping):  # dicts and transformers' ModelOutput
        for key, item in value.items():
            yield from flatten(item, f"{path}.{key}")
    elif isinstance(value, tuple | list):
        for index, item in enumerate(value):
            yield from flatten(item, f"{path}[{index}]")
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            yield from flatten(getattr(value, field.name), f"{path}.{field.name}")
    elif isinstance(value, float) and math.isnan(value):
        yield path, "nan"
    elif value is None or isinstance(value, bool | int | float | str):
        yield path, repr(value)
    else:
        yield path, f"<{type(value).__name__}>"


if __name__ == "__main__":
    sys.exit(main(sys.argv))
