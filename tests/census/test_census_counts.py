"""Per call, the census records Dynamo's recompiles and the frames it ran eagerly (census --compare
reports them per target). Measured live with Dynamo on a small project file."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from graphmend_bot.census.capture import KeptCacheExplainer  # noqa: E402
from graphmend_bot.census.dynamo import Tree  # noqa: E402

SOURCE = """\
import contextlib


@contextlib.contextmanager
def ctx():
    yield


def in_context(x):
    with ctx():
        print("in context")  # Dynamo cannot resume here: the frame runs eagerly
        return x + 1


def clean(x):
    return x.relu() * 2
"""


def test_recompiles_and_fallbacks_to_eager_are_counted(tmp_path: Path) -> None:
    (tmp_path / "counted.py").write_text(SOURCE)
    sys.path.insert(0, str(tmp_path))
    try:
        module = importlib.import_module("counted")
        explainer = KeptCacheExplainer(Tree([str(tmp_path)]))
        first, _ = explainer.explain(module.clean, (torch.ones(2),), {})
        other_dtype, _ = explainer.explain(module.clean, (torch.ones(2, dtype=torch.float64),), {})
        eager, _ = explainer.explain(module.in_context, (torch.ones(2),), {})
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("counted", None)
        torch._dynamo.reset()
    assert (first.graph_count, first.recompiles, first.fallbacks) == (1, 0, 0)
    assert (other_dtype.graph_count, other_dtype.recompiles, other_dtype.fallbacks) == (1, 1, 0)
    assert eager.graph_count == 0 and eager.fallbacks >= 1 and eager.recompiles == 0


def test_dynamos_structured_trace_is_not_built_while_explaining(tmp_path: Path) -> None:
    """pytest attaches its log capture to every logger that does not propagate, Dynamo's structured
    trace (`torch.__trace`) included; with a handler there, Dynamo builds, JSON-encodes and emits
    thousands of trace events per explain. The census detaches them while it explains, and puts
    them back afterwards."""
    import logging

    class Counting(logging.Handler):
        def __init__(self) -> None:
            super().__init__(logging.DEBUG)
            self.records = 0

        def emit(self, record: logging.LogRecord) -> None:
            self.records += 1

    trace_log = logging.getLogger("torch.__trace")
    counting = Counting()
    trace_log.addHandler(counting)
    (tmp_path / "traced.py").write_text(SOURCE)
    sys.path.insert(0, str(tmp_path))
    try:
        module = importlib.import_module("traced")
        explained, _ = KeptCacheExplainer(Tree([str(tmp_path)])).explain(module.clean, (torch.ones(2),), {})
        assert counting in trace_log.handlers
    finally:
        trace_log.removeHandler(counting)
        sys.path.remove(str(tmp_path))
        sys.modules.pop("traced", None)
        torch._dynamo.reset()
    assert explained.graph_count == 1
    assert counting.records == 0
