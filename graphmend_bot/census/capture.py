"""Dynamo's capture for a whole census, with Dynamo's cache kept from one explained call to the next.

`torch._dynamo.explain` resets every cache before and after it runs, so a suite that calls the
same solver from ten tests makes Dynamo trace the same frames ten times. The census instead
compiles each explained call with `torch.compile(fn, backend=capture)`, one capture backend for the
whole session (the eager backend: no inductor), and never resets:

- a frame whose guards still hold runs its cached code and is not traced again. Breaks are
  compile-time events: a cache hit would only repeat breaks already recorded for an earlier call;
- a frame that recompiles because a size changed is made dynamic by Dynamo's own automatic dynamic
  shapes, exactly as in a user's long-running compiled program, so breaks that only a symbolic
  size meets (a `sorted()` over a SymInt) are recorded too;
- a frame Dynamo skipped (it marks the code, not the inputs) is unmarked after each call, so a
  later call on other inputs traces it again;
- Dynamo only reuses an entry compiled by the same backend object, so a test's own
  `torch.compile` never runs the census's code, nor the census the test's.

Python's cyclic collector is paused while a call is explained (gc_pause.py): tracing allocates
millions of objects that reference counting frees, and the collections they trigger walk Dynamo's
growing caches again and again (a tenth of an explain's CPU on torchdiffeq); what cycles it made
are collected when the call ends.

When a frame reaches Dynamo's recompile limit, Dynamo stops tracing it and breaks past the limit
would go unseen: the call is then explained again from a reset cache (the old, exact behaviour).
"""

from __future__ import annotations

import contextlib
import logging
import sys
import warnings
from collections.abc import Callable, Iterator
from traceback import FrameSummary, StackSummary
from types import CodeType, FrameType
from typing import Any

import torch
from torch._dynamo.utils import counters

from graphmend_bot.census.dynamo import Explained, Tree, graph_break_log, mapped_breaks, recompiles
from graphmend_bot.gc_pause import collector_paused

RECOMPILE_LIMIT_MARK = "torch._dynamo hit config."
STRUCTURED_TRACE_LOG = "torch.__trace"  # torch._logging._internal.trace_log


@contextlib.contextmanager
def _without_telemetry() -> Iterator[None]:
    """Skip what Dynamo does after each compile for its own metrics, not for tracing: a timed run of
    the new guards after a cache flush (`profile_guard_manager`, 12% of the census's time on
    torchdiffeq), a garbage collection pass, and its structured trace (tlparse's `torch.__trace`
    log). That log does nothing unless it has a handler, and under pytest it always has one:
    pytest attaches its capture handlers to every logger that does not propagate, so each of
    thousands of events per explain would be built, JSON-encoded and captured (a tenth of the
    census's time). None of it changes what is traced or guarded."""
    import torch._dynamo.guards as guards

    profile = getattr(guards, "profile_guard_manager", None)
    if profile is not None:
        guards.profile_guard_manager = lambda *args: 0.0
    trace_log = logging.getLogger(STRUCTURED_TRACE_LOG)
    handlers = list(trace_log.handlers)
    for handler in handlers:
        trace_log.removeHandler(handler)
    try:
        with torch._dynamo.config.patch(run_gc_after_compile=False):
            yield
    finally:
        if profile is not None:
            guards.profile_guard_manager = profile
        for handler in handlers:
            if handler not in trace_log.handlers:
                trace_log.addHandler(handler)


