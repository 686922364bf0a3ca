"""Builtins and operators given tensors or user objects (GB0059 "Failed to trace builtin operator"):
formatting, rounding, divmod, sorting a tensor, attribute access by a computed name; near misses."""

import torch
from torch import nn


class Point:
    def __init__(self, v):
        self.v = v


class ProbeFormatSpec(nn.Module):
    def forward(self, x):
        x = x * 2
        label = f"{x.sum():.3f}"
        return x + len(label)


class ProbeSortedTensor(nn.Module):
    def forward(self, x):
        x = x * 2
        return torch.stack(sorted(x))


class ProbeSortedTensorReverse(nn.Module):
    def forward(self, x):
        x = x * 2
        return torch.stack(sorted(x, reverse=True))


class ProbeMaxTensorIter(nn.Module):
    def forward(self, x):
        x = x * 2
        return x + max(x)


class ProbeGetattrComputed(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer0 = nn.Linear(4, 4)

    def forward(self, x):
        x = x * 2
        for i in range(1):
            x = getattr(self, f"layer{i}")(x)
        return x


class ProbeBoolOfTensorList(nn.Module):
    def forward(self, x):
        x = x * 2
        return x + int(bool([x]))


class ProbeStrJoinTensors(nn.Module):
    def forward(self, x):
        x = x * 2
        return x + len(",".join(str(v) for v in x.shape))


class ProbeIntOfString(nn.Module):
    def forward(self, x):
        x = x * 2
        return x + int("3")


class ProbeMinKeyLen(nn.Module):
    def forward(self, x):
        x = x * 2
        return min([x, x[:2]], key=len)


class ProbeChrOrd(nn.Module):
    def forward(self, x):
        x = x * 2
        return x + ord(chr(65))


class ProbeStrTimesTensorInt(nn.Module):
    def forward(self, x):
        x = x * 2
        return x + len("a" * x.shape[0])


class ProbeIsinstanceTuple(nn.Module):
    def forward(self, x):
        x = x * 2
        return x + isinstance(x, (torch.Tensor, list))


def inputs():
    return (torch.randn(4),)
