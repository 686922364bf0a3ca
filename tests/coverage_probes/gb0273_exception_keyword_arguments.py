"""GB0273 Keyword args passed to exception constructor: a builtin exception whose constructor takes
keywords, built with them in traced code (GM625)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        try:
            raise AttributeError("no field 'scale'", name="scale")  # graph-break: GB0273 GM625
        except AttributeError as error:
            x = x + len(error.args)
        return x + 1


def inputs():
    return (torch.ones(3),)
