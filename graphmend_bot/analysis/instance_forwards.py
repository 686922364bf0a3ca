"""What calling an instance of an nn.Module class of the tree runs: its `forward`.

`features_extractor(obs)` on a parameter annotated `features_extractor: BaseFeaturesExtractor`, or on
any value whose class the analysis knows (a `instance:CLASS>__call__` call site), runs
`nn.Module.__call__`, which Dynamo inlines down to the `forward` of the instance's class: the
class's own or inherited one, or the override of whichever in-tree subclass the object is. The
tree's `__call__` methods are found by name already (Program._methods_of_instances); a class that
overrides `__call__` itself gets nothing more here (its `__call__` decides what runs). Without
this, such a call had no target: what it returns was not a tensor, and a break in the forward was
not seen at the call (`y = net(x)` then `if y[0] > 0:`, GB0170, measured on torch 2.13 in
tests/test_instance_forwards.py).

Such a forward keeps the tensors it has as an entry point: the scope solver drops them for a forward
the tree calls (`self.bias(window_size)` passes a tuple), but an object typed by its base class is a
model part users call too, and the one call of the tree seen through the annotation (a miner called
as `curr_miner(embeddings, labels)` on an `isinstance` test) passes what its own callers may not
show to be tensors.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import FunctionId, Program


def module_forwards(program: Program, classes: list[tuple[str, str]]) -> list[FunctionId]:
    """The forwards calling an instance of one of `classes` (or of an in-tree subclass) may run:
    for each nn.Module class without a `__call__` of the tree, its forward and the overrides."""
    found: list[FunctionId] = []
    for module, cls in classes:
        if program._method(module, cls, "__call__") is not None or not program.is_module_class(module, cls):
            continue
        for target in program._methods_of_instances([(module, cls)], "forward"):
            if target not in found:
                found.append(target)
    return found


def called_plainly(program: Program, targets: Mapping[tuple[FunctionId, int], list[FunctionId]]) -> set[FunctionId]:
    """The callees of `targets` (per caller and call site) that some call reaches other than a
    `net(x)` on an instance that runs their forward (module_forwards)."""
    found: set[FunctionId] = set()
    for (caller, index), callees in targets.items():
        ref = program.function(caller).calls[index].ref
        instance_call = ref.startswith("instance:") and ref.endswith(">__call__")
        found.update(callee for callee in callees if not (instance_call and callee[1].endswith(".forward")))
    return found
