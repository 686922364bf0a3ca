"""GB0033 Data dependent operator: a helper every `return` of which is a 0-d tensor
(`return scores.argmax()`) gives an index that is read back as an int (GM302)."""

import torch


def best(scores: torch.Tensor) -> torch.Tensor:
    return scores.argmax()


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * 2
        return x[:, best(x[0])]  # graph-break: GB0033 GM302


def inputs():
    return (torch.randn(3, 3),)
