"""Which parameters a function's docstring types as Python scalars (`pad_left : int`), and which
it says are tensors (`x (Tensor): ...`).

A root's unannotated parameters are assumed tensors (public_api.py), but much scientific code
declares its types in the docstring instead of annotations, in one of the three usual spellings:

- numpydoc: `pad_left : int` (or `i0, i1 : int`, `axis : int, optional`);
- Google: `pad_left (int): ...` (or `(int, optional)`);
- Sphinx: `:type pad_left: int` or `:param int pad_left: ...`.

A maintainer who wrote `int` there says what callers pass, as `num_samples` says it by name
(parameter_annotations.is_count_name): kymatio's public `TorchBackend1D.pad(x, pad_left, pad_right)`
documents both as ints, and a user's compiled scattering passes ints (no break, torch 2.13). Only a
type made of discrete words counts (`int`, `bool`, `str`): `int or tuple`, `array_like` do not, and
neither does `float`. An int is a count, a size or an index, which torch's operators want as a Python
int; a real-valued parameter of a numeric library (`loc`, `scale`, a time, a temperature) is
documented `float` by habit and is often handed a tensor that broadcasts, whose use breaks.

The other way, a maintainer who documents a parameter as a tensor says a user's compiled code
passes one (tensor_uses.py): a type naming one (`ys (Tensor): ...`, `x : torch.Tensor`,
`:type x: FloatTensor`, `Tensor or None`), or, in Google's untyped spelling, a description whose
head noun is one (`ys: Output Tensor of shape (batch, dim_y).`, deepxde's `dde.grad.jacobian`;
not `dim: dimension of the input tensor`, a number about one).

A parameter documented as a concrete container (`xs (list)`, `xs : list of Tensor`, `shape : tuple of
int, optional`, `:param dict d:`) is one: its truth is its length, never a tensor's value, as for
`xs: list[Tensor]` (parameter_annotations.sized_annotation; `Sequence` and `iterable` are left out for
the same reason: a tensor is one). Documented containers that were taken for tensors made GM101 false
positives on `if not xs:` in the wild corpus.

A constructor parameter documented as one class (`model (:obj:`System`): ...`, `net : ~pkg.Net`)
types the attribute `__init__` stores it in, as an annotation would (summary.py `_submodules`):
pypose's `EKF(model)` documents `model` so and reads `self.model.A`, a property of the class
(documented_classes).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator, Sequence

# A declaration line, stripped of its indent: Sphinx's two spellings, Google's, numpydoc's.
_DECLARATION = re.compile(
    r"(?:"
    r":type[ \t]+(?P<sphinx>\w+)[ \t]*:[ \t]*(?P<sphinx_type>[^\n]+)"
    r"|:param[ \t]+(?P<param_type>[^:\n]+?)[ \t]+(?P<param>\w+)[ \t]*:"
    r"|\*{0,2}(?P<google>\w+)[ \t]*\((?P<google_type>[^()\n]+)\)[ \t]*:"
    r"|\*{0,2}(?P<numpy>\w+(?:[ \t]*,[ \t]*\w+)*)[ \t]+:[ \t]+(?P<numpy_type>[^\n]+)"
    r")"
)
_SPELLINGS = (
    ("sphinx", "sphinx_type"),
    ("param", "param_type"),
    ("google", "google_type"),
    ("numpy", "numpy_type"),
)
# Google's spelling without a type (`ys: Output Tensor of shape (batch_size, dim_y).`), and Sphinx's.
_DESCRIBED = re.compile(r"(?::param[ \t]+|\*{0,2})(?P<name>\w+):[ \t]+(?P<text>[^\n]+)")
_TENSOR_TYPE = re.compile(r"\b(?:torch\.)?\w*Tensors?\b", re.IGNORECASE)
# Words a description's head noun follows (`Output Tensor`, `the input tensor`, `a batched tensor`);
# any other word before `tensor` makes it a description of something else (`dimension of the tensor`).
_HEAD_MODIFIERS = frozenset({"a", "an", "the", "input", "output", "batched", "batch", "real", "complex"})
# One class, as a docstring names it: `System`, `pkg.mod.System`, in a Sphinx role (`:obj:`System``,
# `:class:`~pkg.System``), optionally `, optional` after it.
_CLASS_TYPE = re.compile(
    r"(?::(?:py:)?(?:obj|class):)?`?~?(?P<name>[A-Za-z_][\w.]*)`?(?:[ \t]*,[ \t]*optional)?[ \t]*\.?"
)
_SCALAR_WORDS = frozenset({"int", "bool", "str", "integer", "boolean", "string", "none"})
# A docstring naming none of these has nothing to parse (most of them: read it only then).
_SCALAR_STEMS = ("int", "bool", "str")
# `list of Tensor`, `List[int]`, `tuple, optional`, `python list`: a concrete container's word leads.
_CONTAINER_WORD = re.compile(r"(?:python[ \t]+)?(?:list|tuple|dict|dictionary|set)(?:$|[ \t(])")  # not `list-like`
_CONTAINER_STEM = re.compile(r"\b(?:list|tuple|dict|dictionary|set)\b", re.IGNORECASE)
# A subscript's brackets hold commas of their own (`Tuple[int, int]`): dropped before the split.
_INNERMOST_BRACKETS = re.compile(r"\[[^\[\]]*\]")
# What may follow the type after a comma: `int, optional`, `bool, default False`, `int, default=0`.
_QUALIFIERS = ("optional", "default")
# The numpydoc and Google sections past the parameters, whose `name : type` lines are no parameters.
_OTHER_SECTIONS = frozenset({"Returns", "Yields", "Raises", "Attributes", "Examples", "Notes", "See Also"})


def documented_scalars(
    node: ast.FunctionDef | ast.AsyncFunctionDef, candidates: Sequence[str]
) -> frozenset[str]:
    """Those of `candidates` (parameter names) that `node`'s docstring types as Python scalars."""
    docstring = _docstring(node)
    if docstring is None or not any(word in docstring for word in _SCALAR_STEMS):
        return frozenset()
    return _declared_as(docstring, candidates, _is_scalar_type)


