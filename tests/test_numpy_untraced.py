"""The NumPy functions without a torch._numpy counterpart (vocabulary/numpy_untraced.py) are the
pinned torch's, and a call of one breaks with GB0294 whatever its arguments (measured here on a
sample from each module), while functions with a counterpart trace."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from graphmend_bot.vocabulary.numpy_untraced import NUMPY_UNTRACED, TORCH_VERSION

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from numpy_untraced import build  # noqa: E402

UNSUPPORTED = "attempted to trace numpy function unsupported by PyTorch"

# One call per sampled entry: on constants, on an array the graph holds, on a tensor's values.
SAMPLES = {
    "numpy.asanyarray": "np.asanyarray(np.arange(4))",
    "numpy.isin": "np.isin(np.arange(4), [1])",
    "numpy.nanmean": "np.nanmean(y.numpy())",
    "numpy.interp": "np.interp(1.5, [1.0, 2.0], [3.0, 4.0])",
    "numpy.digitize": "np.digitize(np.arange(4), [1, 2])",
    "numpy.geterr": "np.geterr()",
    "numpy.linalg.vector_norm": "np.linalg.vector_norm(np.ones(3))",
    "numpy.fft.test": None,  # a test runner: listed, not called
    "numpy.random.beta": "np.random.beta(2.0, 0.5, size=3)",
    "numpy.random.standard_normal": "np.random.standard_normal()",
    "numpy.random.poisson": "np.random.poisson(y.numpy())",
}
TRACED = ["np.asarray(np.arange(4))", "np.where(np.arange(4) > 1, 1, 0)", "np.linalg.norm(np.ones(3))"]


def _reasons(expression: str) -> list[str]:
    namespace = {"np": np}
    exec(f"def compiled(y):\n    y = y * 2\n    value = {expression}\n    return y + 1, value\n", namespace)
    compiled = namespace["compiled"]
    torch._dynamo.reset()
    explained = torch._dynamo.explain(compiled)(torch.ones(3))
    return [reason.reason.splitlines()[0] for reason in explained.break_reasons]


def test_table_is_the_pinned_torchs() -> None:
    version, _, names = build()
    assert version == TORCH_VERSION and set(names) == NUMPY_UNTRACED, "run benchmarks/numpy_untraced.py"


@pytest.mark.parametrize("name", sorted(name for name, call in SAMPLES.items() if call))
def test_sampled_entry_breaks_with_gb0294(name: str) -> None:
    assert name in NUMPY_UNTRACED
    assert _reasons(SAMPLES[name] or "") == [UNSUPPORTED]


@pytest.mark.parametrize("expression", TRACED)
def test_functions_with_a_counterpart_trace(expression: str) -> None:
    assert _reasons(expression) == []
