"""A root's parameter its docstring types as a Python scalar is not assumed a tensor
(analysis/documented_types.py): kymatio's public `TorchBackend1D.pad(x, pad_left, pad_right)`
documents `pad_left : int`, and the wild corpus's scattering calls pass ints (no break, torch 2.13)."""

import ast
import sys
import textwrap

import pytest

from graphmend_bot.analysis.documented_types import (
    documented_classes,
    documented_containers,
    documented_scalars,
)
from graphmend_bot.config import Config
from graphmend_bot.engine import check


def _scalars(source):
    function = ast.parse(textwrap.dedent(source)).body[0]
    return documented_scalars(function, [arg.arg for arg in function.args.args])


@pytest.mark.parametrize("docstring", [
    # numpydoc (kymatio, scipy-style libraries)
    "Parameters\n----------\nx : tensor\n    Input.\npad_left : int\n    Left.\npad_right : int, optional\n    Right.",
    "Parameters\n----------\npad_left, pad_right : int\n    Amounts.",
    # Google
    "Args:\n    x: the input.\n    pad_left (int): left.\n    pad_right (int, optional): right.",
    # Sphinx
    ":param x: the input\n:type pad_left: int\n:param int pad_right: right",
])  # fmt: skip
def test_the_three_docstring_spellings_of_a_scalar_parameter(docstring):
    source = f'def pad(x, pad_left, pad_right):\n    """{docstring}"""\n'
    assert _scalars(source) == {"pad_left", "pad_right"}


def test_a_result_of_the_same_name_is_not_a_parameter():
    source = '''def f(x, n):
        """
        Parameters
        ----------
        x : Tensor
        n : Tensor

        Returns
        -------
        n : int
            How many.
        """
    '''
    assert _scalars(source) == set()


@pytest.mark.parametrize("declared", [
    "tensor", "Tensor", "torch.Tensor", "array_like", "int or Tensor", "float or torch.Tensor", "tuple",
    "int, tuple of ints", "list of int", "callable",
    # real-valued: `loc`, `scale`, a time are documented `float` and often handed a broadcasting tensor
    "float", "float, optional", "number", "float or None",
])  # fmt: skip
def test_a_type_that_may_be_a_tensor_or_a_container_is_not_a_scalar(declared):
    source = f'def f(x, y):\n    """\n    Parameters\n    ----------\n    y : {declared}\n        The value.\n    """\n'
    assert _scalars(source) == set()


@pytest.mark.parametrize(
    "declared", ["int", "int or None", "bool, default False", "str", "int, optional.", "integer"]
)
def test_scalar_words_with_qualifiers(declared):
    source = f'def f(x, y):\n    """\n    Parameters\n    ----------\n    y : {declared}\n        The value.\n    """\n'
    assert _scalars(source) == {"y"}


PAD = '''
    import torch
    import torch.nn.functional as F


    def pad(x, pad_left, pad_right):
        """Pad the last axis.

        Parameters
        ----------
        x : tensor
            Input.
        pad_left : int
            Amount on the left.
        pad_right : int
            Amount on the right.
        """
        if (pad_left >= x.shape[-1]) or (pad_right >= x.shape[-1]):
            raise ValueError("Indefinite padding size (larger than tensor).")
        return F.pad(x, (pad_left, pad_right), mode="reflect")


    def unpad(x, i0, i1):
        """Slice the last axis.

        Args:
            x: the tensor.
            i0 (int): start.
            i1 (int): end.
        """
        return x[..., i0:i1]
'''
UNDOCUMENTED = PAD.replace(": int\n", ": array_like\n").replace("(int)", "(array_like)")


def _found(root):
    result = check([str(root)], Config(scope="library"))
    assert not result.errors, result.errors
    return {(f.location.row, f.code) for f in result.findings}


def test_a_public_callable_with_documented_int_parameters_is_not_reported(write_tree):
    """Documented as `array_like`, the parameters are assumed tensors, as any root's are."""
    assert (
        _found(write_tree({"sig/__init__.py": "from .ops import pad, unpad\n", "sig/ops.py": PAD})) == set()
    )
    undocumented = write_tree(
        {"sig/__init__.py": "from .ops import pad, unpad\n", "sig/ops.py": UNDOCUMENTED}
    )
    assert {code for _, code in _found(undocumented)} == {"GM201", "GM305", "GM302"}


def test_a_tensor_passed_in_still_makes_the_parameter_a_tensor(write_tree):
    """The docstring stands for the users who compile the root, not for a caller in the tree."""
    caller = PAD + "\n\n    def crop(x):\n        return unpad(x, x.argmin(), x.argmax())\n"
    root = write_tree({"sig/__init__.py": "from .ops import pad, unpad, crop\n", "sig/ops.py": caller})
    assert (PAD.count("\n") - 1, "GM302") in _found(root)  # `x[..., i0:i1]`, the last line of PAD


def test_dynamo_traces_the_documented_calls_without_a_break(write_tree, monkeypatch):
    """Ground truth for the test above: compiled with the ints the docstring names, no break."""
    torch = pytest.importorskip("torch")
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    from ground_truth import Tree, dynamo_breaks

    root = write_tree({"sig/__init__.py": "from .ops import pad, unpad\n", "sig/ops.py": PAD})
    monkeypatch.syspath_prepend(str(root))
    import sig

    x = torch.randn(2, 1, 16)
    for fn, args in ((sig.pad, (x, 3, 4)), (sig.unpad, (x, 2, 10))):
        broken = dynamo_breaks(fn, args, {}, Tree([str(root / "sig")]))
        assert broken.lines == set() and broken.graph_count == 1, broken


