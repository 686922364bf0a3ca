"""The census keeps Dynamo's cache from one explained call to the next (capture.py) and tells grad
modes apart. Each case is measured live with Dynamo on a small project module:

- grad mode is part of a call's signature: code that Dynamo traces only under `torch.no_grad()`
  breaks there (found on the wild benchmark: gpytorch's `MultivariateNormal.log_prob` breaks at
  line 236 only with grad off);
- a frame Dynamo skipped for good on one call (a break in a loop) is traced again on the next call,
  which takes another path through it (gpytorch's `ExactGP.__call__` is skipped in training mode;
  its eval-mode breaks went unrecorded until the mark was cleared);
- a call past Dynamo's recompile limit (which the kept cache reaches sooner) is explained again
  from a reset cache;
- a second call at another size is traced with symbolic sizes, as Dynamo's automatic dynamic
  shapes do in a user's program, so a break only a symbolic size meets is recorded (gpytorch's
  `noise_models.py:92`, a `sorted()` over a SymInt inside linear_operator).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from graphmend_bot.census.dynamo import Tree  # noqa: E402
from graphmend_bot.census.recorder import Recorder  # noqa: E402

PATHS = """\
import torch


def grad_dependent(x):
    y = x * 2
    if not torch.is_grad_enabled():
        print("no grad")  # break: only under no_grad
    return y + 1


def looped_or_not(x, mode):
    y = x * 2
    if mode == "loop":
        for _ in range(2):
            print("step")  # break in a loop: Dynamo skips the whole frame
            y = y + 1
        return y
    z = y + 1
    print("straight")  # break on the other path
    return z * 3


def by_mode(x, mode):
    y = x * 2
    if mode == "m9":
        print("nine")  # break only in the tenth mode
    return y


def size_dependent(x):
    y = x * 2
    n = x.shape[0]
    order = sorted([(n, "a"), (1, "b")])  # break only when n is symbolic
    return y + order[0][0]
"""


@pytest.fixture
def recorder(tmp_path: Path) -> Iterator[Recorder]:
    (tmp_path / "census_paths.py").write_text(PATHS)
    sys.path.insert(0, str(tmp_path))
    recorder = Recorder(tmp_path, Tree([str(tmp_path)]))
    try:
        for name in ("grad_dependent", "looped_or_not", "size_dependent", "by_mode"):
            assert recorder.wrap_entry_point(f"census_paths:{name}") == ""
        recorder.current_test = "tests/test_paths.py::test_it"
        yield recorder
    finally:
        recorder.uninstall()
        sys.path.remove(str(tmp_path))
        sys.modules.pop("census_paths", None)
        torch._dynamo.reset()


def _break_lines(recorder: Recorder) -> set[int]:
    return {record.line for record in recorder.finish().breaks}


def test_a_call_under_no_grad_is_explained_again(recorder: Recorder, capsys: pytest.CaptureFixture[str]) -> None:
    paths = importlib.import_module("census_paths")
    assert paths.grad_dependent(torch.ones(3)).tolist() == [3.0, 3.0, 3.0]
    with torch.no_grad():
        assert paths.grad_dependent(torch.ones(3)).tolist() == [3.0, 3.0, 3.0]
    assert len(recorder.census.calls) == 2
    assert _break_lines(recorder) == {7}
    assert capsys.readouterr().out == "no grad\n"  # the real call's print only: explain's is swallowed


def test_a_frame_dynamo_skipped_is_traced_again_on_the_next_call(recorder: Recorder) -> None:
    paths = importlib.import_module("census_paths")
    paths.looped_or_not(torch.ones(3), "loop")
    assert paths.looped_or_not(torch.ones(3), "straight").tolist() == [9.0, 9.0, 9.0]
    assert _break_lines(recorder) == {15, 19}


def test_a_second_size_is_traced_with_symbolic_sizes(recorder: Recorder) -> None:
    paths = importlib.import_module("census_paths")
    paths.size_dependent(torch.ones(3))
    assert _break_lines(recorder) == set()  # static sizes: sorted() over ints is fine
    paths.size_dependent(torch.ones(5))
    assert _break_lines(recorder) == {33}



def test_a_call_past_dynamos_recompile_limit_is_explained_from_a_reset_cache(recorder: Recorder) -> None:
    """Each mode is a constant Dynamo guards on: one more compile of the same frame per call. Past
    `recompile_limit` (8) Dynamo runs the frame eagerly and would report nothing; the census sees
    Dynamo's warning and explains that call again from a reset cache."""
    paths = importlib.import_module("census_paths")
    for mode in range(10):
        paths.by_mode(torch.ones(3), f"m{mode}")
    assert len(recorder.census.calls) == 10
    assert _break_lines(recorder) == {26}
    assert recorder.explainer.resets >= 1


def test_the_stack_above_dynamo_is_the_same_from_cached_positions() -> None:
    """The census lists each code object's source positions once per session (capture.py); the
    stack Dynamo records for a break, carets included, is the one its own function builds."""
    import torch._dynamo.exc as exc

    from graphmend_bot.census.capture import _stacks_from_cached_positions

    def grab(extract: Any) -> list[tuple[Any, ...]]:
        return [(f.filename, f.lineno, f.name, f.colno, f.end_colno) for f in extract()]

    def host(extract: Any) -> list[tuple[Any, ...]]:
        return grab(extract)

    # On the stack, a code object with an unhashable constant, as code Dynamo generates may have.
    host.__code__ = host.__code__.replace(co_consts=(*host.__code__.co_consts, {}))
    original = exc._extract_stack_with_positions
    with _stacks_from_cached_positions():
        patched = exc._extract_stack_with_positions
        assert patched is not original
        stacks = [host(extract) for extract in (original, patched, patched)]
    assert exc._extract_stack_with_positions is original
    assert stacks[0] == stacks[1] == stacks[2] and any(colno is not None for *_, colno, _ in stacks[0])


def test_the_cyclic_collector_is_paused_while_a_call_is_explained(tmp_path: Path) -> None:
    """Tracing allocates millions of objects and the collections they trigger walk Dynamo's caches
    again and again: the collector is off during an explain, and as it was afterwards."""
    import gc

    from graphmend_bot.census.capture import KeptCacheExplainer
    from graphmend_bot.census.dynamo import Tree

    seen: list[bool] = []

    @torch.compiler.disable  # runs as it is, when the explained call runs: Dynamo does not fold it
    def collector_state() -> None:
        seen.append(gc.isenabled())

    def call(x: torch.Tensor) -> torch.Tensor:
        collector_state()
        return x * 2

    assert gc.isenabled()
    KeptCacheExplainer(Tree([str(tmp_path)])).explain(call, (torch.ones(2),), {})
    assert seen and not any(seen) and gc.isenabled()
