"""A comprehension that reads only `self` of an nn.Module, in a frame Dynamo skips (GM611).

Dynamo compiles a frame when it holds a tensor or an nn.Module (`has_tensor_in_frame`), so a
comprehension Python 3.11 runs as a frame of its own is compiled when it reads the module's `self`,
as transformers' `output_capturing.py` wrapper reads `getattr(self.config, ...)`, and breaks on the
dict iterator it is handed (GB4347). Measured here with Dynamo next to `graphmend check`: in a
module's method after a `try` whose body breaks (no operation before it) the comprehension breaks;
the same method of a plain class reads `self` too, but its frame holds no tensor, and neither
Dynamo nor graphmend reports it (analysis/skipped_frames.py `_reads_module_self`).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from sample_modules import dynamo_breaks, graphmend_findings, line_of

pytestmark = pytest.mark.skipif(sys.version_info >= (3, 12), reason="3.12 inlines comprehensions (PEP 709)")

MODULE_SELF = '''import torch


def run(x):
    x = x * 2
    print("running")
    return x + 1


class Helper:
    def __init__(self):
        self.flag_a = True

    def collect(self, x):
        flags = {"a": 1, "b": 2}
        recorded = {k: getattr(self, f"flag_{k}", False) for k in flags}
        try:
            out = run(x)
        finally:
            recorded.clear()
        return out


class Gate(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.flag_a = True

    def forward(self, x):
        flags = {"a": 1, "b": 2}
        recorded = {k: getattr(self, f"flag_{k}", False) for k in flags}
        try:
            out = run(x)
        finally:
            recorded.clear()
        return out


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.helper = Helper()
        self.gate = Gate()

    def forward(self, x):
        return self.helper.collect(x) + self.gate(x)
'''


def test_a_comprehension_reading_a_module_self_breaks_where_graphmend_reports(tmp_path: Path) -> None:
    breaks = dynamo_breaks(MODULE_SELF, tmp_path)
    found = graphmend_findings(MODULE_SELF, tmp_path)
    lines = [i for i, line in enumerate(MODULE_SELF.splitlines(), 1) if "recorded = {k: getattr(self" in line]
    plain, module = lines  # Helper.collect's, then Gate.forward's
    assert (module, "GB4347") in breaks and (module, "GM611", "GB4347") in found
    assert plain not in {line for line, _ in breaks} | {line for line, _, _ in found}
    assert {line for line, _ in breaks} == {line for line, _, _ in found} == {module, line_of(MODULE_SELF, 'print("running")')}
