"""GB1750 P2P compilation disabled for P2POp construction: `dist.P2POp(...)` built in traced code,
P2P compilation being off by default (GM690)."""

import torch
import torch.distributed as dist
from torch.testing._internal.distributed.fake_pg import FakeStore

# A fake two-rank process group in this process (its collectives do nothing): the break does not
# depend on the backend, and the probe runs with no peer and no network.
if not dist.is_initialized():
    dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=2)


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + 1
        op = dist.P2POp(dist.isend, x, 1)  # graph-break: GB1750 GM690
        return x * 2 + (op is not None)


def inputs():
    return (torch.ones(3),)
