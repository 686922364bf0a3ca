"""GM402 judges a name by what built it (analysis/logger_bindings.py), its spelling only when
nothing says: each case's breaks are measured with `torch._dynamo.explain` on torch 2.13 (after a
tensor operation: explain records no reason for a break on a frame's first statement)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import torch

from graphmend_bot.config import Config
from graphmend_bot.engine import check

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
        "class A(torch.nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.logger = logging.getLogger('probe')\n\n"
        f"    def forward(self, x):\n        x = x + 1\n        {statement}\n        return x * 2\n"
    )


def _dynamo_breaks(path: Path, name: str) -> int:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    torch._dynamo.reset()
    return len(torch._dynamo.explain(module.A())(torch.ones(2)).break_reasons)


@pytest.mark.parametrize("case", sorted(CASES))
def test_gm402_follows_what_built_the_name(tmp_path: Path, case: str) -> None:
    module_level, statement, breaks = CASES[case]
    path = tmp_path / f"logger_case_{case}.py"
    path.write_text(_source(module_level, statement), encoding="utf-8")
    assert (_dynamo_breaks(path, f"logger_case_{case}") > 0) is breaks  # the ground truth
    findings = [f for f in check([str(path)], Config()).findings if f.code == "GM402"]
    assert bool(findings) is breaks, [f.message for f in findings]
