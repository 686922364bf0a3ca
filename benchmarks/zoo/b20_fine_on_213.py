"""Patterns that are fine under torch.compile on 2.13 and must not be reported.

Measured exception: `time.time()` is NOT fine on 2.13 although DESIGN.md's table lists it. Dynamo
treats it as a skipped function; here, as the first call of the frame, explain does not count it
(empty graph) but Dynamo logs the graph break and runs it eagerly; after a tensor op it is a
counted break. It is reported (GM604). `copy.deepcopy` of a dict measured fine.
"""

import copy
import time
from typing import Optional

import torch
from torch import nn


class Clean(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(4, 4)
        self.dropout = nn.Dropout(0.1)
        self.options = {"scale": 2.0}

    def forward(self, x: torch.Tensor, bias: Optional[torch.Tensor] = None) -> torch.Tensor:
        start = time.time()
        options = copy.deepcopy(self.options)
        if x.shape[0] > 2:
            x = x * options["scale"]
        if x.dim() == 2 and x.size(-1) == 4:
            x = self.linear(x)
        if bias is None:
            bias = torch.zeros(4)
        if isinstance(x, torch.Tensor) and x.dtype == torch.float32:
            x = x + bias
        if self.training:
            x = self.dropout(x)
        assert x.shape[-1] == 4
        assert (x == x).all()
        parts = [x[i] * 2 for i in range(x.shape[0])]
        if torch.compiler.is_compiling():
            elapsed = 0.0
        else:
            elapsed = time.time() - start
            print("eager step took", elapsed)
        return torch.stack(parts) + elapsed * 0


def case():
    return Clean().eval(), (torch.randn(3, 4),)
