"""Parameters annotated as sequences of tensors, whose items are tensors whatever callers pass.

`x: List[Tensor]` says what each item is, as `x: Tensor` says what the value is, but the parameter
itself is a collection: its Kind is what callers pass, and a caller handing on a list the analysis
knows nothing of (`group["params"]`, a list a helper built) left the loop variable of
`for x_, y_ in zip(x, y):` unknown, so its `if x_.sum() > 0:` or `x_.item()` went unreported
(heavyball's `_compilable_*` helpers; measured on torch 2.13 in tests/test_tensor_sequences.py).

Read from the annotation only when the loop iterates the parameter as it was passed (not rebound):
the list, tuple and iterable spellings (`List[Tensor]`, `list[torch.Tensor]`, `Sequence["Tensor"]`,
`Tuple[Tensor, ...]`, `Tuple[Tensor, Tensor]`), optional (`Optional[List[Tensor]]`, `... | None`)
or beside a tensor (`List[Tensor] | Tensor`: iterating a tensor yields tensors too). An item that
may be None (`List[Optional[Tensor]]`) or anything else (`Tuple[Tensor, int]`) is left to callers.
"""

from __future__ import annotations

import ast

from graphmend_bot.vocabulary.dotted_names import dotted_name

_SEQUENCES = frozenset({
    "List", "list", "Sequence", "MutableSequence", "Tuple", "tuple", "Iterable", "Iterator", "Collection",
})

_PLAIN = (ast.Name, ast.Attribute)


def iterates_tensors(function: ast.AST, name: str) -> bool:
    """Whether parameter `name` of `function` is annotated as a sequence of tensors."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        return False
    args = function.args
    for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):
        if arg.arg == name:
            return arg.annotation is not None and tensor_sequence(arg.annotation)
    return False


def tensor_sequence(annotation: ast.expr) -> bool:
    """`List[Tensor]` and its spellings (module docstring); a bare tensor is not one."""
    if type(annotation) in _PLAIN or (type(annotation) is ast.Subscript and type(annotation.slice) in _PLAIN
                                      and _leaf(annotation.value) == "Optional"):
        return False  # `int`, `torch.Tensor`, `Optional[torch.Tensor]`: most annotations, read at once
    alternatives = _alternatives(annotation)
    return alternatives is not None and any(_sequence_of_tensors(a) for a in alternatives) and all(
        _none(a) or _tensor(a) or _sequence_of_tensors(a) for a in alternatives)


def _alternatives(annotation: ast.expr) -> list[ast.expr] | None:
    """The members of a union (`A | B`, `Union[A, B]`, `Optional[A]`), or the annotation alone."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return None
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        left, right = _alternatives(annotation.left), _alternatives(annotation.right)
        return None if left is None or right is None else left + right
    if isinstance(annotation, ast.Subscript) and _leaf(annotation.value) in ("Optional", "Union"):
        members = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
        found: list[ast.expr] = []
        for member in members:
            inner = _alternatives(member)
            if inner is None:
                return None
            found.extend(inner)
        return found
    return [annotation]


def _sequence_of_tensors(annotation: ast.expr) -> bool:
    if not isinstance(annotation, ast.Subscript) or _leaf(annotation.value) not in _SEQUENCES:
        return False
    members = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
    if len(members) == 2 and isinstance(members[1], ast.Constant) and members[1].value is Ellipsis:
        members = members[:1]  # `Tuple[Tensor, ...]`
    return bool(members) and all(_tensor(member) for member in members)


def _tensor(annotation: ast.expr) -> bool:
    """`Tensor`, `torch.FloatTensor`, `"Tensor"`, `nn.Parameter`: a tensor, never None."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        name = annotation.value
    else:
        name = dotted_name(annotation) or ""
    leaf = name.rsplit(".", 1)[-1]
    return leaf.endswith("Tensor") or leaf == "Parameter"


def _none(annotation: ast.expr) -> bool:
    return isinstance(annotation, ast.Constant) and annotation.value is None


def _leaf(node: ast.expr) -> str:
    return (dotted_name(node) or "").rsplit(".", 1)[-1]
