"""A 0-d index tensor breaks the graph (GB0033) at its first read in a frame: Dynamo resumes with the
tensor as an input, and indexing with a 0-d input traces (analysis/index_reads.py). GM302 reports the
first read and each new `j + 1`, not the later reads of the same name. Each sample's truth is measured
with the census's Dynamo mapping; graphmend must report exactly Dynamo's lines."""

from __future__ import annotations

from pathlib import Path

import pytest
from sample_modules import dynamo_breaks, graphmend_findings

torch = pytest.importorskip("torch")

PRELUDE = '''import torch


class Model(torch.nn.Module):
    def forward(self, x):
        t = x.sum()
        grid = torch.linspace(0, 1, 5)
        m = torch.randn(5, 3)
        i = torch.bucketize(t.detach(), grid).sub(1).clamp(0, 1)
'''

SAMPLES = {
    # later reads of `i`, in reads and in stores, with slices and None: only the first breaks
    "reads_and_stores": """        a = m[i]
        b = m[i, i]
        d = m[:, i]
        m[:, i] = 0.0
        grid[i] = 2.0
        e = m[i, None]
        return a.sum() + b + d.sum() + e.sum() + grid.sum()
""",
    # `i + 1` is a new tensor at each read
    "new_tensor_each_time": """        a = grid[i]
        b = grid[i + 1]
        c = grid[i]
        d = grid[i + 1]
        return a + b + c + d
""",
    # the first read sits in an arm that does not always run: the later read still breaks on calls
    # that skip the arm (this one), and the arm's read breaks on calls that take it
    "first_read_in_an_arm": """        if x.shape[0] > 5:
            a = grid[i]  # not run here
        else:
            a = grid[0]
        b = grid[i]
        return a + b
""",
    # rebound inside the block that holds the later read, after a read outside it
    "rebound_in_a_block": """        a = grid[i]
        if x.shape[0] < 5:
            i = i.clamp(0, 2)
            b = grid[i]
        return a + b
""",
    # rebound between the reads: a new 0-d tensor, read again
    "rebound": """        a = grid[i]
        i = i.clamp(0, 2)
        b = grid[i]
        return a + b
""",
}


def _dynamo_lines(source: str, tmp_path: Path) -> set[int]:
    return {line for line, _ in dynamo_breaks(source, tmp_path)}


@pytest.mark.parametrize("sample", sorted(SAMPLES))
def test_gm302_reports_the_index_reads_dynamo_breaks_at(tmp_path: Path, sample: str) -> None:
    source = PRELUDE + SAMPLES[sample]
    breaks = _dynamo_lines(source, tmp_path)
    assert breaks  # each sample has a first read that breaks
    not_run = {n for n, line in enumerate(source.splitlines(), 1) if line.endswith("# not run here")}
    assert {line for line, code, _ in graphmend_findings(source, tmp_path) if code == "GM302"} == breaks | not_run
