"""Which parameters are tensors, read from their annotations, defaults and names (`mask: Tensor`,
`output_attentions=None`), and which take a tensor when a caller passes one."""

from __future__ import annotations

import ast

from graphmend_bot.analysis.local_nodes import every_node
from graphmend_bot.vocabulary.dotted_names import dotted_name

_FLAG_PREFIXES = ("output_", "return_", "use_", "is_", "do_", "has_", "enable_")
_COUNT_PREFIXES = ("num_", "n_")


# Iteration limits, spelled as SciPy's and the optimizers' (`maxiter`, `maxfev`) and their snake-case forms.
_COUNT_NAMES = frozenset({"n", "maxiter", "niter", "maxfev", "maxfun", "max_iter", "max_iters", "max_steps", "max_epochs"})


def is_count_name(name: str) -> bool:
    """`num_samples`, `n_steps`, `n`, `maxiter`: a count by convention, which a caller passes as a
    Python int (nflows' `Distribution.sample(num_samples)`, `tile(x, n)`, torchdyn's multiple-shooting
    `root_solve(..., fine_steps, maxiter)`), not a tensor an entry point is handed."""
    return name in _COUNT_NAMES or name.startswith(_COUNT_PREFIXES)


def tensor_param(
    name: str, annotation: ast.expr | None, default: ast.expr | None, entry: bool
) -> bool | None:
    """Whether a parameter is a tensor, from its annotation and default; None when unknown."""
    if name.startswith(_FLAG_PREFIXES):
        return False  # output_attentions=None, return_dict=None: flags by convention
    if annotation is not None and _admits_anything(annotation):
        # `cond: Any` hints nothing, so a caller passing a Python value does not fix it for every
        # caller (transformers' `torch_compilable_check(cond: Any, ...)` takes bools and tensors)
        return None
    if annotation is not None:
        return _tensor_annotation(annotation)
    if default is not None and not (isinstance(default, ast.Constant) and default.value is None):
        return False  # a non-None default (flag, size, string) is a Python value
    return True if entry else None


def yields_to_callers(name: str, annotation: ast.expr | None) -> bool:
    """Whether a parameter that is not a tensor by its annotation or default becomes one when a
    caller passes a tensor: a scalar hint (`timestep: int`, `t0=0.0`) is one Dynamo ignores, and so
    is a tuple of them (`paddings: tuple[int, int]`); a container annotation says what its elements
    are (`Dict[str, Tensor]` yields; `Sequence[float]` does not, nor `Dict[str, Any]`: kornia's flags
    dicts share helpers with its tensor dicts, and one caller's tensors would reach every flag), and
    a flag by name never does."""
    if name.startswith(_FLAG_PREFIXES):
        return False
    if annotation is None:
        return True
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        text = annotation.value
        if any(f"{container}[" in text for container in _CONTAINERS):
            return "Tensor" in text or _scalar_tuple(_unquoted(annotation))
        return True
    if _subscripts_a_container(annotation):
        return _scalar_tuple(annotation) or any("Tensor" in word for word in _words(annotation))
    return True


_SCALAR_HINTS = frozenset({"int", "float"})


def _scalar_tuple(annotation: ast.expr | None) -> bool:
    """`tuple[int, int]`, `Tuple[float, ...]`: a tuple of scalar hints, each one Dynamo ignores as it
    does `timestep: int` (transformers' encodec passes its 0-d buffers for `paddings: tuple[int, int]`)."""
    if not isinstance(annotation, ast.Subscript):
        return False
    if (dotted_name(annotation.value) or "").rpartition(".")[2] not in ("tuple", "Tuple"):
        return False
    members = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
    return all(
        (isinstance(member, ast.Name) and member.id in _SCALAR_HINTS)
        or (isinstance(member, ast.Constant) and member.value is Ellipsis)
        for member in members
    )


def mentions_tensor(annotation: ast.expr | None) -> bool:
    """`Tensor`, `Optional[torch.FloatTensor]`, `tuple[Tensor, dict[str, Any]]`, `List["Tensor"]`:
    an annotation naming a tensor type, bare or inside a container."""
    return annotation is not None and any(
        word.endswith("Tensor") or "Tensor]" in word or "Tensor," in word for word in _words(annotation))


