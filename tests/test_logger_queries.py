"""Logger methods that emit no record, in traced code (GM694), measured with Dynamo.

Dynamo refuses every method of a `logging.Logger` outside export (GB0291), a level check as much as
`logger.debug(...)`. Near misses: `logging.getLevelName(...)` (a module function) and a method of
the same name on an object of the tree named otherwise trace.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).parent))

from sample_modules import dynamo_breaks, graphmend_findings, line_of

HEAD = """import logging

import torch
from torch import nn

logger = logging.getLogger(__name__)
_LOG = logging.getLogger("sample.debug")


class Levels:
    def isEnabledFor(self, level):
        return level > 10


LEVELS = Levels()


"""


def _model(init: str, statement: str) -> str:
    return HEAD + (
        "class Model(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        f"        {init}\n\n"
        "    def forward(self, x):\n"
        "        x = x * 2\n"
        f"        {statement}\n"
        "        return x + 1\n"
    )


@pytest.mark.parametrize(
    ("init", "statement"),
    [
        ("pass", "debug = logger.isEnabledFor(logging.DEBUG)"),
        ("pass", "level = _LOG.getEffectiveLevel()"),
        ("pass", "logger.setLevel(logging.INFO)"),
        ("pass", "handled = logger.hasHandlers()"),
        ("pass", "child = logger.getChild('step')"),
        ("self.log = logging.getLogger('model')", "debug = self.log.isEnabledFor(10)"),
    ],
)
def test_logger_query_breaks_and_is_reported(init: str, statement: str, tmp_path: Path) -> None:
    source = _model(init, statement)
    line = line_of(source, statement)
    assert dynamo_breaks(source, tmp_path) == {(line, "GB0291")}
    assert graphmend_findings(source, tmp_path) == {(line, "GM694", "GB0291")}


@pytest.mark.parametrize(
    "statement",
    [
        "name = logging.getLevelName(10)",  # a module function, no Logger method
        "debug = LEVELS.isEnabledFor(20)",  # an object of the tree with a method of that name
    ],
)
def test_level_lookups_that_trace_are_not_reported(statement: str, tmp_path: Path) -> None:
    source = _model("pass", statement)
    assert dynamo_breaks(source, tmp_path) == set()
    assert graphmend_findings(source, tmp_path) == set()


def test_a_record_stays_gm402s(tmp_path: Path) -> None:
    """`logger.info(...)` is GM402's alone: the two rules split the Logger's methods."""
    source = _model("pass", "logger.info('step')")
    line = line_of(source, "logger.info('step')")
    assert dynamo_breaks(source, tmp_path) == {(line, "GB0291")}
    assert {(row, code) for row, code, _ in graphmend_findings(source, tmp_path)} == {(line, "GM402")}
