"""GB0088 Observed exception: `"%(v)s" % {"v": t}`, a tensor formatted by name (GM622): Dynamo
raises inside, as it does for a tuple whose text holds a number conversion (`"%s of %d" % (t, n)`)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x * 2
        label = "%(v)s" % {"v": y}  # graph-break: GB0088 GM622
        return y + len(label)


def inputs():
    return (torch.ones(3),)
