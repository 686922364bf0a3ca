"""GB0148 Unsupported function call (delayed): an in-place view method (`unsqueeze_`, `squeeze_`,
`transpose_`, `t_`, `swapdims_`, `swapaxes_`, `as_strided_`) on a graph input (a buffer read from
`self` here, or a parameter of the compiled frame) breaks at its call; on an intermediate (`y`) it
traces."""

import torch


class Probe(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("scale", torch.ones(3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x * 2
        y.unsqueeze_(0)
        self.scale.unsqueeze_(0)  # graph-break: GB0148 GM673
        return x + y * self.scale


def inputs():
    return (torch.ones(2, 3),)
