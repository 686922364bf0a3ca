"""What the syntax of an assignment, a return, a loop or an index says on its own, before any kind
is known: the pure helpers of the statement and expression layers (function_statements.py,
function_expressions.py)."""

from __future__ import annotations

import ast
from collections.abc import Callable, Collection, Mapping
from typing import cast

from graphmend_bot.analysis.function_state import Env, Resolve
from graphmend_bot.vocabulary.dotted_names import dotted_name
from graphmend_bot.vocabulary.kind import NOT_TENSOR, TENSOR, Kind


def bound_names(target: ast.expr) -> list[str]:
    """The names an assignment of a call binds to its whole result or one element of it
    (`tokens = f()`, `a, tokens = f()`), not those a starred target collects."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in target.elts):
        return [element.id for element in target.elts if isinstance(element, ast.Name)]
    return []


def output_fields(value: ast.expr, env: Env) -> tuple[Kind, ...] | None:
    """`return Output(a, b, c)` beside `return (a, b, c)` (transformers' `return_dict`): what
    unpacking or indexing it gives at position k is one of the fields from k on (a ModelOutput
    skips its None fields; a named tuple is exact). Only for locals and constants passed by position,
    whose kinds are read without evaluating anything twice."""
    if not (isinstance(value, ast.Call) and not value.keywords and value.args
            and all(isinstance(arg, (ast.Name, ast.Constant)) for arg in value.args)):
        return None
    name = dotted_name(value.func)
    if name is None or not name.rpartition(".")[2][:1].isupper():
        return None  # a class by its name, as function_objects.names_a_class reads a constructor
    kinds = [env.get(arg.id, NOT_TENSOR) if isinstance(arg, ast.Name) else NOT_TENSOR for arg in value.args]
    return tuple(Kind.union(kinds[k:]) for k in range(len(kinds)))


def submodule_iteration(node: ast.For | ast.AsyncFor | ast.comprehension, builtin: Resolve) -> tuple[str, str] | None:
    """`for layer in self.layers` / `for i, layer in enumerate(self.layers)` / `for k, head in
    self.heads.items()`, or a comprehension's `for` clause alike: (layer, ref).
    `builtin`: the builtin a callee is unless a binding hides it (FunctionState.builtin_of)."""
    source, target = node.iter, node.target
    if (
        isinstance(source, ast.Call)
        and isinstance(source.func, ast.Name)
        and source.func.id in ("enumerate", "zip")
        and builtin(source.func) == source.func.id
        and source.args
        and isinstance(target, ast.Tuple)
        and len(target.elts) == (2 if source.func.id == "enumerate" else len(source.args))
        and not any(isinstance(part, ast.Starred) for part in (*source.args, *target.elts))
    ):
        # `enumerate(self.layers)`, or the first of `zip(self.layers, ws)`
        source, target = (source.args[0], target.elts[1]) if source.func.id == "enumerate" else (
            source.args[0], target.elts[0])
    if isinstance(source, ast.Subscript) and isinstance(source.slice, ast.Slice):
        source = source.value  # `self.layers[1:]`: a container of the same elements
    elif (isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute) and source.func.attr in ("values", "items")
          and not source.args and isinstance(source.func.value, ast.Attribute)):
        if source.func.attr == "items":  # `for name, head in self.heads.items()`: the value is the submodule
            if not (isinstance(target, ast.Tuple) and len(target.elts) == 2):
                return None
            target = target.elts[1]
        source = source.func.value  # `self.heads.values()` of a ModuleDict
    if (
        isinstance(target, ast.Name)
        and isinstance(source, ast.Attribute)
        and isinstance(source.value, ast.Name)
        and source.value.id == "self"
    ):
        return target.id, f"self:{source.attr}[]"
    return None


def seeded_generator(value: ast.expr, resolve: Callable[[ast.expr], str | None]) -> str | None:
    """`torch.Generator(device).manual_seed(seed)`: manual_seed returns the generator itself."""
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr == "manual_seed"
        and isinstance(value.func.value, ast.Call)
    ):
        return resolve(value.func.value.func)
    return None


def attributes_only(kind: Kind) -> bool:
    """A kind that is a tensor only if some `self.<name>` attribute is one."""
    return not kind.always and not kind.calls and all(name.startswith("self.") for name in kind.params)


def is_builtin_call(node: ast.expr, name: str, builtin: Resolve) -> bool:
    """`node` calls the builtin `name`; `builtin`: the builtin a callee is, if any (FunctionState.builtin_of)."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and builtin(node.func) == name


def is_validation_guard(node: ast.If) -> bool:
    return not node.orelse and len(node.body) == 1 and isinstance(node.body[0], ast.Raise)


def merge_into(env: Env, *arm_envs: list[Env]) -> None:
    """What each name holds after a branch: the union of what the arms that fall through hold.

    The arms are copies of `env`, so a name every arm still holds as it was is left alone: only
    the names some arm bound again are joined (joining each name of a long `forward` after each
    of its `if`s, most of them untouched, was 1.4% of the summaries' instructions)."""
    arms = [arm for group in arm_envs for arm in group]
    if not arms:
        return
    rebound = {name for arm in arms for name, kind in arm.items() if env.get(name) is not kind}
    for name in rebound:
        kinds = [arm.get(name, NOT_TENSOR) for arm in arms]
        # known None (narrowing.NONE_VALUE) after the branch only where every arm knows it
        env[name] = kinds[0] if all(kind is kinds[0] for kind in kinds) else Kind.union(kinds)


def is_operation(value: ast.expr | None) -> bool:
    """An expression that runs an operation (a call, arithmetic, indexing, a comparison)."""
    return isinstance(value, (ast.Call, ast.BinOp, ast.UnaryOp, ast.Subscript, ast.Compare))


CATCH_ALL = frozenset({"Exception", "BaseException", "builtins.Exception", "builtins.BaseException"})


def handled_names(handlers: list[ast.ExceptHandler]) -> frozenset[str]:
    """The class names a `try`'s handlers catch, by their last part; "*" for `except:` and the
    catch-alls (`except Exception:`)."""
    names: set[str] = set()
    for handler in handlers:
        types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
        for caught in types:
            if caught is None:
                names.add("*")
            elif (name := dotted_name(caught)) is not None:
                names.add("*" if name in CATCH_ALL else name.rpartition(".")[2])
    return frozenset(names)


def caught_here(exc: ast.expr, handled: list[frozenset[str]]) -> bool:
    """`raise Error(...)` (or `raise Error`) inside a `try` whose handler names Error or catches
    everything: the exception stays in the function, so Dynamo traces building it."""
    built = exc.func if isinstance(exc, ast.Call) else exc
    name = dotted_name(built)
    if name is None:
        return False
    leaf = name.rpartition(".")[2]
    return any("*" in names or leaf in names for names in handled)


def returned_names(value: ast.Tuple, env: Collection[str]) -> list[tuple[int, str]]:
    """(place, name) of each name `return a, b` hands out that is no local value: a function or a
    class defined elsewhere, returned beside values (none when a starred element moves the places)."""
    if any(isinstance(element, ast.Starred) for element in value.elts):
        return []
    return [(index, element.id) for index, element in enumerate(value.elts)
            if isinstance(element, ast.Name) and element.id not in env]


def display_kinds(node: ast.expr, evaluate: Callable[[ast.expr], Kind]) -> tuple[Kind, ...] | None:
    """Element kinds of a tuple or list display without starred items; else None."""
    if isinstance(node, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in node.elts):
        return tuple(evaluate(e).without_flags() for e in node.elts)
    return None


def constant_index(node: ast.expr) -> int | None:
    """`2`, `-1`: an int index written in the source."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        inner = constant_index(node.operand)
        return None if inner is None else -inner
    return node.value if isinstance(node, ast.Constant) and type(node.value) is int else None


def slice_bounds(node: ast.expr, evaluate: Callable[[ast.expr], Kind], ndarray: Callable[[ast.expr], bool]) -> Kind:
    """The kinds of the bounds of every slice in an index (`x[:, a:b]`). A NumPy value is a tensor
    under Dynamo (numpy_values.py): `x[:, idx[0]:idx[1]]` with `idx = np.array(pair)` breaks at the
    bound's int conversion (GB0033, measured on torch 2.13: tests/test_numpy_sizes.py)."""
    parts = node.elts if isinstance(node, ast.Tuple) else [node]
    kinds = [
        TENSOR if ndarray(bound) else evaluate(bound).without_flags()
        for part in parts
        if isinstance(part, ast.Slice)
        for bound in (part.lower, part.upper, part.step)
        if bound is not None
    ]
    return Kind.union(kinds)


def builds_dict(value: ast.expr, builtin: Resolve) -> bool:
    """`{...}`, a dict comprehension or `dict(...)`: iterated (and sorted) by its keys."""
    return isinstance(value, (ast.Dict, ast.DictComp)) or is_builtin_call(value, "dict", builtin)


def parameter_loop_names(target: ast.expr, iterable: ast.expr) -> list[str]:
    """The parameter `for target in iterable` binds: `p` of `for p in m.parameters()` and of
    `for name, p in m.named_parameters()` (nn.Parameters, graph inputs that require grad)."""
    method = iterable.func.attr if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute) else ""
    if method == "parameters" and isinstance(target, ast.Name):
        return [target.id]
    if method == "named_parameters" and isinstance(target, ast.Tuple) and len(target.elts) == 2:
        value = target.elts[1]
        return [value.id] if isinstance(value, ast.Name) else []
    return []


