"""A sample module written to a file, run through TorchDynamo (mapped as the census maps breaks)
and through `graphmend check`: shared by the tests of the tables generated from torch
(test_skipped_callees.py, test_context_managers.py). The module defines `Model`, an nn.Module."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import torch

from graphmend_bot.census.dynamo import Tree, explain_breaks
from graphmend_bot.config import Config
from graphmend_bot.engine import check


def dynamo_breaks(source: str, tmp_path: Path, args: tuple[object, ...] | None = None) -> set[tuple[int, str]]:
    """(line, graph-break id) of every break of `Model()(*args)` in the sample (`torch.ones(3)` by default)."""
    path = tmp_path / "sample.py"
    path.write_text(source)
    module = types.ModuleType("sample")  # registered: `@dataclass` looks its module up
    sys.modules["sample"] = module
    try:
        exec(compile(source, str(path), "exec"), module.__dict__)
        explained = explain_breaks(module.Model(), args or (torch.ones(3),), {}, Tree([str(tmp_path)]))
    finally:
        del sys.modules["sample"]
    return {(b.location[1], b.gb_id) for b in explained.breaks if b.location is not None}


def graphmend_findings(source: str, tmp_path: Path) -> set[tuple[int, str, str]]:
    """(line, rule code, graph-break id) of every finding `graphmend check` reports in the sample."""
    path = tmp_path / "sample.py"
    path.write_text(source)
    result = check([str(path)], Config(), jobs=1)
    assert not result.errors, result.errors
    return {(f.location.row, f.code, f.gb_id) for f in result.findings}


def agreed_break_lines(source: str, tmp_path: Path) -> set[int]:
    """The lines Dynamo breaks at in the sample, asserted to be the lines graphmend reports."""
    breaks = {line for line, _ in dynamo_breaks(source, tmp_path)}
    found = {line for line, _, _ in graphmend_findings(source, tmp_path)}
    assert found == breaks, (sorted(found), sorted(breaks))
    return breaks


def line_of(source: str, text: str) -> int:
    """The first line of `source` holding `text`."""
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)
