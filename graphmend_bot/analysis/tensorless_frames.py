"""Frames Dynamo resumes in holding no tensor: it skips them without logging a break.

Measured on torch 2.13, Python 3.11 (tests/test_tensorless_frames.py): after a graph break Dynamo
goes on in a resume function, a new frame whose locals are the live locals at the break, and
convert_frame's `has_tensor_in_frame` skips a new frame silently (no break logged, no graph) unless
one of its locals is a tensor, an nn.Module or a list, tuple or dict of them, or its code names a
global bound to a `torch` or NumPy module. The compiled function itself is always traced (Dynamo
registered its code), and a callee it inlines is traced with its caller, so only a break after an
earlier one of the same frame goes unlogged: opacus' `DPOptimizer.zero_grad` breaks on
`logger.debug(...)`, then calls its wrapped optimizer's `zero_grad` in a frame holding `self` (an
optimizer) and a bool, and that second break never shows. Where the frame holds a tensor or the
break is its first, it is logged wherever it comes (before any tensor operation too).

The function analysis records how many usual-path breaks came before a held-object method call in a
frame that holds no tensor by its own locals and names (`resumed_without_tensor`); the scope solver
adds what it alone knows, whether `self` is an nn.Module (`skipped_silently`), and a finding after an
earlier break of such a frame stands not.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from graphmend_bot.analysis.local_nodes import every_node

if TYPE_CHECKING:
    from graphmend_bot.analysis.function_state import Env, FunctionState
    from graphmend_bot.analysis.scope import FunctionId, Program, _TensorFlow
    from graphmend_bot.vocabulary.kind import Kind

HOLDS_TENSOR = -1
_SCALARS = frozenset({"bool", "int", "float", "str", "None"})
# Modules a `torch.*` import binds (`import torch`, `from torch import nn`, `import torch.nn.functional as F`):
# the leaves of torch's namespace that are modules, not functions or classes (`from torch import cat`).
_TORCH_MODULES = frozenset({
    "torch", "nn", "functional", "optim", "cuda", "distributed", "linalg", "fft", "special", "autograd",
    "utils", "data", "init", "jit", "fx", "sparse", "amp", "backends", "nested", "distributions", "func",
    "library", "compiler", "export", "random", "testing", "hub", "onnx", "quantization", "ao", "mps", "xpu",
    "cpu", "profiler", "overrides", "masked", "signal", "types", "parallel", "modules", "parameter",
    "_dynamo", "_C", "_inductor", "_functorch", "_subclasses", "_prims", "_refs", "_higher_order_ops",
    "_logging", "_utils", "_tensor", "_ops", "_guards", "_export", "_library",
})  # fmt: skip


def resumed_without_tensor(visitor: FunctionState, env: Env) -> int:
    """How many usual-path breaks of this frame came before this point, when the frame holds no
    tensor by its locals and the modules its code names; HOLDS_TENSOR when it may hold one."""
    before = len(visitor._usual_draft_kinds)
    if before == 0:
        return 0  # the frame's first break: logged by the frame Dynamo compiles or inlines
    facts = _facts(visitor)
    tensors = {name for name, kind in env.items() if _may_hold_tensor(name, kind, facts.python)}
    first = min((draft.row for draft in visitor.summary.drafts if not draft.rare), default=None)
    if tensors and first is not None and first not in facts.inputs:  # the walk only when a local may hold one
        facts.inputs[first] = _resumed_inputs(visitor.node, first)
    if tensors and (first is None or tensors & facts.inputs[first]):
        return HOLDS_TENSOR
    if facts.names_array_module is None:
        facts.names_array_module = _names_array_module(visitor)
    return HOLDS_TENSOR if facts.names_array_module else before


class _FrameFacts:
    """What resumed_without_tensor asks of one function, worked out once per function: it is asked
    at every held-object call after a break, and walking the function each time cost 5% of the
    summaries' instructions (transformers models/)."""

    def __init__(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.node = node
        self.python = _python_parameters(node)
        self.inputs: dict[int, set[str]] = {}  # by the row of the frame's first break
        self.names_array_module: bool | None = None


_last_facts: list[_FrameFacts] = []  # the function last asked about (a worker summarizes one at a time)


def _facts(visitor: FunctionState) -> _FrameFacts:
    if not _last_facts or _last_facts[0].node is not visitor.node:
        _last_facts[:] = [_FrameFacts(visitor.node)]
    return _last_facts[0]


def _resumed_inputs(node: ast.FunctionDef | ast.AsyncFunctionDef, row: int) -> set[str]:
    """The locals of the frame Dynamo resumes in after a break on `row`: bound before it (parameters
    too) and read after it; a loop variable first bound after it (opacus' `for p in self.params:`) is no input."""
    args = node.args
    bound = {arg.arg for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg) if arg}
    read: set[str] = set()
    for name in every_node(node):
        if isinstance(name, ast.Name):
            if isinstance(name.ctx, ast.Store) and name.lineno < row:
                bound.add(name.id)
            elif isinstance(name.ctx, ast.Load) and name.lineno > row:
                read.add(name.id)
    return bound & read


