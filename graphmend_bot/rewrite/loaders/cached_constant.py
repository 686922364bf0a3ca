"""A cached loader whose body breaks the graph -> `@torch.compiler.assume_constant_result` under the cache.

    @lru_cache(maxsize=None)                                  # whisper 20250625, audio.py
    def mel_filters(device, n_mels: int) -> torch.Tensor:
        with np.load(filters_path, allow_pickle=False) as f:  # GM604: numpy file I/O
            return torch.from_numpy(f[f"mel_{n_mels}"]).to(device)

    @lru_cache(maxsize=None)
    @torch.compiler.assume_constant_result
    def mel_filters(device, n_mels: int) -> torch.Tensor:

`functools.lru_cache` already states what the marker needs: the result is a function of the
(hashable) arguments, computed once per process for each. Dynamo ignores the cache wrapper and
traces the function it wraps (it warns that it does); marked, that function is called while
tracing with its arguments as Python constants, and the result is baked into the graph (a tensor
as a graph constant). The arguments are guarded like any Python constant of the frame: a call with
other values recompiles, and one Dynamo has made dynamic falls back to a break (measured on torch
2.13, tests/rewrite/test_cached_constant.py: 0 breaks where the original broke at the file read,
the same values compiled as eager for each argument, a second argument value not served the first
one's result). Eager calls are unchanged: the marker only sets an attribute on the function.

Offered only where that reasoning holds (otherwise the finding keeps its advice):
- a module-level `def`, not async, not a generator, whose only decorator is functools'
  `lru_cache`/`cache` (resolved through the imports): the marker goes under it, on the function
  Dynamo traces (on the wrapper it is never read);
- no argument is a tensor. A tensor argument would be read once while tracing and its value baked,
  with no guard on it. Every call of the function in its module must pass shown Python values
  (literals, `.device`/`.dtype`/`.shape` reads, parameters annotated with Python types or
  `torch.device`/`torch.dtype` and not rebound in the caller), there must be at least one, and no
  parameter is annotated as a tensor;
- the result is a tensor or a Python value, by the return annotation;
- the function is not an entry point or handed to `torch.compile`, and declares no `global` or
  `nonlocal` (its side effects would run at each compilation).

Unsafe, with what it assumes: callers in other modules pass Python values too, nobody changes the
returned tensor in place (the cache shares it between callers as well), and what the function reads
does not change while the process runs (compiled code reads it again at each compilation, eager
calls once).
"""

from __future__ import annotations

import ast
import functools

import libcst as cst

from graphmend_bot.analysis.summary import Imports
from graphmend_bot.findings import Finding, Fix
from graphmend_bot.rewrite.context import FixContext, names_bound_by
from graphmend_bot.rewrite.shapes.run_eagerly import compiled_or_entry_point, contains
from graphmend_bot.rewrite.well_typed import PYTHON_TYPES

MARKER = "@torch.compiler.assume_constant_result"
CACHE_DECORATORS = frozenset({"functools.lru_cache", "functools.cache"})
# Annotations of values Dynamo passes to a marked function as Python constants.
# A bare container (`tuple`) may hold tensors: containers count only with their element types (`tuple[int, ...]`).
CONTAINERS = frozenset({"list", "tuple", "dict", "List", "Tuple", "Dict", "Sequence"})
CONSTANT_ANNOTATIONS = (PYTHON_TYPES - CONTAINERS) | {"torch.device", "torch.dtype", "device", "dtype", "None",
                                                      "Optional", "Union", "..."}
# Attribute reads that give a Python value whatever tensor they are read from.
CONSTANT_ATTRIBUTES = frozenset({"device", "dtype", "shape", "ndim", "layout"})
RESULT_ANNOTATIONS = CONSTANT_ANNOTATIONS | {"torch.Tensor", "Tensor"}
ASSUMPTION = (
    "callers in other modules pass Python values, not tensors (a tensor would be read once while tracing); "
    "nobody changes the returned value in place; and what it reads does not change while the process runs "
    "(compiled code reads it again at each compilation)"
)


def build_fix(ctx: FixContext, finding: Finding) -> Fix | None:
    node = ctx.node_at(finding)
    if node is None:
        return None
    function = next((a for a in ctx.ancestors(node) if isinstance(a, cst.FunctionDef | cst.ClassDef | cst.Lambda)), None)
    if not isinstance(function, cst.FunctionDef) or not isinstance(ctx.parent(function), cst.Module):
        return None
    name = function.name.value
    if function.asynchronous is not None or contains(function.body, (cst.Yield, cst.Global, cst.Nonlocal)):
        return None
    definition = _definition(ctx.source, name)
    if definition is None or not _cached_only(definition, _imports(ctx.source)):
        return None
    if not _python_signature(definition) or compiled_or_entry_point(ctx, name):
        return None
    if not _called_with_python_values(ctx.source, name):
        return None
    return Fix.of(
        f"Mark the cached `{name}` `torch.compiler.assume_constant_result`: torch.compile calls it while "
        "tracing and keeps its result, as the cache does",
        ctx.add_torch_decorator(ctx.position(function.name).start.line, MARKER),
        assumptions=(ASSUMPTION,),
    )


