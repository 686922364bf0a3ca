"""A helper returning (tensor, python ints): unpacked ints stay static (Swin-style padding)."""

import torch
import torch.nn.functional as F
from torch import nn


class WindowBlock(nn.Module):
    def __init__(self, window: int = 4) -> None:
        super().__init__()
        self.window = window
        self.mix = nn.Linear(2, 2)

    def maybe_pad(self, hidden, height, width):
        pad_right = (self.window - width % self.window) % self.window
        pad_bottom = (self.window - height % self.window) % self.window
        pad_values = (0, 0, 0, pad_right, 0, pad_bottom)
        hidden = F.pad(hidden, pad_values)
        return hidden, pad_values

    def forward(self, hidden: torch.Tensor, dims: tuple) -> torch.Tensor:
        height, width = dims
        hidden = hidden.view(hidden.shape[0], height, width, -1)
        hidden, pad_values = self.maybe_pad(hidden, height, width)
        was_padded = pad_values[3] > 0 or pad_values[5] > 0
        hidden = self.mix(hidden)
        if was_padded:
            hidden = hidden[:, :height, :width, :].contiguous()
        return hidden


def case():
    return WindowBlock().eval(), (torch.randn(1, 30, 2), (5, 6))
