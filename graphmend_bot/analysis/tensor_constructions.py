"""Building an instance of a `torch.Tensor` subclass of the tree gives a tensor.

`Labeled(x * 2, labels=["a"])` on `class Labeled(torch.Tensor)` (pina's LabelTensor, flowtorch's
BijectiveTensor) returns what the class's `__new__` returns, a tensor made by
`super().__new__(cls, x)`, `torch.Tensor._make_subclass(cls, x)` or `x.as_subclass(cls)`: calls
into torch the tree does not define, so the `__new__` the solver inlines returned nothing it knew,
and the class may define no `__new__` or `__init__` at all. Such a call site's result is a tensor
whatever its arguments: `y = wrap(x)` returning one, then `if y[0] > 0:` breaks (GB0170; Dynamo
breaks at the construction too, GB7312, and resumes in the caller), measured on torch 2.13 in
tests/test_tensor_constructions.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphmend_bot.analysis.torch_function_overrides import tensor_subclass

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import FunctionId, Program


def tensor_constructions(program: Program, fid: FunctionId) -> list[int]:
    """The call sites of `fid` that build an instance of a tensor subclass of the tree, by the
    class's name (`Cls(...)`, `mod.Cls(...)`)."""
    found: list[int] = []
    for index, site in enumerate(program.function(fid).calls):
        kind, _, name = site.ref.partition(":")
        if kind not in ("name", "dotted") or not name.rpartition(".")[2][:1].isupper():
            continue  # classes are capitalised: most calls name a function, and stop here
        resolved = program._resolve_dotted(fid[0], name)
        if resolved is not None and resolved[0] == "class" and tensor_subclass(program, resolved[1], resolved[2]):
            found.append(index)
    return found