@functools.lru_cache(maxsize=16)
def _module(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


@functools.lru_cache(maxsize=16)
def _imports(source: str) -> Imports:
    imports = Imports("__module__", False)
    tree = _module(source)
    for statement in tree.body if tree is not None else ():
        if isinstance(statement, ast.Import | ast.ImportFrom):
            imports.add(statement)
    return imports


def _definition(source: str, name: str) -> ast.FunctionDef | None:
    """The one module-level `def name` (None when the name is bound twice at module level)."""
    tree = _module(source)
    if tree is None:
        return None
    found = [s for s in tree.body if isinstance(s, ast.FunctionDef) and s.name == name]
    return found[0] if len(found) == 1 else None


def _cached_only(definition: ast.FunctionDef, imports: Imports) -> bool:
    """Decorated with functools' `lru_cache`/`cache` and nothing else (never marked already)."""
    if len(definition.decorator_list) != 1:
        return False
    decorator = definition.decorator_list[0]
    callee = decorator.func if isinstance(decorator, ast.Call) else decorator
    return imports.resolve(callee) in CACHE_DECORATORS


def _python_signature(definition: ast.FunctionDef) -> bool:
    """No parameter annotated as anything but a Python or torch.device/dtype type; a result annotated
    as a tensor or a Python value."""
    arguments = definition.args
    for parameter in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs):
        if parameter.annotation is not None and not _annotation_within(parameter.annotation, CONSTANT_ANNOTATIONS):
            return False
    if arguments.vararg is not None or arguments.kwarg is not None:
        return False
    return definition.returns is not None and _annotation_within(definition.returns, RESULT_ANNOTATIONS)


def _annotation_within(annotation: ast.expr, allowed: frozenset[str]) -> bool:
    """Every name the annotation is built from (`Optional[int]`, `int | None`, `"torch.device"`) is allowed."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return False
    if isinstance(annotation, ast.Constant) and annotation.value is None:
        return True
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return _annotation_within(annotation.left, allowed) and _annotation_within(annotation.right, allowed)
    if isinstance(annotation, ast.Subscript):
        inner = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
        container = ast.unparse(annotation.value) in CONTAINERS
        return (container or _annotation_within(annotation.value, allowed)) and all(
            _annotation_within(i, allowed) for i in inner
        )
    if isinstance(annotation, ast.Constant) and annotation.value is Ellipsis:
        return True
    return ast.unparse(annotation) in allowed


def _called_with_python_values(source: str, name: str) -> bool:
    """The module calls `name` at least once, and every call passes only shown Python values."""
    tree = _module(source)
    if tree is None:
        return False
    calls = 0
    for caller in ast.walk(tree):
        if not isinstance(caller, ast.FunctionDef | ast.AsyncFunctionDef | ast.Module | ast.ClassDef | ast.Lambda):
            continue
        own = _own_nodes(caller)
        annotations = _parameter_annotations(caller) if isinstance(caller, ast.FunctionDef | ast.AsyncFunctionDef) else {}
        # A parameter rebound in the caller (`for n in x.unbind(0)`, a comprehension's `n`) is no longer
        # the annotated value where it is passed.
        rebound = _bound_in(own)
        annotations = {k: v for k, v in annotations.items() if k not in rebound}
        call_targets = {id(node.func) for node in own if isinstance(node, ast.Call)}
        for node in own:
            if isinstance(node, ast.Name) and node.id == name and id(node) not in call_targets:
                return False  # handed on as a value (to map, a registry): its calls are not all here
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name:
                calls += 1
                values = [*node.args, *(k.value for k in node.keywords)]
                if any(isinstance(v, ast.Starred) for v in node.args) or any(k.arg is None for k in node.keywords):
                    return False
                if not all(_python_value(v, annotations) for v in values):
                    return False
    return calls > 0


def _bound_in(nodes: list[ast.AST]) -> set[str]:
    """The names the nodes bind: assignment and loop targets (comprehensions' too), `del`, imports,
    `except ... as`, match captures, nested `def`/`class`."""
    bound = {name for node in nodes for name in names_bound_by(node, deleted=True)}
    return bound | {n.name for n in nodes if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)}


def _parameter_annotations(function: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, ast.expr | None]:
    arguments = function.args
    return {p.arg: p.annotation for p in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}


def _own_nodes(scope: ast.AST) -> list[ast.AST]:
    """The nodes of a scope's own code (a function, lambda, class body or the module), not of the
    scopes defined in it."""
    found: list[ast.AST] = []
    pending = list(ast.iter_child_nodes(scope))
    while pending:
        node = pending.pop()
        found.append(node)
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            pending.extend(ast.iter_child_nodes(node))
    return found


def _python_value(value: ast.expr, annotations: dict[str, ast.expr | None]) -> bool:
    """`value` is shown not to be a tensor: a literal, a `.device`-like read, or a parameter of the
    calling function annotated with a Python type."""
    if isinstance(value, ast.Constant):
        return True
    if isinstance(value, ast.Tuple):
        return all(_python_value(e, annotations) for e in value.elts)
    if isinstance(value, ast.Attribute) and value.attr in CONSTANT_ATTRIBUTES:
        return True
    if isinstance(value, ast.Name) and value.id in annotations:
        annotation = annotations[value.id]
        return annotation is not None and _annotation_within(annotation, CONSTANT_ANNOTATIONS)
    return False
