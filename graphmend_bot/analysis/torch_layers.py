"""What calling a submodule built from a `torch.nn` class returns: `self.proj(x)` on
`self.proj = nn.Linear(...)` is a tensor, and so are its elements (`y[0]` indexes a tensor), while
`self.cell(x)` on an nn.LSTMCell is a tuple of two tensors. The classes and their results come
from torch's own return annotations (vocabulary/torch_layer_returns.py); a class the table does not
know (nn.LSTM, nn.Sequential, a module of another package) leaves the result to the scope solver.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from graphmend_bot.vocabulary.torch_layer_returns import TENSOR_LAYERS, TUPLE_LAYERS

_TORCH_NN = "torch.nn."


class LayerResult(NamedTuple):
    whole: bool  # the result is a tensor
    elements: tuple[bool, ...] | None  # which tuple elements are tensors; None: every index of a tensor

    def element(self, index: int | None) -> bool:
        if index is None:
            return self.whole
        if self.elements is None:
            return self.whole
        return index < len(self.elements) and self.elements[index]


def layer_result(constructors: Iterable[str]) -> LayerResult | None:
    """The result every one of `constructors` (qualified names, "torch.nn.Linear") agrees on, or
    None when one is not a torch.nn class of the table."""
    results = [_result_of(constructor) for constructor in constructors]
    if not results or any(result is None for result in results):
        return None
    known = [result for result in results if result is not None]
    if all(result.elements is None for result in known):
        return LayerResult(all(result.whole for result in known), None)
    width = min(len(result.elements) for result in known if result.elements is not None)
    return LayerResult(False, tuple(
        all(result.element(index) for result in known) for index in range(width)
    ))


def _result_of(constructor: str) -> LayerResult | None:
    if not constructor.startswith(_TORCH_NN):
        return None
    name = constructor.rpartition(".")[2]
    if name in TENSOR_LAYERS:
        return LayerResult(True, None)
    elements = TUPLE_LAYERS.get(name)
    return LayerResult(False, elements) if elements is not None else None
