"""GB9300 P2P compilation disabled for batch_isend_irecv: `dist.batch_isend_irecv(ops)` in traced
code on P2POps built outside it, P2P compilation being off by default (GM690)."""

import torch
import torch.distributed as dist
from torch.testing._internal.distributed.fake_pg import FakeStore

# A fake two-rank process group in this process (its collectives do nothing): the break does not
# depend on the backend, and the probe runs with no peer and no network.
if not dist.is_initialized():
    dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=2)


class Probe(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.ops = [dist.P2POp(dist.isend, torch.zeros(3), 1)]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + 1
        dist.batch_isend_irecv(self.ops)  # graph-break: GB9300 GM690
        return x * 2


def inputs():
    return (torch.ones(3),)
