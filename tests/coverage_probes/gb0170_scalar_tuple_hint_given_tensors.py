"""GB0170 Data-dependent branching on a parameter annotated as a container of Python numbers that
callers give tensors: Dynamo ignores annotations, so `paddings: tuple[int, int]` holds the two 0-d
buffers `forward` passes, `max(...)` of them is a tensor and `if length <= max_pad:` branches on it
(transformers' encodec `_pad1d`). No rule reports it (`-`): a container of number hints keeps its
annotation whatever callers pass. Letting it take its callers' tensors, as `x: int` does, finds
this line, but the elements of a container passed along by name are the union of what built it
(donut-swin's `input_dimensions = (output_dimensions[-2], ...)` from `layer_outputs[2]`, a call's
whole result), so it also reported lines whose containers, read from the code, hold Python ints
(branch devmiss4, measured and reverted).
After that break Dynamo resumes with the paddings as inputs of the new frame, and `F.pad` given
input 0-d integer tensors traces (it specializes on their values): no break, and none reported.
"""

import torch
from torch import nn


class Probe(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.padding_total = nn.Buffer(torch.tensor(5), persistent=False)

    @staticmethod
    def _pad1d(hidden_states: torch.Tensor, paddings: tuple[int, int], mode: str = "reflect"):
        length = hidden_states.shape[-1]
        padding_left, padding_right = paddings
        max_pad = max(padding_left, padding_right)
        if length <= max_pad:  # graph-break: GB0170 -
            hidden_states = hidden_states.repeat(1, 1, 2)
        return nn.functional.pad(hidden_states, paddings, mode)

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        extra_padding = (hidden_states.shape[-1] - self.padding_total) % 2
        return self._pad1d(hidden_states, (self.padding_total, extra_padding))


def inputs():
    return (torch.randn(1, 2, 20),)
