"""GM502 (boolean-mask indexing) on a mask reduced along a dim: the reductions that keep the bool
dtype (`amax`/`amin`, the values of `max`/`min` with a dim, spelled `.values`, `[0]` or unpacked),
also through a helper returning `mask.max(dim)` (torch_kmeans' `first_nonzero`). Near misses:
the indices of the pair (`.indices`, `[1]`, the second name unpacked), `mask.sum(dim)`, the max of
a long tensor, and element 0 of a helper returning a plain mask (a row of it). In a loop body, the
rest of the frame after such a mask runs eagerly. Measured against torch 2.13 in each test (masks.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

SPELLINGS = """
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        x = x.expand(3, 3) - 0.5
        m = x > 0
        a = x[m.max(-1)[0]]
        b = x[m.min(dim=-1).values]
        c = x[torch.max(m, -1).values]
        v, i = m.max(-1)
        d = x[v]
        e = x[m.amax(-1)]
        f = x[torch.amin(m, dim=-1)]
        r = m.max(-1)
        g = x[r.values]
        h = x[r[0]]
        k = x[m.max(-1)[1]]
        l = x[m.max(-1).indices]
        n = x[i]
        o = x[r.indices]
        p = x[r[1]]
        q = x[m.sum(-1) * 0]
        s = x[torch.max(m.long(), -1).values]
        t = x[(x > 0).max(-1)[0]]
        return a, b, c, d, e, f, g, h, k, l, n, o, p, q, s, t
"""

HELPERS = """
import torch


def first_nonzero(x, dim=-1):
    nonz = x > 0
    return ((nonz.cumsum(dim) == 1) & nonz).max(dim)


def positive(x):
    return x > 0


class Model(torch.nn.Module):
    def forward(self, x):
        x = x.expand(3, 3) - 0.5
        valid, fnz = first_nonzero(x, dim=-1)
        a = fnz[valid]
        _, idx = first_nonzero(x)
        b = x[idx]
        row, _ = positive(x[:2])
        c = x[row.long()]
        return a, b, c
"""

# A helper's mask indexed in a loop body: Dynamo skips the frame there (loop_calls.py), so the
# tensor conditions after it, in the loop and past it, break nowhere (torch_kmeans' `_assign`).
IN_A_LOOP = """
import torch


def first_nonzero(x, dim=-1):
    nonz = x > 0
    return ((nonz.cumsum(dim) == 1) & nonz).max(dim)


class Model(torch.nn.Module):
    def forward(self, x):
        x = x.expand(3, 3) - 0.5
        for i in range(2):
            valid, fnz = first_nonzero(x, dim=-1)
            sel = fnz[valid]
            if (x > 1).any():
                x = x + 1
        if x.sum() > 0:
            x = x * 2
        return x, sel
"""


@pytest.mark.parametrize("source", [SPELLINGS, HELPERS, IN_A_LOOP], ids=["spellings", "helpers", "in_a_loop"])
def test_a_reduced_mask_is_reported_where_dynamo_breaks_and_its_indices_are_not(source: str, tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from sample_modules import dynamo_breaks, graphmend_findings

    breaks = dynamo_breaks(source, tmp_path)
    assert breaks, "the sample must break somewhere"
    assert {(line, code, gb) for line, code, gb in graphmend_findings(source, tmp_path)} == {
        (line, "GM502", gb) for line, gb in breaks
    }