def may_hold_tensor(annotation: ast.expr | None) -> bool:
    """Whether a parameter so annotated may be handed tensors: unannotated, `Any`, a tensor, or a
    container (`dict[str, Any]`); not `path: str`, `n: int`, `device: torch.device`."""
    if annotation is None or mentions_tensor(annotation):
        return True
    return any(word == "Any" or word.rpartition(".")[2] in _CONTAINERS for word in _words(annotation))


def _words(annotation: ast.expr) -> list[str]:
    """The names, attribute names and strings of an annotation: what its source text says,
    read without `ast.unparse` (which cost more than the rest of the parameter's analysis). In no
    particular order; the usual parts are followed by hand, the rest by `ast.iter_child_nodes`
    (`ast.walk`'s generators cost more than the rest of the signature's analysis)."""
    words: list[str] = []
    pending: list[ast.AST] = [annotation]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Name):
            words.append(node.id)
        elif isinstance(node, ast.Attribute):
            words.append(node.attr)
            pending.append(node.value)
        elif isinstance(node, ast.Subscript):
            pending.append(node.value)
            pending.append(node.slice)
        elif isinstance(node, (ast.Tuple, ast.List)):
            pending.extend(node.elts)  # `Dict[str, Tensor]`, `Callable[[int], str]`
        elif isinstance(node, ast.BinOp):
            pending.append(node.left)  # `Tensor | None`
            pending.append(node.right)
        elif isinstance(node, ast.Constant):
            if isinstance(node.value, str):
                words.append(node.value)
        else:
            pending.extend(ast.iter_child_nodes(node))
    return words


def _subscripts_a_container(annotation: ast.expr) -> bool:
    """Whether the annotation's text has `List[`, `Dict[`... (`typing.Tuple[`, a quoted `"List["`)."""
    if isinstance(annotation, (ast.Name, ast.Attribute)) and dotted_name(annotation) is not None:
        return False  # `int`, `torch.device`: nothing to walk (most annotated parameters)
    for node in every_node(annotation):
        if isinstance(node, ast.Subscript):
            value = node.value
            leaf = value.id if isinstance(value, ast.Name) else value.attr if isinstance(value, ast.Attribute) else ""
            if leaf.endswith(_CONTAINER_SUFFIXES):
                return True
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and any(f"{container}[" in node.value for container in _CONTAINERS)):
            return True
    return False


_CONTAINERS = frozenset({
    "Tuple", "tuple", "List", "list", "Dict", "dict", "Sequence", "Iterable", "Mapping", "Set", "set",
})
_CONTAINER_SUFFIXES = tuple(_CONTAINERS)


