"""What `torch.cond` costs a small function called eagerly (issue 24, item 4).

The torch.cond rewrite (graphmend_bot/rewrite/branches/cond.py) replaces a Python `if` on a tensor with
`torch.cond`, which removes the graph break under torch.compile but also runs in every eager call:
eager `torch.cond` traces both branches (make_fx) before running one, each call. This times a
small CPU module's forward both ways, eagerly, and prints the per-call times and their ratio; the
fix's assumptions quote the ratio.

    PYTHONPATH=$PWD python benchmarks/cond_eager_cost.py [--number 200] [--repeat 5]
"""

from __future__ import annotations

import argparse
import timeit

import torch
from torch import nn


class WithIf(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(16, 16)
        self.norm = nn.LayerNorm(16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.proj(x)
        if h.sum() > 0:  # noqa: SIM108 - the `if` the torch.cond rewrite takes
            y = self.proj(h)
        else:
            y = self.norm(h) * 2
        return y + h


class WithCond(WithIf):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.proj(x)

        def y_via_proj(h: torch.Tensor) -> torch.Tensor:
            return self.proj(h)

        def y_via_norm(h: torch.Tensor) -> torch.Tensor:
            return self.norm(h) * 2

        y = torch.cond(h.sum() > 0, y_via_proj, y_via_norm, (h,))
        return y + h


def per_call_seconds(module: nn.Module, x: torch.Tensor, number: int, repeat: int) -> float:
    with torch.no_grad():
        module(x)  # warm-up
        return min(timeit.repeat(lambda: module(x), number=number, repeat=repeat)) / number


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--number", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    torch.manual_seed(0)
    plain, cond = WithIf().eval(), WithCond().eval()
    cond.load_state_dict(plain.state_dict())
    x = torch.randn(4, 16)
    with torch.no_grad():
        assert torch.equal(plain(x), cond(x))
    before = per_call_seconds(plain, x, args.number, args.repeat)
    after = per_call_seconds(cond, x, args.number, args.repeat)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, CPU, x {tuple(x.shape)}")
    print(f"eager `if`:        {before * 1e6:8.1f} us per call")
    print(f"eager `torch.cond`: {after * 1e6:8.1f} us per call")
    print(f"ratio: {after / before:.1f}x")


if __name__ == "__main__":
    main()
