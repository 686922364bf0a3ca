"""A long `try` body costs what the same statements cost under an `if`: whether a break at a row of
the body ends the frame (skipped_frames.FrameSkips.ends_frame) is asked at every call site in it,
and a scan of the body's row ranges per site made it quadratic (9.2 s against 1.6 s for 16,000
statements on lead d5c9d0d9). Timed by CPU time, the best of two runs, with a wide margin."""

from __future__ import annotations

import time
from pathlib import Path

from graphmend_bot.config import Config
from graphmend_bot.engine import check

STATEMENTS = 8000


def _source(header: str, footer: str) -> str:
    body = "\n".join(f"            y = self.f(x) + {i}" for i in range(STATEMENTS))
    return (
        "import torch\n\n\nclass M(torch.nn.Module):\n    def f(self, x):\n        return x + 1\n\n"
        f"    def forward(self, x):\n        {header}\n{body}\n{footer}        return x\n"
    )


def _seconds(source: str, path: Path) -> float:
    path.write_text(source)
    best = float("inf")
    for _ in range(2):
        start = time.process_time()
        result = check([str(path)], Config(), jobs=1)
        best = min(best, time.process_time() - start)
        assert not result.errors, result.errors
    return best


def test_long_try_body_is_not_quadratic(tmp_path: Path) -> None:
    in_if = _seconds(_source("if x is not None:", ""), tmp_path / "in_if.py")
    in_try = _seconds(_source("try:", "        except ValueError:\n            pass\n"), tmp_path / "in_try.py")
    assert in_try < 2 * in_if + 0.3, (in_try, in_if)