def _unquoted(annotation: ast.expr | None) -> ast.expr | None:
    """The expression a string annotation (`"List[Tensor]"`) holds; None when it does not parse."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            return ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return None
    return annotation


def sized_annotation(annotation: ast.expr | None) -> bool:
    """`list[torch.Tensor]`, `Optional[Tuple[Tensor, ...]]`, `dict`: a collection (or None), whose
    truth is its length, never a tensor's value (sam2's `if not pointer_tokens:` on a
    `pointer_tokens: list[torch.Tensor]`)."""
    annotation = _unquoted(annotation)
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return all(_sized_or_none(side) for side in (annotation.left, annotation.right))
    target = annotation.value if isinstance(annotation, ast.Subscript) else annotation
    leaf = (dotted_name(target) or "").rsplit(".", 1)[-1] if target is not None else ""
    if isinstance(annotation, ast.Subscript) and leaf in ("Optional", "Union"):
        members = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
        return all(_sized_or_none(member) for member in members)
    return leaf in _BUILT_IN_CONTAINERS


# Concrete containers only: a tensor is itself a `Sequence` and an `Iterable`, so a caller may
# rightly pass one for such a hint, and its truth is then a tensor's (measured: `if weights:` on
# `weights: Sequence[Tensor]` given a tensor breaks); a tensor passed for a `list` is not.
_BUILT_IN_CONTAINERS = frozenset({"Tuple", "tuple", "List", "list", "Dict", "dict", "Set", "set"})


def optional_tensor(annotation: ast.expr | None) -> bool:
    """`Optional[Tensor]`, `Tensor` (with a None default), `Optional[Union[Tensor, Tuple[Tensor,
    Tensor]]]` (opacus' LSTM `state_init`): an annotation admitting a tensor. On a None-defaulted
    parameter whose truth the body tests bare (`if scale:`, `state_init or (None, None)`), the test
    means "given" as it does unannotated: a tensor's truth raises unless it has one element."""
    return annotation is not None and _tensor_annotation(annotation)


def _sized_or_none(annotation: ast.expr) -> bool:
    return (isinstance(annotation, ast.Constant) and annotation.value is None) or sized_annotation(annotation)


_MAPPINGS = frozenset({"Dict", "dict", "Mapping", "MutableMapping"})


def tensor_mapping_annotation(annotation: ast.expr | None) -> bool:
    """`Dict[str, Tensor]`, `Optional[Dict[str, torch.Tensor]]`: a mapping whose values are tensors."""
    annotation = _unquoted(annotation)
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return tensor_mapping_annotation(annotation.left) or tensor_mapping_annotation(annotation.right)
    if not isinstance(annotation, ast.Subscript):
        return False
    leaf = (dotted_name(annotation.value) or "").rsplit(".", 1)[-1]
    if leaf == "Optional":
        return tensor_mapping_annotation(annotation.slice)
    arguments = annotation.slice
    return (
        leaf in _MAPPINGS
        and isinstance(arguments, ast.Tuple)
        and len(arguments.elts) == 2
        and _tensor_annotation(arguments.elts[1])
    )


def bool_tensor_annotation(annotation: ast.expr) -> bool:
    """`torch.BoolTensor`, `Optional[torch.BoolTensor]`: a parameter that is a mask. The text is
    read only for a tensor annotation: unparsing every annotation cost more than the rest."""
    if not _tensor_annotation(annotation):
        return False
    if (name := dotted_name(annotation)) is not None:
        return "BoolTensor" in name  # `torch.Tensor`: no walk (a dot is in no word, so none spans two)
    return any("BoolTensor" in word for word in _words(annotation))


def _admits_anything(annotation: ast.expr) -> bool:
    """`Any`, `typing.Any`, `object` (or their quoted forms): an annotation that says nothing of the value."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        name = annotation.value
    else:
        name = dotted_name(annotation) or ""
    return name.rsplit(".", 1)[-1] in ("Any", "object")


def _tensor_annotation(annotation: ast.expr) -> bool:
    """A tensor annotation (`torch.Tensor`, `Optional[FloatTensor]`, `Tensor | None`); a
    container of tensors (`Tuple[torch.FloatTensor]`) or a cache object is not a tensor."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            return _tensor_annotation(ast.parse(annotation.value, mode="eval").body)
        except SyntaxError:
            return "Tensor" in annotation.value
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return _tensor_annotation(annotation.left) or _tensor_annotation(annotation.right)
    if isinstance(annotation, ast.Subscript):
        outer = dotted_name(annotation.value) or ""
        leaf = outer.rsplit(".", 1)[-1]
        if leaf in ("Optional", "Union"):
            members = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
            return any(_tensor_annotation(member) for member in members)
        return _typed_array(annotation, leaf)  # Tuple[...], List[...], Dict[...]: containers
    name = dotted_name(annotation) or ""
    leaf = name.rsplit(".", 1)[-1]
    return leaf.endswith("Tensor") or leaf == "Parameter"


# jaxtyping's dtype words (`Float`, `Float32`, `BFloat16`, `Int8`, `UInt8`, `Bool`, `Shaped`, ...).
_JAXTYPING_DTYPES = frozenset({
    "Float", "BFloat", "Int", "UInt", "Integer", "Bool", "Complex", "Inexact", "Real", "Num", "Shaped", "Key",
})


def _typed_array(annotation: ast.Subscript, leaf: str) -> bool:
    """jaxtyping's `Float[Tensor, "b n"]` (`Int[torch.Tensor, ""]`, any dtype word: the array type
    comes first, then a shape string) and torchtyping's `TensorType["b", "n"]`: a tensor whose
    dtype and shape the annotation names. `Float[np.ndarray, "b"]` is an array, `Annotated[int, "n"]`
    a number."""
    if leaf == "TensorType":
        return True
    if leaf.rstrip("0123456789") not in _JAXTYPING_DTYPES:
        return False  # `Tuple[Tensor, "Cache"]`: a container with a forward reference
    members = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else []
    return (len(members) == 2 and isinstance(members[0], (ast.Name, ast.Attribute)) and _tensor_annotation(members[0])
            and isinstance(members[1], ast.Constant) and isinstance(members[1].value, str))
