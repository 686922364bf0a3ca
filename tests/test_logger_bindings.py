"""GM402 judges a name by what built it (analysis/logger_bindings.py), its spelling only when
nothing says: each case's breaks are measured with `torch._dynamo.explain` and the graph_breaks log
on torch 2.13 (after a tensor operation: no break is recorded on a frame's first statement)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sample_modules import dynamo_breaks, graphmend_findings

TRACKER = """
class Tracker:
    def __init__(self):
        self.seen = 0

    def warning(self, msg):
        self.seen += 1


class MetricsLogger:
    def __init__(self):
        self.rows = []

    def info(self, name):
        self.rows.append(name)
"""

CASES = {
    # The project's own objects, whatever their names say: Dynamo traces their methods.
    "module_object_named_log": ("log = Tracker()\n", "log.warning('x')", False),
    "module_metrics_logger": ("metrics_logger = MetricsLogger()\n", "metrics_logger.info('mean')", False),
    "local_object_named_log": ("", "log = Tracker()\n        log.warning('x')", False),
    # Real loggers: bound from logging, or a name nothing in the module binds.
    "module_logger": ("log = logging.getLogger('probe')\n", "log.warning('x')", True),
    "local_logger": ("", "log = logging.getLogger('probe')\n        log.warning('x')", True),
    "self_logger": ("", "self.logger.warning('x')", True),
}


def _source(module_level: str, statement: str) -> str:
    return (
        f"import logging\n\nimport torch\n{TRACKER}\n{module_level}\n\n"
        "class Model(torch.nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.logger = logging.getLogger('probe')\n\n"
        f"    def forward(self, x):\n        x = x + 1\n        {statement}\n        return x * 2\n"
    )


@pytest.mark.parametrize("case", sorted(CASES))
def test_gm402_follows_what_built_the_name(tmp_path: Path, case: str) -> None:
    module_level, statement, breaks = CASES[case]
    source = _source(module_level, statement)
    row = next(n for n, line in enumerate(source.splitlines(), 1) if ".warning(" in line or ".info(" in line)
    # The ground truth on the call's line (`logging.getLogger` inside forward breaks on its own line too).
    assert {b for b in dynamo_breaks(source, tmp_path) if b[0] == row} == (
        {(row, "GB0291")} if breaks else set()
    )
    found = {f for f in graphmend_findings(source, tmp_path) if f[1] == "GM402"}
    assert found == ({(row, "GM402", "GB0291")} if breaks else set())
