"""GB0172 async_op=True for distributed collectives: `dist.all_reduce(x, async_op=True)` in traced
code (GM690); the synchronous call traces."""

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
        dist.all_reduce(x, async_op=True)  # graph-break: GB0172 GM690
        x = x * 2
        dist.all_reduce(x)
        return x + 1


def inputs():
    return (torch.ones(3),)
