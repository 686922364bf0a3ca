"""GM612's managers held from outside the compiled region, each measured on torch 2.13.

A manager built in `__init__` and entered by `with self.cm:` in forward breaks with GB0142 ("Dynamo
does not know how to enter a `no_grad` context manager") for every name of REFUSED_WHEN_HELD, even
those Dynamo enters when they are built in the traced frame; the near misses are entered either way.
The locks are refused built in the traced frame too (REFUSED_ANYWHERE, `with lock:` on a local).
"""

from __future__ import annotations

import contextlib
import io
import sys
import threading
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from ground_truth import Tree, dynamo_breaks  # noqa: E402
from test_dynamo_ground_truth import load  # noqa: E402
from test_rule_fixtures import FIXTURES, reported  # noqa: E402

from graphmend_bot.rules.gm612_unsupported_context_manager import (  # noqa: E402
    LOCKS,
    REFUSED_ANYWHERE,
    REFUSED_WHEN_HELD,
)

SAMPLES: dict[str, Callable[[], Any]] = {
    "threading.Lock": threading.Lock,
    "threading.RLock": threading.RLock,
    "threading.Semaphore": lambda: threading.Semaphore(2),
    "threading.BoundedSemaphore": lambda: threading.BoundedSemaphore(2),
    "threading.Condition": threading.Condition,
    "torch.no_grad": torch.no_grad,
    "torch.enable_grad": torch.enable_grad,
    "torch.inference_mode": torch.inference_mode,
    "torch.set_grad_enabled": lambda: torch.set_grad_enabled(False),
    "contextlib.suppress": lambda: contextlib.suppress(ValueError),
    "contextlib.ExitStack": contextlib.ExitStack,
    "warnings.catch_warnings": warnings.catch_warnings,
    # refused wherever they are built: held as well
    "contextlib.redirect_stdout": lambda: contextlib.redirect_stdout(io.StringIO()),
    "torch.random.fork_rng": torch.random.fork_rng,
    "torch.autograd.set_detect_anomaly": lambda: torch.autograd.set_detect_anomaly(False),
    "torch.device": lambda: torch.device("cpu"),
}
@pytest.fixture(autouse=True)
def grad_mode_restored() -> Any:
    """`torch.set_grad_enabled(False)` sets the mode when it is built, not when entered: without
    this, building that sample turns gradients off for every later test in the process."""
    enabled = torch.is_grad_enabled()
    yield
    torch.set_grad_enabled(enabled)


ENTERED_WHEN_HELD: dict[str, Callable[[], Any]] = {
    "torch.autocast": lambda: torch.autocast("cpu", enabled=False),
    "contextlib.nullcontext": contextlib.nullcontext,
    "torch.profiler.record_function": lambda: torch.profiler.record_function("step"),
}


class Held(torch.nn.Module):
    def __init__(self, manager: Any) -> None:
        super().__init__()
        self.manager = manager

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        with self.manager:
            x = x + 1
        return x * 3


class LocalLock(torch.nn.Module):
    def __init__(self, build: Callable[[], Any]) -> None:
        super().__init__()
        self.build = build

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        lock = self.build()
        with lock:
            x = x + 1
        return x * 3


def _with_breaks(module: torch.nn.Module) -> set[str]:
    """The ids Dynamo breaks with at the `with` of `module`'s forward."""
    source = Path(__file__).read_text(encoding="utf-8").splitlines()
    code = type(module).forward.__code__
    row = next(row for row in range(code.co_firstlineno, len(source) + 1) if "with " in source[row - 1])
    explained = dynamo_breaks(module, (torch.ones(3),), {}, Tree([__file__]))
    return {b.gb_id for b in explained.breaks if b.location is not None and b.location[1] == row}


def test_every_hand_measured_name_has_a_sample() -> None:
    assert SAMPLES.keys() >= REFUSED_WHEN_HELD - REFUSED_ANYWHERE
    assert not ENTERED_WHEN_HELD.keys() & REFUSED_WHEN_HELD


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_a_held_manager_is_refused(name: str) -> None:
    assert name in REFUSED_WHEN_HELD
    assert _with_breaks(Held(SAMPLES[name]())) == {"GB0142"}


@pytest.mark.parametrize("name", sorted(ENTERED_WHEN_HELD))
def test_a_held_near_miss_is_entered(name: str) -> None:
    assert _with_breaks(Held(ENTERED_WHEN_HELD[name]())) == set()


@pytest.mark.parametrize("name", sorted(LOCKS))
def test_a_lock_built_in_the_frame_is_refused(name: str) -> None:
    assert name in REFUSED_ANYWHERE
    assert _with_breaks(LocalLock(SAMPLES[name])) == {"GB0142"}


def test_every_gm612_finding_of_its_fixture_is_a_dynamo_break() -> None:
    """Precision on the fixture: the held, global and local managers GM612 reports (the cases from
    `class Guard:` on) all break."""
    path = FIXTURES / "GM612_unsupported_context_manager.py"
    first = path.read_text(encoding="utf-8").splitlines().index("class Guard:") + 1
    breaks: set[int] = set()
    for module, args in load(path).dynamo_cases():
        explained = dynamo_breaks(module, tuple(args), {}, Tree([str(path)]))
        breaks |= {line for file, line in explained.lines if file.endswith(path.name)}
    found = {row for row, code in reported(path) if code == "GM612" and row > first}
    assert found and found <= breaks
