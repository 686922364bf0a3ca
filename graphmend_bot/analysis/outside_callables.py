"""What calling an object `self` holds from outside the tree returns: `self.subnet(x)` on
`self.subnet = subnet_constructor(c_in, c_out)`, `self.func(t, z)` on `self.func = func`.

The object is the builder's (a module or function passed to `__init__`, or one a callable passed
there built) or another package's (`self.act = SomePackageLayer(...)`), so nothing in the tree says
what it returns. Given a tensor it returns one in the way these are used: Dynamo inlines the call
and what comes back is what the user's module or callback computes from the tensor (FrEIA's
subnets, torchcde's vector field, an embedding net). The same as for a parameter holding a callback
(`event_fn(t, y)`, _TensorFlow._callback_returns), and so are its elements: `a[0]` indexes the
tensor (measured on torch 2.13, tests/test_outside_callables.py), as the parts a tuple of tensors
unpacks to are (`s, t = self.subnet(x)`).

Left out, as other parts decide them: a method of the class or a base (`self.to(x)`, `self.apply(f)`
of nn.Module are no attribute the tree stores), an attribute built by an in-tree class or function
(the solver resolves those, whatever they return), a `functools.partial`, a torch.nn class (torch_layers.py's table, the
others as nn.LSTM return tuples), a bound method or function of the tree held (held_functions.py,
bound_methods.py), and an object built by a factory method of the class (`self.make()`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphmend_bot.analysis import bound_methods, held_functions

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import FunctionId, Program

_RESOLVED_ELSEWHERE = ("torch.", "self.", "functools.", bound_methods.PREFIX, held_functions.PREFIX)


def holds_outside_callable(program: Program, fid: FunctionId, ref: str) -> bool:
    """Whether the call site `ref` of `fid` is `self.NAME(...)` on an object from outside the tree."""
    kind, _, name = ref.partition(":")
    class_qualname = program.function(fid).class_qualname
    if kind != "self" or class_qualname is None or not name.isidentifier():
        return False
    constructors = program.held_constructors(fid[0], class_qualname, name)  # none for a method
    if constructors:
        return all(
            not constructor.startswith(_RESOLVED_ELSEWHERE) and not _in_tree(program, fid[0], constructor)
            for constructor in constructors
        )
    if program.class_method(fid[0], class_qualname, name) is not None:
        return False
    return any(name in program.modules[mod].classes[cls].given for mod, cls in program.class_and_bases(fid[0], class_qualname))


def _in_tree(program: Program, module: str, constructor: str) -> bool:
    """Whether `constructor` names a function of the tree: a factory whose closure the solver did not
    resolve (`self.build = posterior_nn(...)`) returns what the tree says, not a tensor. A class of the
    tree with no `forward` or `__call__` there (`class RNNLinear(nn.Linear)`) runs its outside base's."""
    return program.resolve_function(module, constructor.removeprefix("typed:")) is not None