def python_comparison(node: ast.Compare) -> bool:
    """A comparison whose result is a Python bool whatever its operands: identity, membership (its
    container's `__contains__` is judged on its own), and equality with text."""
    if len(node.ops) == 1:  # nearly every comparison: no generator on the hot path
        return _python_operator(node.ops[0], node.left, node.comparators[0])
    return all(
        _python_operator(op, left, right)
        for op, left, right in zip(node.ops, [node.left, *node.comparators], node.comparators, strict=False)
    )


_IDENTITY_OR_MEMBERSHIP = (ast.Is, ast.IsNot, ast.In, ast.NotIn)


def _python_operator(op: ast.cmpop, left: ast.expr, right: ast.expr) -> bool:
    """`a is b`, `k in d`, and `mode == 'sum'`, `f"{k}" != key`, `coords == {}`: equality with text or
    a list, tuple, dict or set display is a Python bool even on a tensor (Tensor.__eq__ gives up on
    them, and Python falls back to identity: `torch.ones(3) == [1.0, 1.0, 1.0]` is False), so Dynamo
    branches on it without a break (tests/test_text_comparisons.py)."""
    return isinstance(op, _IDENTITY_OR_MEMBERSHIP) or (
        isinstance(op, (ast.Eq, ast.NotEq)) and (_is_unlike_tensor(left) or _is_unlike_tensor(right)))