def _may_hold_tensor(name: str, kind: Kind, python: set[str]) -> bool:
    """A local of a tensor kind; a parameter's own kind (what a caller passes) unless annotated a Python scalar."""
    if not kind.is_tensor:
        return False
    return kind.always or bool(kind.calls) or name not in python or kind.params != frozenset({name})


def _python_parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Parameters annotated `bool`, `int`, `float`, `str` (or Optional of one): never a tensor local."""
    args = node.args
    return {arg.arg for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs)
            if arg.annotation is not None and _scalar_annotation(arg.annotation)}


def _scalar_annotation(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return node.id in _SCALARS
    if isinstance(node, ast.Constant):
        return node.value is None or (isinstance(node.value, str) and node.value in _SCALARS)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):  # `bool | None`
        return _scalar_annotation(node.left) and _scalar_annotation(node.right)
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "Optional":
        return _scalar_annotation(node.slice)
    return False


def _names_array_module(visitor: FunctionState) -> bool:
    """The code names a global bound to a `torch` or NumPy module (has_tensor_in_frame's co_names
    test): co_names holds attribute names too, so `self.nn` counts where `from torch import nn` binds `nn`."""
    for node in every_node(visitor.node):
        if isinstance(node, ast.Attribute):
            node = ast.Name(id=node.attr, ctx=ast.Load())
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            resolved = visitor.resolve(node)
            if resolved is not None and (resolved == "numpy" or _torch_module(resolved)):
                return True
    return False


def _torch_module(qualified: str) -> bool:
    parts = qualified.split(".")
    return parts[0] == "torch" and all(part in _TORCH_MODULES for part in parts)


def skipped_silently(program: Program, solver: _TensorFlow, fid: FunctionId, breaks_before: int) -> bool:
    """A finding after `breaks_before` earlier breaks of a frame holding no tensor by its own locals:
    Dynamo skips the frame it would resume in, unless `self` is an nn.Module (a local of the frame)
    or a traced caller packs a tensor into its `*args` / `**kwargs`."""
    if breaks_before <= 0:
        return False
    function = program.function(fid)
    if function.class_qualname is not None and program.is_module_class(fid[0], function.class_qualname):
        return False
    return not _packed_tensor(program, solver, fid)


def _packed_tensor(program: Program, solver: _TensorFlow, fid: FunctionId) -> bool:
    """A traced caller passes a tensor into `*args`, or by a keyword no parameter names (`**kwargs`):
    a tuple or dict of tensors among the frame's locals holds one (measured: the call is logged; a
    forwarding `zero_grad(self, *args, **kwargs)` given nothing stays skipped)."""
    function = program.function(fid)
    named = set(function.params) - {function.vararg}
    for (caller, index), callees in solver.targets.items():
        if fid in callees:
            passed = solver._arguments(program.function(caller).calls[index], fid)
            packed = [kind for name, kind in passed.items() if name == function.vararg or name not in named]
            if any(solver.holds(caller, kind) for kind in packed):
                return True
    return False
