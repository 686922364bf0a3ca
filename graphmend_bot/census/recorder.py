"""While a project's tests run: explain the first call of each outermost module, record the breaks.

`Recorder.install()` wraps `nn.Module.__call__` (and the configured entry-point functions). The
first call of an outermost module for a given input signature (and grad mode) is also compiled
with Dynamo and the census's own capture backend (capture.py: eager, no inductor, Dynamo's cache
kept from one call to the next) on a deep copy of the module and
clones of the inputs, before the real call runs. The test sees none of it:

- the real call runs unchanged, on the real module and inputs, and its result or exception is the
  test's; the census only watches which project lines it runs (line coverage, unless another
  tracer such as coverage.py owns `sys.settrace`);
- random number generator states are restored after explain, and explain's prints, warnings and
  log records are swallowed, so captured output, `pytest.warns` and `caplog` see only the real call;
- inside code that `torch.compile` traces, Dynamo is told that the wrapper *is* the stock
  `Module.__call__`, so it keeps short-circuiting to `forward` exactly as without the census;
- any failure of the census itself is recorded on the call, never raised.

Costs: one explain per distinct (module class, input signature), and a deep copy of the module
for it (modules over `MAX_COPY_ELEMENTS` parameters are explained in place with their state saved
and restored instead). A module none of whose code is the project's (a bare `nn.Linear` or
`nn.Sequential` of torch layers that a test calls) is neither explained nor traced: a break can
only be recorded on a project line, and nothing of the project's can run inside it (no submodule,
method, hook or callable attribute of it comes from the project's files). Frames an earlier
explained call compiled are not traced again while their guards hold; the census's cache entries
belong to its own backend, so a test's own `torch.compile` neither runs nor reuses them.
"""

from __future__ import annotations

import contextlib
import copy
import enum
import functools
import importlib
import io
import linecache
import logging
import random
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import CodeType, FrameType
from typing import TYPE_CHECKING, Any

import torch

from graphmend_bot.census.dynamo import Explained, Tree, normalise
from graphmend_bot.census.fingerprint import enclosing_function, normalised_source
from graphmend_bot.census.record import MAX_TESTS_PER_BREAK, BreakRecord, CallRecord, Census

if TYPE_CHECKING:
    from graphmend_bot.census.capture import KeptCacheExplainer

MAX_COPY_ELEMENTS = 200_000_000
MAX_SIGNATURE_ITEMS = 32
MAX_SIGNATURE_TEXT = 200


def signature(value: Any, depth: int = 0) -> Any:
    """What Dynamo specialises on, roughly: tensor shapes, dtypes and devices, container structure,
    a module's class and train/eval mode, and the values of constants (None, bools, numbers, short
    strings, enums: `method="milstein"` runs other code than `method="euler"`). Calls with equal
    signatures are explained once."""
    if isinstance(value, torch.Tensor):
        return ("tensor", tuple(value.shape), str(value.dtype), value.device.type, value.requires_grad)
    if isinstance(value, torch.nn.Module):
        return ("module", type(value).__qualname__, value.training)
    if isinstance(value, int | float | enum.Enum) or (isinstance(value, str) and len(value) <= MAX_SIGNATURE_TEXT):
        return (type(value).__name__, repr(value))  # repr: a NaN equals itself
    if depth >= 3:
        return (type(value).__name__,)
    if isinstance(value, list | tuple):
        return (type(value).__name__, tuple(signature(v, depth + 1) for v in value[:MAX_SIGNATURE_ITEMS]))
    if isinstance(value, dict):
        items = list(value.items())[:MAX_SIGNATURE_ITEMS]
        return ("dict", tuple((str(k), signature(v, depth + 1)) for k, v in items))
    if value is None or isinstance(value, bool):
        return (value,)
    return (type(value).__name__,)


def grad_mode() -> tuple[bool, bool]:
    """Dynamo guards on grad mode and traces other code without it (a library's `no_grad` paths,
    `requires_grad` checks): a call under `torch.no_grad()` or inference mode is another signature."""
    return torch.is_grad_enabled(), torch.is_inference_mode_enabled()


