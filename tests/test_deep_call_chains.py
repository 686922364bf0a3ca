"""A function that judges each call's result by the one before (`x = self.f(x) + i`, a few hundred
times) is deeper than Python's stack for the scope solver's tensor test: it used to end the whole
check with an internal RecursionError, losing every file's findings. The chain is taken as a tensor
and the check goes on; Dynamo says where it breaks."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sample_modules import dynamo_breaks, graphmend_findings  # noqa: E402

CHAIN = 300


def _sample() -> str:
    chain = "\n".join(f"        x = self.f(x) + {i}" for i in range(CHAIN))
    return (
        "import torch\n\n\nclass Model(torch.nn.Module):\n    def f(self, x):\n        return x + 1\n\n"
        f"    def forward(self, x):\n{chain}\n        print('done')\n        return x\n"
    )


def test_a_long_chain_of_calls_is_checked_and_agrees_with_dynamo(tmp_path: Path) -> None:
    source = _sample()
    line = source.splitlines().index("        print('done')") + 1
    assert dynamo_breaks(source, tmp_path) == {(line, "GB0059")}
    assert {(row, gb_id) for row, _, gb_id in graphmend_findings(source, tmp_path)} == {(line, "GB0059")}
