"""A tensor subclass's `__torch_function__` runs in its own methods' traced code.

Every torch function, operator and tensor method applied to an instance of a `torch.Tensor`
subclass that defines `__torch_function__` goes through that classmethod, and Dynamo inlines it
(pypose's `LieTensor.__torch_function__`, where `hasattr(func, '__name__')` breaks: measured on
torch 2.13 through `LieTensor.Act`). A traced method of such a class works on `self`, so the
override (the class's own or an in-tree base's, and a subclass's) is reached from it. A class that
is no tensor subclass keeps the protocol for objects passed to torch functions, not for `self`:
its override is not reached this way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import FunctionId, Program

OVERRIDE = "__torch_function__"
_TENSOR_BASES = frozenset({"torch.Tensor", "torch.nn.Parameter", "torch.nn.parameter.Parameter"})


def torch_function_overrides(program: Program, fid: FunctionId) -> list[FunctionId]:
    """The `__torch_function__` a traced method `fid` of a tensor subclass runs on its `self`."""
    function = program.function(fid)
    own = function.class_qualname
    if own is None or function.name == OVERRIDE or "staticmethod" in function.decorators:
        return []
    method = program._method(fid[0], own, OVERRIDE)  # memoised: most classes have none, and stop here
    found = [*([method] if method is not None else []), *program._overrides(fid[0], own, OVERRIDE)]
    if not found or "classmethod" in function.decorators or not tensor_subclass(program, fid[0], own):
        return []
    return found


def tensor_subclass(program: Program, module: str, class_qualname: str) -> bool:
    return any(
        base in _TENSOR_BASES
        for mod, cls in program.class_and_bases(module, class_qualname)
        for base in program.modules[mod].classes[cls].bases
    )
