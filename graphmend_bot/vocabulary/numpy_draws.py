"""The draws torch._numpy.random has (`np.random.rand`, `uniform`, `randint`, ...): Dynamo traces
them as tensor operations, so a draw of an array traces, while a draw of one number is a 0-d
tensor it reads back as a Python float or int ("Data dependent operator", GB0033). Measured on
torch 2.13 (tests/test_numpy_draws.py). `np.random.choice` breaks with or without a size and stays
in known_names.UNTRACEABLE_CALLS; the distributions torch._numpy lacks are numpy_untraced.py's."""

from __future__ import annotations

import ast

# name -> the position of the size among the positional arguments (`size=` too); None: every
# positional argument is a dimension (`np.random.rand(2, 3)`).
SIZE_POSITION: dict[str, int | None] = {
    "numpy.random.rand": None,
    "numpy.random.randn": None,
    "numpy.random.random": 0,
    "numpy.random.random_sample": 0,
    "numpy.random.sample": 0,
    "numpy.random.uniform": 2,
    "numpy.random.normal": 2,
    "numpy.random.randint": 2,
}


def draws_one_number(call: ast.Call, name: str) -> bool:
    """No size given, or `size=None` written out: a size held by a name may be None or not."""
    position = SIZE_POSITION[name]
    if any(isinstance(arg, ast.Starred) for arg in call.args) or any(k.arg is None for k in call.keywords):
        return False  # `np.random.rand(*shape)`, `**options`: not known
    given = [k.value for k in call.keywords if k.arg == "size"]
    if position is None:
        given += call.args
    elif len(call.args) > position:
        given.append(call.args[position])
    return all(isinstance(size, ast.Constant) and size.value is None for size in given)