def documented_containers(
    node: ast.FunctionDef | ast.AsyncFunctionDef, candidates: Sequence[str]
) -> frozenset[str]:
    """Those of `candidates` that `node`'s docstring types as a list, tuple, dict or set (or None)."""
    docstring = _docstring(node)
    if docstring is None or _CONTAINER_STEM.search(docstring) is None:
        return frozenset()
    return _declared_as(docstring, candidates, _is_container_type)


def _declared_as(docstring: str, candidates: Sequence[str], is_type: Callable[[str], bool]) -> frozenset[str]:
    """Those of `candidates` a typed declaration line of `docstring` gives a type `is_type` accepts."""
    names: set[str] = set()
    for line in _parameter_lines(docstring, candidates):
        if (declared := _declaration(line)) is not None and is_type(declared[1]):
            names.update(declared[0])
    return frozenset(names.intersection(candidates))


def documented_tensors(
    node: ast.FunctionDef | ast.AsyncFunctionDef, candidates: Sequence[str]
) -> frozenset[str]:
    """Those of `candidates` that `node`'s docstring says are tensors (module docstring)."""
    docstring = _docstring(node)
    if docstring is None or "ensor" not in docstring:
        return frozenset()
    names: set[str] = set()
    for line in _parameter_lines(docstring, candidates):
        if (declared := _declaration(line)) is not None:
            if _TENSOR_TYPE.search(declared[1]):
                names.update(declared[0])
        elif (described := _DESCRIBED.match(line)) is not None and _names_a_tensor(described.group("text")):
            names.add(described.group("name"))
    return frozenset(names.intersection(candidates))


def documented_classes(
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, candidates: Sequence[str]
) -> dict[str, str]:
    """Those of `candidates` that `node`'s docstring types as one class -> its name as written
    (`System`, `pkg.System`): a capitalised last part, no tensor, no container or union."""
    docstring = _docstring(node)
    if docstring is None:
        return {}
    found: dict[str, str] = {}
    for line in _parameter_lines(docstring, candidates):
        declared = _declaration(line)
        if declared is None or (match := _CLASS_TYPE.fullmatch(declared[1].strip())) is None:
            continue
        name = match.group("name")
        leaf = name.rsplit(".", 1)[-1]
        if leaf[:1].isupper() and not _TENSOR_TYPE.fullmatch(leaf):
            found.update((param, name) for param in declared[0] if param in candidates)
    return found


def _parameter_lines(docstring: str, candidates: Sequence[str]) -> Iterator[str]:
    """The docstring's lines, stripped, that start with a candidate's name or a Sphinx field, up
    to the sections past the parameters. Only those are matched: the regex on every line of a long
    docstring cost more than the rest of the function's analysis."""
    starts = (*candidates, ":type", ":param")
    for line in docstring.splitlines():
        line = line.lstrip(" \t*")
        if line.rstrip(" \t:") in _OTHER_SECTIONS:
            return  # `Returns\n-------\nn : int` names a result, not the parameter `n`
        if line.startswith(starts):
            yield line