def clone_inputs(value: Any) -> Any:
    """Tensors cloned (a call may change its inputs in place); everything else shared."""
    def clone(tensor: torch.Tensor) -> torch.Tensor:
        copied = tensor.detach().clone()
        return copied.requires_grad_(tensor.requires_grad) if copied.is_floating_point() or copied.is_complex() \
            else copied

    return torch.utils._pytree.tree_map_only(torch.Tensor, clone, value)


RngStates = tuple[Any, torch.Tensor, Any, Any]  # Python's, torch's, CUDA's (or None), numpy's (or None)


def _rng_states() -> RngStates:
    cuda_states = torch.cuda.get_rng_state_all() if torch.cuda.is_available() and torch.cuda.is_initialized() \
        else None
    numpy = sys.modules.get("numpy")
    return (random.getstate(), torch.random.get_rng_state(), cuda_states,
            numpy.random.get_state() if numpy is not None else None)


def _set_rng_states(states: RngStates) -> None:
    python_state, torch_state, cuda_states, numpy_state = states
    random.setstate(python_state)
    torch.random.set_rng_state(torch_state)
    if cuda_states is not None:
        torch.cuda.set_rng_state_all(cuda_states)
    numpy = sys.modules.get("numpy")
    if numpy is not None and numpy_state is not None:
        numpy.random.set_state(numpy_state)


@contextlib.contextmanager
def _rng_preserved(start: RngStates | None = None) -> Iterator[None]:
    """The random states as they were, afterwards; `start`: the states to run from (those the real
    call started from, when the call is explained after it ran)."""
    saved = _rng_states()
    if start is not None:
        _set_rng_states(start)
    try:
        yield
    finally:
        _set_rng_states(saved)


@dataclass
class _Snapshot:
    """A call's subject and inputs as they were before the real call ran (it may change both), and
    the random states it started from: what is explained afterwards in pull-request mode."""

    subject: Any
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    rng: RngStates