@contextlib.contextmanager
def _stacks_from_cached_positions() -> Iterator[None]:
    """Dynamo records "the stack above Dynamo" for every graph break and unsupported construct, and
    for each of its 100-200 frames lists all the source positions of the frame's code to pick one:
    a tenth of the census's time on torchdiffeq. The same stack, with the positions of each code
    object listed once per session."""
    import torch._dynamo.exc as exc

    original = getattr(exc, "_extract_stack_with_positions", None)
    if original is None:  # another torch: its own
        yield
        return
    positions = _POSITIONS

    def extract_stack_with_positions() -> StackSummary:
        stack = StackSummary()
        frame: FrameType | None = sys._getframe(1)
        while frame is not None:
            code = frame.f_code
            kwargs: dict[str, Any] = {}
            if frame.f_lasti >= 0:
                known = positions.get(id(code))
                if known is None:
                    known = positions[id(code)] = (code, list(code.co_positions()))
                listed = known[1]
                index = frame.f_lasti // 2
                if index < len(listed):
                    _, _, kwargs["colno"], kwargs["end_colno"] = listed[index]
            stack.append(FrameSummary(code.co_filename, frame.f_lineno, code.co_name, lookup_line=False, **kwargs))
            frame = frame.f_back
        stack.reverse()
        return stack

    exc._extract_stack_with_positions = extract_stack_with_positions
    try:
        yield
    finally:
        exc._extract_stack_with_positions = original


# id(code object) -> (the code object, its source positions): keyed by id, as a code object Dynamo
# generates may hold unhashable constants; the entry keeps the code alive, so its id is not reused.
_POSITIONS: dict[int, tuple[CodeType, list[Any]]] = {}


class _CaptureBackend:
    """Counts the graphs Dynamo hands over and keeps their break reasons; runs them eagerly."""

    def __init__(self) -> None:
        self.graphs = 0
        self.break_reasons: list[Any] = []

    def __call__(self, gm: torch.fx.GraphModule, example_inputs: list[Any]) -> Callable[..., Any]:
        self.graphs += 1
        reason = getattr(gm, "compile_subgraph_reason", None)
        if reason is not None and reason.graph_break:
            self.break_reasons.append(reason)
        return gm.forward


class KeptCacheExplainer:
    def __init__(self, tree: Tree) -> None:
        self.tree = tree
        self.backend = _CaptureBackend()
        self.resets = 0  # calls explained again from a reset cache (a recompile limit was hit)

    def explain(self, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Explained, bool]:
        """The breaks Dynamo meets compiling and running `fn(*args, **kwargs)`, and whether a
        recompile limit stopped it (then `reset()` and explain the call again on fresh inputs)."""
        self.backend.graphs, self.backend.break_reasons = 0, []
        frames = dict(counters["frames"])
        try:
            with warnings.catch_warnings(), graph_break_log() as log, _without_telemetry(), \
                    _stacks_from_cached_positions(), collector_paused():
                warnings.simplefilter("ignore")
                torch.compile(fn, backend=self.backend)(*args, **kwargs)
        finally:  # a call explain cannot handle must not leave its frames skipped for the next one
            self._forget_skipped_frames()
        graphs = self.backend.graphs
        explained = mapped_breaks(graphs, graphs - 1, self.backend.break_reasons, log.messages, self.tree)
        explained.recompiles = recompiles(log.messages)
        # Dynamo's own count: a frame it was handed ("total") and could not convert (no "ok") ran eagerly
        explained.fallbacks = max(0, (counters["frames"]["total"] - frames.get("total", 0))
                                  - (counters["frames"]["ok"] - frames.get("ok", 0)))
        return explained, any(RECOMPILE_LIMIT_MARK in message for message in log.messages)

    @staticmethod
    def _forget_skipped_frames() -> None:
        """A frame Dynamo gave up on (a break in a loop, an error it suppressed, no tensor work on
        these inputs) is skipped for good: its code is marked, not its inputs. Another call may take
        another path through that code, so the mark is cleared and the next call traces it again.
        Frames with compiled entries keep them: their guards decide."""
        from torch._C._dynamo.eval_frame import _debug_get_cache_entry_list, reset_code
        from torch._dynamo.convert_frame import input_codes

        for ref in list(input_codes.seen):
            code = ref()
            if code is not None and not _debug_get_cache_entry_list(code):
                reset_code(code)

    def reset(self) -> None:
        self.resets += 1
        torch._dynamo.reset()