def _is_unlike_tensor(node: ast.expr) -> bool:
    """Text, or a container a tensor never equals (`{}`, `[1.0, 2.0]`, `(a, b)`, `set()`)."""
    if isinstance(node, (ast.Dict, ast.Set, ast.List, ast.Tuple)):
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("set", "dict") and not node.args:
        return True
    return _is_text(node)


def _is_text(node: ast.expr) -> bool:
    # not bytes: Dynamo breaks on `x == b'sum'` (GB0213, measured in tests/test_text_comparisons.py)
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str))


def consumes_generator(node: ast.AST) -> bool:
    """`all(t > 0 for t in ts)`, `any(...)`: the builtin takes each element's truth while it iterates
    the generator expression, and that break leaves the rest of the frame eager as one in a loop body
    does (measured on torch 2.13: tests/test_generator_expression_rest.py). `sorted(...)` of one breaks
    after it has consumed it (resumed: GM618's fixture), and a `map` consumed in place is resumed after
    (tests/test_call_spellings.py)."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("all", "any")
            and len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.GeneratorExp))


def passed_through(targets: list[ast.expr], value: ast.expr, elements: tuple[Kind, ...], env: Mapping[str, Kind]) -> tuple[Kind, ...]:
    """`x, t_span = solver.sync_device_dtype(x, t_span)`: names a call is handed and rebinds from what
    it returns, two or more of them, are the same values prepared (cast, moved, broadcast), so each
    keeps the kind it had besides what the call returns there (torchdyn's `odeint`, whose solver
    object the tree cannot type)."""
    if not isinstance(value, ast.Call):
        return elements
    handed = {arg.id for arg in value.args if isinstance(arg, ast.Name)}
    through = [isinstance(target, ast.Name) and target.id in handed for target in targets]
    if sum(through) < 2:
        return elements
    return tuple(kind | env.get(cast(ast.Name, target).id, NOT_TENSOR) if kept else kind
                 for target, kind, kept in zip(targets, elements, through))
