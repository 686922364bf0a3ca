"""GB9625 traceback.tb_lasti not supported: a traceback's `tb_lasti` read in traced code (GM680)."""

import torch


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        try:
            raise ValueError("bad input")
        except ValueError as err:
            where = err.__traceback__.tb_lasti  # graph-break: GB9625 GM680
        return x + where


def inputs():
    return (torch.ones(3),)
