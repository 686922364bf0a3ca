"""GB0148 Unsupported function call (delayed): an in-place view method (`unsqueeze_`, `squeeze_`,
`transpose_`, `t_`, `swapdims_`, `as_strided_`) on a graph input breaks at its call; on an
intermediate (`y` here) it traces. No rule (`-`): which parameter of an inlined helper holds a
graph input is not tracked."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x * 2
        y.unsqueeze_(0)
        x.unsqueeze_(0)  # graph-break: GB0148 -
        return x + y


def inputs():
    return (torch.ones(2, 3),)
