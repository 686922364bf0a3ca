"""Which `numpy.*` calls give an array under TorchDynamo, whatever their arguments.

With `torch._dynamo.config.trace_numpy` (the default) Dynamo runs every `numpy.*` call through
`torch._numpy`, so its result is an `ndarray` backed by a tensor in the graph (analysis/numpy_values.py
has the measurements). Rules read this table too (GM632 judges an array held in `self` by its builder),
so it lives in the vocabulary, below both layers.
"""

from __future__ import annotations

from graphmend_bot.vocabulary.known_names import UNTRACEABLE_CALLS

# constant collections Dynamo folds into Python values
FOLDED = frozenset({"numpy.dtype", "numpy.iinfo", "numpy.finfo", "numpy.issubdtype"})
# torch._numpy's answers in Python values: Dynamo breaks at the call ("torch.* op returned non-Tensor")
PYTHON_RESULTS = frozenset({"numpy.isscalar", "numpy.ndim", "numpy.shape", "numpy.size"})


def makes_ndarray(name: str) -> bool:
    """A call of the qualified `name` gives an array under Dynamo (of any arguments): not a folded
    constant, a Python answer, a draw of `np.random` or a call that breaks under its own id."""
    return (name.startswith("numpy.") and name not in FOLDED and name not in PYTHON_RESULTS
            and name not in UNTRACEABLE_CALLS and not name.startswith("numpy.random."))
