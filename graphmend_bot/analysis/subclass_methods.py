"""A tensor subclass's method that breaks, called on an instance (GM662).

Measured on torch 2.13 (benchmarks/spellings/pm_subclass_method_calls.py,
tests/test_subclass_methods.py): Dynamo holds an instance of a `torch.Tensor` subclass as a
TensorWithTFOverrideVariable, and `x.tensor()` on one is a bound method with no source. When the
method's body breaks (`Tensor.as_subclass(self, Tensor)`, a print, an `.item()`), Dynamo cannot
rebuild the bound method to run the call eagerly: "Reconstruction failure" (GB0092) at the call,
beside the break inside (pypose's `x = x.tensor() if isinstance(x, LieTensor) else x`). With or
without a `__torch_function__` of the subclass's own. Near misses, measured: a method that traces;
the call through the class (`LieTensor.tensor(x)`, a function with a source); a property whose
getter breaks; a plain object's breaking method (Dynamo resumes after the call).

The receiver's class comes from an annotation `x: Q` or an `isinstance(x, Q)` test whose arm or
ternary makes the call (`narrowed`): the function analysis drafts the call
(`FunctionSummary.subclass_method_drafts`) and the draft stands when every method the call reaches
is a plain method (no static or class method, no property) of a tensor subclass of the tree, one
of them breaks, and a signature says the receiver is a Q: it is a parameter annotated `x: Q`, or the
method overrides one of a base class that annotates the parameter in its place so (pypose's
`so3Type.Exp(self, x)` under `LieType.Exp(self, x: LieTensor)`). An isinstance test alone says
only that some callers pass a Q: pypose's `bmv(mat, vec)` converts a LieTensor but the filters
pass it plain tensors, and the arm never runs (two false positives on the wild corpus's dev half).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager, nullcontext
from typing import TYPE_CHECKING

from graphmend_bot.analysis import narrowing, value_class
from graphmend_bot.analysis.torch_function_overrides import tensor_subclass
from graphmend_bot.vocabulary.dotted_names import dotted_name
from graphmend_bot.vocabulary.kind import TENSOR

if TYPE_CHECKING:
    from graphmend_bot.analysis.function_reporting import FindingReporter
    from graphmend_bot.analysis.scope import BreakingFunctions, FunctionId, Program, TracedDraft
    from graphmend_bot.rules import Rule

Resolve = Callable[[ast.expr], str | None]
_NOT_PLAIN = frozenset({"staticmethod", "classmethod"})
# Annotations that name no tensor subclass of the tree (most annotations in model code).
_NOT_SUBCLASSES = frozenset({"Tensor", "Optional", "Union", "Any", "Callable", "Module", "Parameter"})
_TORCH_AND_TYPING = ("torch.", "nn.", "typing.", "collections.", "builtins.", "numpy.", "np.")


def isinstance_class(test: ast.expr, resolve: Resolve, builtin: Resolve) -> tuple[str, str] | None:
    """(`x`, qualified `Q`) for `isinstance(x, Q)` of one class that may be a tensor subclass: not
    a Python type, not torch's (`torch.Tensor`, `nn.Module`)."""
    if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"
            and len(test.args) == 2 and not test.keywords and isinstance(test.args[0], ast.Name)
            and builtin(test.func) == "isinstance"):
        return None
    name = dotted_name(test.args[1])
    if name is None or name in narrowing.PYTHON_TYPES or name in narrowing.TENSOR_TYPES:
        return None
    qualified = resolve(test.args[1]) or name
    if not name.rsplit(".", 1)[-1][:1].isupper() or qualified.startswith(("torch.", "builtins.", "numpy.")):
        return None
    return test.args[0].id, qualified