class _OnlyTorchRecords(logging.Filter):
    """While explain runs, the project's own log records are not the test's to see."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.name.startswith("torch")


@contextlib.contextmanager
def _silenced() -> Iterator[None]:
    quiet = _OnlyTorchRecords()
    handlers = list(logging.getLogger().handlers)
    for handler in handlers:
        handler.addFilter(quiet)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            yield
    finally:
        for handler in handlers:
            handler.removeFilter(quiet)


@contextlib.contextmanager
def _state_preserved(module: torch.nn.Module) -> Iterator[None]:
    saved = {name: tensor.detach().clone() for name, tensor in module.state_dict(keep_vars=True).items()}
    try:
        yield
    finally:
        current = module.state_dict(keep_vars=True)
        with torch.no_grad():
            for name, tensor in saved.items():
                if name in current and current[name].shape == tensor.shape:
                    current[name].copy_(tensor)


def _size(module: torch.nn.Module) -> int:
    return sum(p.numel() for p in module.parameters()) + sum(b.numel() for b in module.buffers())


class Recorder:
    def __init__(self, root: Path, tree: Tree, commit: str = "", changed: tuple[str, set[str]] | None = None) -> None:
        """`changed`: (base commit, files changed since it, relative to `root`) in pull-request mode,
        where only calls that reach a changed file are explained; None to explain every call."""
        self.root = root
        self.tree = tree
        self._explainer: KeptCacheExplainer | None = None
        self.census = Census(commit=commit, torch=torch.__version__.split("+")[0])
        self.changed: set[str] | None = None
        if changed is not None:
            self.census.changed_since, self.changed = changed[0], set(changed[1])
            self.census.changed_files = sorted(self.changed)
        self.unchanged_calls = 0  # first calls not explained: they reach no changed file (the base census has them)
        self.current_test = ""
        self._seen: set[Any] = set()
        self.skipped: set[str] = set()  # targets not explained: no project code can run in them
        self._project_classes: dict[type, bool] = {}
        self._breaks: dict[tuple[str, int], BreakRecord] = {}
        self._executed: dict[str, set[int]] = {}
        self._local = threading.local()
        self._original_call: Callable[..., Any] | None = None
        self._wrapped_functions: list[tuple[Any, str, Any]] = []

    # -- installing ------------------------------------------------------------------------------
    def install(self) -> None:
        original = torch.nn.Module.__call__
        recorder = self

        @functools.wraps(original)
        def census_call(module: torch.nn.Module, *args: Any, **kwargs: Any) -> Any:
            if torch.compiler.is_compiling() or recorder._busy():
                return original(module, *args, **kwargs)
            return recorder._outermost(module, original, args, kwargs)

        self._original_call = original
        torch.nn.Module.__call__ = census_call  # type: ignore[method-assign]
        self._tell_dynamo(census_call)

    def uninstall(self) -> None:
        if self._original_call is not None:
            torch.nn.Module.__call__ = self._original_call  # type: ignore[method-assign]
            self._tell_dynamo(self._original_call)
            self._original_call = None
        for owner, name, value in reversed(self._wrapped_functions):
            setattr(owner, name, value)
        self._wrapped_functions.clear()

    @property
    def explainer(self) -> KeptCacheExplainer:
        """Made on the first explain: importing Dynamo costs a second of CPU, which a pull-request
        mode run whose calls reach no changed file never pays."""
        if self._explainer is None:
            from graphmend_bot.census.capture import KeptCacheExplainer

            self._explainer = KeptCacheExplainer(self.tree)
        return self._explainer

    @staticmethod
    def _tell_dynamo(call: Callable[..., Any]) -> None:
        """Dynamo short-circuits `Module.__call__` to `forward` only when it is the stock one (it
        compares with a copy taken at import); the wrapper must not change what a test compiles.
        Dynamo not imported yet takes its copy when it is, from the wrapper then installed."""
        nn_module = sys.modules.get("torch._dynamo.variables.nn_module")
        if nn_module is not None and hasattr(nn_module, "unpatched_nn_module_call"):
            setattr(nn_module, "unpatched_nn_module_call", call)  # noqa: B010 (a module found at run time)

    def wrap_entry_point(self, spec: str) -> str:
        """Wrap `pkg.module:function` or `pkg.module:Class.method`; "" or why it could not be."""
        module_name, _, qualname = spec.partition(":")
        if not module_name or not qualname or "*" in spec:
            return f"{spec}: not a `module:function` entry point (wildcards are not followed)"
        try:
            owner: Any = importlib.import_module(module_name)
            *parents, name = qualname.split(".")
            for part in parents:
                owner = getattr(owner, part)
            function = getattr(owner, name)
        except Exception as error:  # an entry point the tests cannot import is reported, not fatal
            return f"{spec}: cannot import it ({type(error).__name__}: {error})"
        if not callable(function):
            return f"{spec}: not callable"
        recorder = self

        @functools.wraps(function)
        def census_entry(*args: Any, **kwargs: Any) -> Any:
            if torch.compiler.is_compiling() or recorder._busy():
                return function(*args, **kwargs)
            return recorder._explained_call(spec, function, function, args, kwargs)

        self._wrapped_functions.append((owner, name, function))
        setattr(owner, name, census_entry)
        for module, alias in self._reexports(function, owner):
            self._wrapped_functions.append((module, alias, function))
            setattr(module, alias, census_entry)
        return ""

    def _reexports(self, function: Any, owner: Any) -> list[tuple[Any, str]]:
        """Where the project's loaded modules bind the same function under some name (a package's
        `from ._impl.solver import odeint`): callers that go through the re-export must reach the
        wrapper too. Third-party modules are left alone."""
        found = []
        for module in list(sys.modules.values()):
            file = getattr(module, "__file__", None)
            if module is owner or file is None or file not in self.tree:
                continue
            found += [(module, alias) for alias, value in list(vars(module).items()) if value is function]
        return found

    # -- one call --------------------------------------------------------------------------------
    def _busy(self) -> bool:
        return getattr(self._local, "depth", 0) > 0

    @contextlib.contextmanager
    def _inside(self) -> Iterator[None]:
        self._local.depth = getattr(self._local, "depth", 0) + 1
        try:
            yield
        finally:
            self._local.depth -= 1

    def _outermost(self, module: torch.nn.Module, original: Callable[..., Any], args: tuple[Any, ...],
                   kwargs: dict[str, Any]) -> Any:
        target_module = getattr(module, "_orig_mod", module)  # torch.compile(model): census the model
        target = f"{type(target_module).__module__}.{type(target_module).__qualname__}"
        return self._explained_call(target, functools.partial(original, module), target_module, args, kwargs)

    def _explained_call(self, target: str, call: Callable[..., Any], subject: Any, args: tuple[Any, ...],
                        kwargs: dict[str, Any]) -> Any:
        with self._inside():
            key: tuple[Any, ...]
            try:
                key = (target, signature(subject), signature(args), signature(kwargs), grad_mode())
            except Exception:  # an odd argument: census it by target alone
                key = (target,)
            first = key not in self._seen
            if first:
                self._seen.add(key)
                if not self._may_run_project_code(subject):
                    first = False
                    self.skipped.add(target)
                elif self.changed is not None:
                    return self._explained_if_changed(target, call, subject, args, kwargs)
                else:
                    self._explain(target, subject, args, kwargs)
            return self._run(call, args, kwargs, trace=first)

    def _explained_if_changed(self, target: str, call: Callable[..., Any], subject: Any, args: tuple[Any, ...],
                              kwargs: dict[str, Any]) -> Any:
        """Pull-request mode: the real call runs first, traced; its snapshot is explained afterwards
        only if the call's frames, or the frames that made it (the test), reach a changed file. A
        call the census cannot snapshot or trace is explained as in a whole census."""
        changed = self.changed or set()
        snapshot = self._snapshot(subject, args, kwargs) if sys.gettrace() is None else None
        if snapshot is None:
            self._explain(target, subject, args, kwargs)
            return self._run(call, args, kwargs, trace=True)
        reached = self._calling_files()
        executed: dict[str, set[int]] = {}
        try:
            return self._run(call, args, kwargs, trace=True, reached=reached, executed=executed)
        finally:
            if reached & changed:
                self._explain(target, snapshot.subject, snapshot.args, snapshot.kwargs, snapshot.rng)
                for path, lines in executed.items():
                    self._executed.setdefault(path, set()).update(lines)
            else:  # its lines are not "ran without a break": Dynamo did not look at them
                self.unchanged_calls += 1

    def _snapshot(self, subject: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> _Snapshot | None:
        if isinstance(subject, torch.nn.Module):
            if _size(subject) > MAX_COPY_ELEMENTS:
                return None
            try:
                subject = copy.deepcopy(subject)
            except Exception:  # locks, file handles, C objects
                return None
        try:
            return _Snapshot(subject, clone_inputs(args), clone_inputs(kwargs), _rng_states())
        except Exception:
            return None

    def _calling_files(self) -> set[str]:
        """The project's files on the stack that made the call: the test, its helpers."""
        files = set()
        frame: FrameType | None = sys._getframe(1)
        while frame is not None:
            if frame.f_code.co_filename in self.tree:
                files.add(self._relative(normalise(frame.f_code.co_filename)))
            frame = frame.f_back
        return files

    def _may_run_project_code(self, subject: Any) -> bool:
        """False only for a module whose every submodule's class, hook and callable attribute comes
        from outside the project: Dynamo's breaks there are on no project line, and no project line
        runs. Anything else (an entry point, global module hooks) is explained."""
        if not isinstance(subject, torch.nn.Module):
            return True
        hooks = torch.nn.modules.module
        if any(getattr(hooks, name, None) for name in ("_global_forward_hooks", "_global_forward_pre_hooks")):
            return True
        for module in subject.modules():
            if self._project_class(type(module)) or module._forward_hooks or module._forward_pre_hooks:
                return True
            if any(callable(value) and not isinstance(value, torch.nn.Module | torch.Tensor | type)
                   for value in vars(module).values()):
                return True
        return False

    def _project_class(self, cls: type) -> bool:
        """Whether any class in `cls`'s method resolution order is defined in the project's files."""
        known = self._project_classes.get(cls)
        if known is None:
            known = False
            for klass in cls.__mro__:
                file = getattr(sys.modules.get(klass.__module__), "__file__", None)
                if file is None and klass.__module__ not in ("builtins",) and klass is not object:
                    known = True  # defined somewhere we cannot place (exec, a notebook): assume the project's
                    break
                if file is not None and file in self.tree:
                    known = True
                    break
            self._project_classes[cls] = known
        return known

    def _explain(self, target: str, subject: Any, args: tuple[Any, ...], kwargs: dict[str, Any],
                 rng: RngStates | None = None) -> None:
        record = CallRecord(target, self.current_test)
        self.census.calls.append(record)
        started = time.perf_counter()
        try:
            explained = self._explained(subject, args, kwargs, rng)
        except Exception as error:
            record.error = f"{type(error).__name__}: {str(error).strip().splitlines()[0][:300] if str(error) else ''}"
            return
        finally:
            record.seconds = round(time.perf_counter() - started, 3)
        # explain says -1 breaks when it made no graph at all
        record.graph_count, record.graph_break_count = explained.graph_count, max(0, explained.graph_break_count)
        record.recompiles, record.fallbacks = explained.recompiles, explained.fallbacks
        self._add_breaks(explained)

    def _explained(self, subject: Any, args: tuple[Any, ...], kwargs: dict[str, Any],
                   rng: RngStates | None = None) -> Explained:
        """Explained on a copy of the subject and clones of the inputs; a second time from a reset
        cache when a recompile limit cut the first short (capture.py)."""
        for fresh in (False, True):
            if fresh:
                self.explainer.reset()
            cloned_args, cloned_kwargs = clone_inputs(args), clone_inputs(kwargs)
            with _rng_preserved(rng), _silenced(), self._copy_of(subject) as copied:
                explained, cut_short = self.explainer.explain(copied, cloned_args, cloned_kwargs)
            if not cut_short:
                break
        return explained

    @contextlib.contextmanager
    def _copy_of(self, subject: Any) -> Iterator[Any]:
        if not isinstance(subject, torch.nn.Module):
            yield subject
            return
        copied = None
        if _size(subject) <= MAX_COPY_ELEMENTS:
            try:
                copied = copy.deepcopy(subject)
            except Exception:  # locks, file handles, C objects: explain in place instead
                copied = None
        if copied is not None:
            yield copied
            return
        with _state_preserved(subject):
            yield subject

    def _add_breaks(self, explained: Explained) -> None:
        for found in explained.breaks:
            if found.location is None:
                continue
            path, line = self._relative(found.location[0]), found.location[1]
            record = self._breaks.get((path, line))
            if record is None:
                record = self._breaks[(path, line)] = BreakRecord(
                    path, line, found.reason[:500], found.gb_id, function=enclosing_function(found.location[0], line),
                    source=normalised_source(linecache.getline(found.location[0], line))[:500])
                self.census.breaks.append(record)
            if self.current_test not in record.tests and len(record.tests) < MAX_TESTS_PER_BREAK:
                record.tests.append(self.current_test)

    def _relative(self, path: str) -> str:
        return Path(path).relative_to(normalise(str(self.root))).as_posix()

    # -- the real call, with line coverage -------------------------------------------------------
    def _run(self, call: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], trace: bool,
             reached: set[str] | None = None, executed: dict[str, set[int]] | None = None) -> Any:
        """The real call; when `trace`, the project lines it runs are recorded (in `executed`, else the
        census's), and the files of the project frames it enters are added to `reached`."""
        if not trace:
            return call(*args, **kwargs)
        if sys.gettrace() is not None:  # coverage.py or a debugger owns the tracer: leave it alone
            self.census.coverage = False
            return call(*args, **kwargs)
        wanted: dict[CodeType, str | None] = {}
        executed = self._executed if executed is None else executed

        def line(frame: FrameType, event: str, arg: Any) -> Any:
            if event == "line":
                path = wanted[frame.f_code]
                if path is not None:
                    executed.setdefault(path, set()).add(frame.f_lineno)
            return line

        def call_event(frame: FrameType, event: str, arg: Any) -> Any:
            code = frame.f_code
            if code not in wanted:
                wanted[code] = self._relative(normalise(code.co_filename)) if code.co_filename in self.tree else None
            path = wanted[code]
            if path is None:
                return None
            executed.setdefault(path, set()).add(frame.f_lineno)
            if reached is not None:
                reached.add(path)
            return line

        sys.settrace(call_event)
        try:
            return call(*args, **kwargs)
        finally:
            sys.settrace(None)

    def finish(self, complete: bool = True) -> Census:
        """The census so far; `complete=False` for a copy written while the tests still run."""
        self.census.executed = {path: sorted(lines) for path, lines in sorted(self._executed.items())}
        self.census.complete = complete
        return self.census
