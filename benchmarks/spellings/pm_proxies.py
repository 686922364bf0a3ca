"""Values Dynamo cannot put in the graph passed where it must (GB0055 "Failed to convert args/kwargs
to proxy"): a user object with `__index__` as a size, objects passed through activation
checkpointing; near misses it traces."""

import dataclasses
import enum

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class Size:
    def __init__(self, n):
        self.n = n

    def __index__(self):
        return self.n


@dataclasses.dataclass
class Cfg:
    scale: float = 2.0


class Mode(enum.IntEnum):
    SUM = 0


def block(x, cfg):
    return x * cfg.scale


def block_flag(x, flag):
    return x * 2 if flag else x


class ProbeObjectAsSize(nn.Module):
    def forward(self, x):
        x = x * 2
        return torch.zeros(Size(4)) + x


class ProbeIntEnumDim(nn.Module):
    def forward(self, x):
        x = x * 2
        return x.sum(Mode.SUM) + x


class ProbeCheckpointDataclass(nn.Module):
    def forward(self, x):
        x = x * 2
        return checkpoint(block, x, Cfg(), use_reentrant=False)


class ProbeCheckpointHeldDataclass(nn.Module):
    def __init__(self):
        super().__init__()
        self.cfg = Cfg()

    def forward(self, x):
        x = x * 2
        return checkpoint(block, x, self.cfg, use_reentrant=False)


class ProbeCheckpointBool(nn.Module):
    def forward(self, x):
        x = x * 2
        return checkpoint(block_flag, x, True, use_reentrant=False)


class ProbeCheckpointNone(nn.Module):
    def forward(self, x):
        x = x * 2
        return checkpoint(block_flag, x, None, use_reentrant=False)


class ProbeTensorOfRange(nn.Module):
    def forward(self, x):
        x = x * 2
        return torch.tensor(range(4)) + x


class ProbeLegacyConstructor(nn.Module):
    def forward(self, x):
        x = x * 2
        return torch.LongTensor([1, 2, 3, 4]) + x


class ProbeTensorOfDictValues(nn.Module):
    def forward(self, x):
        x = x * 2
        d = {"a": 1.0, "b": 2.0, "c": 3.0, "d": 4.0}
        return torch.tensor(list(d.values())) + x


def inputs():
    return (torch.randn(4),)
