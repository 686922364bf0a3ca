"""One guard over adjacent I/O statements: only statements that are findings being fixed, at the
same safety, share it (rewrite/python_io/io.py `_io_run`), and the fixed count matches the change."""

from __future__ import annotations

import io
from pathlib import Path

import torch
from fixture_support import load_module

from graphmend_bot.config import Config
from graphmend_bot.rewrite import fix_outcome

HEADER = """import logging

import torch
from torch import nn

logger = logging.getLogger("io_guard_runs")


class A(nn.Module):
    def __init__(self, out=None):
        super().__init__()
        self.out = out

    def forward(self, x):
"""


def _fixed(tmp_path: Path, body: str, config: Config | None = None) -> tuple[str, int]:
    path = tmp_path / "model.py"
    path.write_text(HEADER + body + "        return x * 2\n", encoding="utf-8")
    changes = fix_outcome([str(path)], config or Config()).changes
    assert len(changes) == 1
    return changes[0].after, changes[0].breaks_removed


def _guarded(after: str) -> list[str]:
    """The statements under the added `if not torch.compiler.is_compiling():`."""
    lines = after.splitlines()
    start = lines.index("        if not torch.compiler.is_compiling():") + 1
    inside = []
    for line in lines[start:]:
        if not line.startswith("            "):
            break
        inside.append(line.strip())
    return inside


def test_a_print_to_the_programs_file_is_not_pulled_into_a_loggers_guard(tmp_path: Path) -> None:
    after, removed = _fixed(
        tmp_path, '        logger.warning("diagnostic")\n        print("row", file=self.out)\n'
    )
    assert _guarded(after) == ['logger.warning("diagnostic")']
    assert removed == 1
    # Measured: the file still gets its row under torch.compile (a shared guard dropped it).
    path = tmp_path / "model.py"
    path.write_text(after, encoding="utf-8")
    buffer = io.StringIO()
    torch._dynamo.reset()
    model = torch.compile(load_module(path, tmp_path, "io_guard_runs_file").A(buffer), backend="eager")
    model(torch.ones(2))
    assert buffer.getvalue() == "row\n"


def test_a_suppressed_neighbour_is_not_guarded(tmp_path: Path) -> None:
    body = '        print("keep")  # graphmend: ignore[GM401]\n        print("fix me")\n'
    after, removed = _fixed(tmp_path, body)
    assert _guarded(after) == ['print("fix me")']
    assert 'print("keep")  # graphmend: ignore[GM401]\n        if not' in after
    assert removed == 1


def test_a_deselected_neighbour_is_not_guarded(tmp_path: Path) -> None:
    body = '        print("the output")\n        logger.warning("diagnostic")\n'
    for config in (Config(select=["GM402"]), Config(ignore=["GM401"])):
        after, removed = _fixed(tmp_path, body, config)
        assert _guarded(after) == ['logger.warning("diagnostic")']
        assert removed == 1


def test_selected_neighbours_share_one_guard_and_each_counts(tmp_path: Path) -> None:
    after, removed = _fixed(tmp_path, '        print("the output")\n        logger.warning("diagnostic")\n')
    assert _guarded(after) == ['print("the output")', 'logger.warning("diagnostic")']
    assert removed == 2


def test_a_neighbour_whose_own_guard_is_unsafe_does_not_join_a_safe_one(tmp_path: Path) -> None:
    # `self.count()` is no longer evaluated under compile once guarded: that guard alone is unsafe.
    body = '        logger.warning("diagnostic")\n        print("n", self.count())\n'
    after, removed = _fixed(tmp_path, body)
    assert _guarded(after) == ['logger.warning("diagnostic")']
    assert '            logger.warning("diagnostic")\n        print("n", self.count())' in after
    assert removed == 1