def narrowed(instances: dict[str, str], test: ast.expr, resolve: Resolve, builtin: Resolve) -> AbstractContextManager[None]:
    """Within: the name `test` proves an instance of one class holds that class's ref (value_class.py).
    Asked at every `if` and ternary: no generator unless the test is an isinstance call, or an
    `and` of tests some of which are (`isinstance(a, Q) and isinstance(b, Q)`: each holds in the arm)."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        tested = [found for value in test.values if isinstance(value, ast.Call)
                  and (found := isinstance_class(value, resolve, builtin)) is not None]
        names = [name for name, _ in tested]
        return _bound_all(instances, tested) if tested and len(set(names)) == len(names) else _NOTHING
    found = isinstance_class(test, resolve, builtin) if isinstance(test, ast.Call) else None
    return _NOTHING if found is None else _bound(instances, *found)


_NOTHING = nullcontext()


@contextmanager
def _bound(instances: dict[str, str], name: str, cls: str) -> Iterator[None]:
    before = instances.get(name)
    instances[name] = value_class.typed(cls)
    try:
        yield
    finally:
        if before is None:
            instances.pop(name, None)
        else:
            instances[name] = before


@contextmanager
def _bound_all(instances: dict[str, str], tested: list[tuple[str, str]]) -> Iterator[None]:
    with ExitStack() as stack:
        for name, cls in tested:
            stack.enter_context(_bound(instances, name, cls))
        yield


def annotated_class(annotation: ast.expr | None, resolve: Resolve) -> str | None:
    """The qualified class an annotation names, when it names one (`Q`, `pkg.Q`, `Optional[Q]`):
    tensor subclasses included (`x: LieTensor`, which value_class.class_annotation leaves out)."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):  # `x: "LieTensor"`, unparsed
        annotation = ast.Name(annotation.value) if annotation.value.isidentifier() else None
    if annotation is None:
        return None
    annotation = value_class.without_optional(annotation)
    name = dotted_name(annotation)
    leaf = name.rsplit(".", 1)[-1] if name is not None else ""
    if name is None or not leaf[:1].isupper() or leaf in _NOT_SUBCLASSES or name.startswith(_TORCH_AND_TYPING):
        return None
    qualified = resolve(annotation) or name
    return None if qualified.startswith(_TORCH_AND_TYPING) else qualified


def receiver_position(call: ast.Call, params: tuple[str, ...], rebound: set[str]) -> int:
    """The position of `x` in `x.m()` among the parameters, when it is one not rebound so far; -1 else."""
    receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
    if isinstance(receiver, ast.Name) and receiver.id in params and receiver.id not in rebound:
        return params.index(receiver.id)
    return -1


def record(analyzer: FindingReporter, rule: Rule, call: ast.Call, message: str) -> None:
    """Keep `x.m()` on a parameter `x` for the solver, with the call site just recorded (the last one):
    only a parameter's class is signed."""
    at = receiver_position(call, analyzer.summary.params, analyzer._rebound)
    if at >= 0 and (draft := analyzer._draft(rule, call, message, TENSOR, None)) is not None:
        analyzer.summary.subclass_method_drafts.append((len(analyzer.summary.calls) - 1, at, draft))


def subclass_method_calls(
    program: Program, targets: dict[tuple[FunctionId, int], list[FunctionId]], breaking: Callable[[], BreakingFunctions],
) -> list[TracedDraft]:
    """The drafts of traced `x.m()` whose callees are plain methods of tensor subclasses, one breaking."""
    from graphmend_bot.analysis.scope import TracedDraft

    pending = program.traced_holding(lambda f: f.subclass_method_drafts)
    if not pending:
        return []
    broken = breaking()
    found: list[TracedDraft] = []
    for fid in pending:
        function = program.function(fid)
        for site, position, draft in function.subclass_method_drafts:
            callees = targets.get((fid, site), ())
            if callees and all(_plain_method(program, callee) for callee in callees) and any(
                    callee in broken for callee in callees) and _typed_by_signature(program, fid, site, position):
                found.append(TracedDraft(program.modules[fid[0]], function, draft))
    return found


def _typed_by_signature(program: Program, fid: FunctionId, site: int, position: int) -> bool:
    """Whether parameter `position` of `fid` is annotated with the receiver's class of call `site`,
    in `fid`'s signature or in that of the method it overrides in a base class."""
    function = program.function(fid)
    ref = function.calls[site].ref  # "instance:typed:Q>m"
    wanted = ref.partition(":typed:")[2].rpartition(">")[0].rsplit(".", 1)[-1]
    if position < 0 or not wanted:
        return False
    signatures = [fid]
    if function.class_qualname is not None:
        for module, cls in program.class_and_bases(fid[0], function.class_qualname)[1:]:
            if (base := program.class_method(module, cls, function.name)) is not None:
                signatures.append(base)
    return any(name.rsplit(".", 1)[-1] == wanted
               for signature in signatures
               for at, name in program.function(signature).param_classes if at == position)


def _plain_method(program: Program, fid: FunctionId) -> bool:
    function = program.function(fid)
    return (function.class_qualname is not None and not _NOT_PLAIN & set(function.decorators)
            and not value_class.is_property(function.decorators)
            and tensor_subclass(program, fid[0], function.class_qualname))
