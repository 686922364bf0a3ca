"""The draws torch._numpy.random has (vocabulary/numpy_draws.py), as Dynamo measures them on torch
2.13: a draw of one number is a 0-d tensor read back as a Python number (GB0033, GM604), found by the
differential fuzzer (`y * float(np.random.rand())`); a draw given a size is an array and traces (the
near misses, `np.random.randint(0, 3, size=4)` among them, which GM604 reported before). The
distributions torch._numpy lacks break whatever their size (GB0294, tests/test_numpy_untraced.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sample_modules import dynamo_breaks, graphmend_findings

from graphmend_bot.vocabulary.numpy_draws import SIZE_POSITION

_HEAD = (
    "import numpy as np\nimport torch\nfrom torch import nn\n\n\n"
    "class Model(nn.Module):\n"
    "    def forward(self, x):\n        x = x * 2\n"
)
LINE = 9

# the draw, and whether Dynamo breaks on it (and graphmend reports it)
CASES = {
    "np.random.rand()": True,
    "float(np.random.randn())": True,
    "np.random.random()": True,
    "np.random.random_sample()": True,
    "np.random.sample()": True,
    "np.random.uniform(0, 1)": True,
    "np.random.uniform(0.0, 1.0, None)": True,
    "np.random.normal()": True,
    "np.random.randint(3)": True,
    "np.random.randint(3, size=None)": True,
    "np.random.beta(2.0, 0.5, size=3)": True,  # no torch._numpy counterpart: GB0294
    # near misses: a size given
    "np.random.rand(3)": False,
    "np.random.randn(2, 2)": False,
    "np.random.random((2,))": False,
    "np.random.random_sample(size=2)": False,
    "np.random.uniform(0, 1, 3)": False,
    "np.random.normal(size=3)": False,
    "np.random.randint(0, 3, 4)": False,
    "np.random.randint(0, 3, size=4)": False,
}


def test_every_draw_is_measured() -> None:
    measured = {draw.removeprefix("float(").split("(")[0].removeprefix("np.random.") for draw in CASES}
    assert {name.removeprefix("numpy.random.") for name in SIZE_POSITION} <= measured


@pytest.mark.parametrize("draw", sorted(CASES))
def test_draw_as_dynamo_measures(draw: str, tmp_path: Path) -> None:
    source = _HEAD + f"        v = {draw}\n        return x + 1\n"
    dynamo = {row for row, _ in dynamo_breaks(source, tmp_path)}
    ours = {row for row, _, _ in graphmend_findings(source, tmp_path)}
    assert (LINE in dynamo) is CASES[draw], dynamo
    assert dynamo == ours, (dynamo, ours)
