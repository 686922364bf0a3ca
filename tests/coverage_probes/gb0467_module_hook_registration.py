"""GB0467 setattr() on unsupported type: a module hook registered in traced code (GM663): the
handle counts ids on its class (`RemovableHandle.next_id += 1`)."""

import torch


def save_output(module, args, output):
    return output


class Probe(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        self.lin.register_forward_hook(save_output)  # graph-break: GB0467 GM663
        return self.lin(x)


def inputs():
    return (torch.ones(3),)