@pytest.mark.parametrize(("declared", "named"), [
    (":obj:`System`", "System"),  # pypose's EKF(model)
    (":class:`~pkg.filters.Filter`, optional", "pkg.filters.Filter"),
    ("System", "System"),
])  # fmt: skip
def test_a_parameter_documented_as_one_class_names_it(declared, named):
    source = f'class EKF:\n    """Args:\n        model ({declared}): the model.\n    """\n'
    assert documented_classes(ast.parse(source).body[0], ["self", "model"]) == {"model": named}


@pytest.mark.parametrize("declared", [
    ":obj:`Tensor`", "torch.Tensor", "int", "callable", "List[System]", "System or Other", "tuple of System",
])  # fmt: skip
def test_a_type_that_is_no_single_class_types_nothing(declared):
    source = f'def __init__(self, model):\n    """Args:\n        model ({declared}): the model.\n    """\n'
    assert documented_classes(ast.parse(source).body[0], ["self", "model"]) == {}


def _containers(source):
    function = ast.parse(textwrap.dedent(source)).body[0]
    return documented_containers(function, [arg.arg for arg in function.args.args])


@pytest.mark.parametrize("declared", [
    "list", "list of Tensor", "List[torch.Tensor]", "tuple, optional", "Tuple[int, int], optional",
    "dict", "dict or None", "list of Tensor or tuple", "python list", "set of str",
    "dictionary",  # kymatio's `psi1 : dictionary`
])  # fmt: skip
def test_a_parameter_documented_as_a_concrete_container(declared):
    source = f'def f(x, xs):\n    """\n    Parameters\n    ----------\n    xs : {declared}\n        The values.\n    """\n'
    assert _containers(source) == {"xs"}


@pytest.mark.parametrize("declared", [
    # a tensor is a Sequence and an Iterable: a caller may pass one (parameter_annotations.sized_annotation)
    "Sequence[Tensor]", "iterable of Tensor", "list or Tensor", "int or tuple", "Tensor", "array_like",
    "list-like", "tuple of int, Tensor",
])  # fmt: skip
def test_a_type_that_may_be_a_tensor_is_no_container(declared):
    source = f'def f(x, xs):\n    """\n    Args:\n        xs ({declared}): the values.\n    """\n'
    assert _containers(source) == set()


STACK = '''
    import torch


    def stack(xs, y):
        """Stack the tensors onto `y`.

        Args:
            xs (list of Tensor): tensors, maybe none.
            y (Tensor): the base.
        """
        if not xs:
            return y
        if y.sum() > 0:  # break
            y = y * 2
        return torch.stack(xs).sum(0) + y


    def reshape(shape, y):
        """Reshape.

        Parameters
        ----------
        shape : tuple of int, optional
            The new shape.
        y : Tensor
            The values.
        """
        if shape:
            return y.reshape(shape)
        return y


    def drain(d, y):
        """Add each value.

        :param dict d: tensors by name
        :param y: the base
        """
        while d:
            y = y + d.popitem()[1]
        return y
'''


def _marked(source):
    """The rows write_tree gives the lines marked `# break`."""
    lines = textwrap.dedent(source).lstrip("\n").splitlines()
    return {row for row, line in enumerate(lines, 1) if line.endswith("# break")}


def test_a_documented_container_tested_for_truth_is_not_reported(write_tree):
    """The truth of a list, tuple or dict is its length: found is only the tensor test in `stack`."""
    root = write_tree({"box/__init__.py": "from .ops import stack, reshape, drain\n", "box/ops.py": STACK})
    marked = _marked(STACK)
    assert _found(root) == {(row, "GM101") for row in marked}
    undocumented = STACK.replace("(list of Tensor)", "").replace(": tuple of int, optional", ":")
    assert (marked.pop() - 2, "GM101") in _found(
        write_tree({"bare/__init__.py": "from .ops import stack\n", "bare/ops.py": undocumented})
    )


def test_dynamo_breaks_on_the_tensor_test_only(write_tree, monkeypatch):
    """Ground truth for the test above, called with what the docstrings name."""
    torch = pytest.importorskip("torch")
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    from ground_truth import Tree, dynamo_breaks

    root = write_tree({"box/__init__.py": "from .ops import stack, reshape, drain\n", "box/ops.py": STACK})
    monkeypatch.syspath_prepend(str(root))
    import box

    y = torch.ones(2, 3)
    marked = _marked(STACK)
    calls = (
        (box.stack, ([y, y], y), marked),
        (box.stack, ([], y), set()),
        (box.reshape, ((3, 2), y), set()),
        (box.reshape, ((), y), set()),
        (box.drain, ({"a": y}, y), set()),
    )
    for fn, args, breaks in calls:
        broken = dynamo_breaks(fn, args, {}, Tree([str(root / "box")]))
        assert {row for _, row in broken.lines} == breaks, (fn.__name__, args, broken)