def _declaration(line: str) -> tuple[list[str], str] | None:
    """(the names, their type) that a typed declaration line declares, in any of the spellings."""
    if (match := _DECLARATION.match(line)) is None:
        return None
    for name_group, type_group in _SPELLINGS:
        if (declared := match.group(name_group)) is not None:
            return [name.strip() for name in declared.split(",")], match.group(type_group)
    return None


def _names_a_tensor(description: str) -> bool:
    """`Output Tensor of shape ...`, `the input tensor`: a tensor is the description's head noun."""
    for word in description.split()[:4]:
        if _TENSOR_TYPE.fullmatch(word.rstrip(".,;:")):
            return True
        if word.lower() not in _HEAD_MODIFIERS:
            return False
    return False


def _docstring(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> str | None:
    """ast.get_docstring without its cleaning: the lines are stripped where they are read."""
    first = node.body[0]
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        return first.value.value
    return None


def _is_scalar_type(text: str) -> bool:
    """`int`, `int or None`, `int, optional`, `bool, default False`: discrete scalar words only."""
    head, *rest = (part.strip() for part in text.strip().rstrip(".").split(","))
    if any(not part.lower().startswith(_QUALIFIERS) for part in rest):
        return False  # `int, tuple of ints`: a second type, not a qualifier
    words = [word for word in re.split(r"\s+or\s+|\s*\|\s*", head.lower()) if word]
    return bool(words) and all(word.removeprefix("python ") in _SCALAR_WORDS for word in words)


def _is_container_type(text: str) -> bool:
    """`list`, `list of Tensor`, `Tuple[int, int], optional`, `dict or None`: each alternative a list,
    tuple, dict or set; `int or tuple`, `Sequence[Tensor]`, `list or Tensor` are not."""
    while (unbracketed := _INNERMOST_BRACKETS.sub("", text)) != text:
        text = unbracketed
    head, *rest = (part.strip() for part in text.strip().rstrip(".").split(","))
    if any(not part.lower().startswith(_QUALIFIERS) for part in rest):
        return False
    words = [word for word in re.split(r"\s+or\s+|\s*\|\s*", head.lower()) if word]
    return bool(words) and all(word == "none" or _CONTAINER_WORD.match(word) for word in words)


# The result's section header: Google's `Returns:` / `Return:` (its type maybe inline), numpydoc's
# `Returns` over a dashed rule.
_RETURNS_HEADER = re.compile(r"Returns?[ \t]*:[ \t]*(?P<inline>[^\n]*)|Returns?[ \t]*")


def documents_tensor_result(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether the docstring types the result as a tensor, as `-> Tensor` would: Google's
    `Returns:\\n    LieTensor: the output` or `Returns: Tensor`, numpydoc's `Returns\\n-------\\nTensor`
    (or `out : Tensor`), or an untyped description whose head noun is one (`The output tensor.`);
    not `Returns: int`, nor `Returns: the number of tensors` (pypose's `Inv(x)`, rootsL's note)."""
    docstring = _docstring(node)
    if docstring is None or "ensor" not in docstring or "Return" not in docstring:
        return False
    lines = docstring.splitlines()
    for index, line in enumerate(lines):
        # the cheap test first: transformers' docstrings run to hundreds of lines
        if not line.lstrip().startswith("Return") or (header := _RETURNS_HEADER.fullmatch(line.strip())) is None:
            continue
        following = (rest for rest in map(str.strip, lines[index + 1:]) if rest and set(rest) != {"-"})
        return _types_a_tensor(header.group("inline") or next(following, ""))
    return False


def _types_a_tensor(line: str) -> bool:
    """`LieTensor: the output`, `torch.Tensor`, `out : Tensor`, `The output tensor.`"""
    head, colon, rest = line.partition(":")
    if colon and rest.startswith(" ") and " " in head.strip():
        head = line  # `The result: ...`: a sentence, not a type
    typed = head.strip().strip("`~:").rstrip(".")
    if _TENSOR_TYPE.fullmatch(typed) or (colon and _TENSOR_TYPE.fullmatch(rest.strip().rstrip("."))):
        return True  # `Tensor: ...`, `out : Tensor`
    return _names_a_tensor(line)
