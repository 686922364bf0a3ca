"""Public callables on tensors where the maintainer wrote no annotation (analysis/tensor_uses.py)
and a metric's result method are signature roots (public_api.signature_tensor_roots: what users
surely compile, whose constructions are compiled code), measured with torch._dynamo.explain.

Unannotated functional API (`def gain(x, k=2)` calling `torch.exp(x)`, `def squash(X, dim)`
calling an autograd.Function's `apply`) and `compute(self) -> Tensor` of a stateful object are
what users compile beside a package's modules; a text helper and a function on NumPy arrays
(methods arrays share with tensors only) are not signature roots, though `auto`'s public-api scope
roots them as public callables, as the library scope does (Dynamo breaks in each when compiled:
it traces NumPy arrays as tensors)."""

from __future__ import annotations

import sys

import pytest
from scope_roots import signature_roots
from test_library_scope import benchmarks_dir, found

PACKAGE = {
    "metrics/__init__.py": "from .core import Net, gain, squash, Mean, tokenize, flatten_array\n",
    "metrics/core.py": """
        import torch
        from torch import nn


        def gain(x, k=2):
            return torch.exp(x) * x.amax().item() * k


        class Square(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, dim):
                return x * x

            @staticmethod
            def backward(ctx, grad):
                return grad, None


        def squash(X, dim=-1):
            out = Square.apply(X, dim)
            print("squashed")
            return out


        class Mean:
            def __init__(self):
                self.total = torch.zeros(())
                self.count = torch.zeros(())

            def compute(self) -> torch.Tensor:
                return self.total / self.count.item()


        def tokenize(text):
            print(text)
            return text.split()


        def flatten_array(a):
            return a.reshape(-1).sum().item()


        class Net(nn.Module):
            def forward(self, x):
                return gain(x)
    """,
}
GAIN, SQUASH, COMPUTE = ("core.py", 6, "GM301"), ("core.py", 21, "GM401"), ("core.py", 31, "GM301")
TOKENIZE, FLATTEN = ("core.py", 35, "GM401"), ("core.py", 40, "GM301")


def test_unannotated_parameters_used_as_tensors_and_state_results_are_tensor_api(write_tree, monkeypatch):
    root = write_tree(PACKAGE)
    assert found(root) == found(root, "library") == {GAIN, SQUASH, COMPUTE, TOKENIZE, FLATTEN}
    assert signature_roots(root) == {"metrics.core:gain", "metrics.core:squash", "metrics.core:Mean.compute"}
    torch = pytest.importorskip("torch")
    np = pytest.importorskip("numpy")
    sys.path.insert(0, str(benchmarks_dir()))
    from ground_truth import Tree, dynamo_breaks, normalise

    monkeypatch.syspath_prepend(str(root))
    import metrics

    path = normalise(str(root / "metrics" / "core.py"))
    rows = set()
    calls = [(metrics.gain, (torch.ones(3),)), (metrics.squash, (torch.ones(3),)), (metrics.Mean().compute, ()),
             (metrics.tokenize, ("a b",)), (metrics.flatten_array, (np.ones(3),))]
    for fn, args in calls:
        broken = dynamo_breaks(fn, args, {}, Tree([str(root / "metrics")]))
        rows |= {line for file, line in broken.lines if file == path}
    assert rows == {GAIN[1], SQUASH[1], COMPUTE[1], TOKENIZE[1], FLATTEN[1]}
    torch._dynamo.reset()


def test_a_parameter_given_to_a_factory_is_data_not_a_tensor() -> None:
    """`torch.tensor(values)`, `torch.zeros(n)`, `torch.from_numpy(a)` build a tensor from Python data,
    sizes or arrays: the parameter is none (a public `prepare(values)` is no tensor API)."""
    import ast

    from graphmend_bot.analysis.tensor_uses import uses_param_as_tensor

    def used(source: str) -> bool:
        node = ast.parse(source).body[1]
        assert isinstance(node, ast.FunctionDef)
        return uses_param_as_tensor(node, source, lambda e: "torch." + e.attr if isinstance(e, ast.Attribute) else None)

    for factory in ("tensor", "as_tensor", "zeros", "from_numpy", "arange"):
        assert not used(f"import torch\ndef prepare(values):\n    return torch.{factory}(values)\n"), factory
    assert used("import torch\ndef scale(x):\n    return torch.exp(x)\n")


# A public function that only hands its parameters on (deepxde's `dde.grad.jacobian(ys, xs)` calls
# its backend's), whose docstring says they are tensors; its twin documents NumPy arrays.
DOCUMENTED = {
    "grads/__init__.py": "from .core import Net, jacobian, predict\n",
    "grads/core.py": '''
        import torch
        from torch import nn


        def jacobian(ys, xs, i=None):
            """dy_i / dx.

            Args:
                ys: Output Tensor of shape (batch_size, dim_y).
                xs: Input Tensor of shape (batch_size, dim_x).
                i (int or None): the row.
            """
            return _row(ys, xs, i)


        def predict(x, i=None):
            """Args:
                x: The network inputs, a NumPy array.
                i: the dimension of the input tensor to read.
            """
            return _first(x, i)


        def _first(x, i):
            if x.sum() > 0:
                return x[0]
            return x


        def _row(ys, xs, i):
            if ys.sum() > 0:
                return ys * xs
            return xs


        class Net(nn.Module):
            def forward(self, x):
                return x * 2
    ''',
}
ROW_BRANCH, FIRST_BRANCH = ("core.py", 31, "GM101"), ("core.py", 25, "GM101")


def test_a_parameter_the_docstring_documents_as_a_tensor_makes_tensor_api(write_tree, monkeypatch):
    """`jacobian` documents `ys` and `xs` as tensors: a signature root; `predict`, documenting a
    NumPy array, is not, though `auto`'s public-api scope roots it as a public callable (Dynamo
    traces the array as a tensor and breaks on its branch)."""
    root = write_tree(DOCUMENTED)
    assert found(root) == found(root, "library") == {ROW_BRANCH, FIRST_BRANCH}  # every public callable
    assert signature_roots(root) == {"grads.core:jacobian"}
    torch = pytest.importorskip("torch")
    np = pytest.importorskip("numpy")
    sys.path.insert(0, str(benchmarks_dir()))
    from ground_truth import Tree, dynamo_breaks, normalise

    monkeypatch.syspath_prepend(str(root))
    import grads

    path = normalise(str(root / "grads" / "core.py"))
    args = (torch.ones(2, 3), torch.ones(2, 3))
    broken = dynamo_breaks(grads.jacobian, args, {}, Tree([str(root / "grads")]))
    assert {line for file, line in broken.lines if file == path} == {ROW_BRANCH[1]}
    broken = dynamo_breaks(grads.predict, (np.ones(3),), {}, Tree([str(root / "grads")]))
    assert {line for file, line in broken.lines if file == path} == {FIRST_BRANCH[1]}
    torch._dynamo.reset()


def test_documented_tensors_reads_types_and_head_nouns_not_mentions() -> None:
    """A type naming a tensor in each spelling, or a Google description whose head noun is one;
    not a description that only mentions one (`dimension of the input tensor`), nor a scalar."""
    import ast
    import textwrap

    from graphmend_bot.analysis.documented_types import documented_tensors

    def tensors(doc: str, *params: str) -> set[str]:
        source = f'def f({", ".join(params)}):\n    """{textwrap.indent(doc, "    ").strip()}\n    """\n'
        node = ast.parse(source).body[0]
        assert isinstance(node, ast.FunctionDef)
        return set(documented_tensors(node, params))

    google = "Args:\n    ys: Output Tensor of shape (n, d).\n    dim: dimension of the tensor."
    assert tensors(google, "ys", "dim") == {"ys"}
    assert tensors("Args:\n    x (torch.Tensor): input.\n    k (int): count.", "x", "k") == {"x"}
    assert tensors("Parameters\n----------\nx : Tensor or None\nn : int", "x", "n") == {"x"}
    sphinx = ":param x: the input tensor\n:type m: FloatTensor\n:param n: number of tensors"
    assert tensors(sphinx, "x", "m", "n") == {"x", "m"}
    assert tensors("Args:\n    values: a list of numbers to build a tensor from.", "values") == set()
    assert tensors("Returns\n-------\nx : Tensor", "x") == set()


# A public function that only hands its parameter on, whose docstring types its result as a tensor
# (pypose's `Inv(x)`: `Return:\n    LieTensor: ...`), as `-> Tensor` would; its twin returns a count.
DOCUMENTED_RESULT = {
    "documented_lie/__init__.py": "from .core import Net, inverse, count\n",
    "documented_lie/core.py": '''
        import torch
        from torch import nn


        def inverse(x):
            """The inverse.

            Return:
                LieTensor: the output LieTensor
            """
            return _flip(x)


        def count(x):
            """Returns: the number of tensors"""
            return _size(x)


        def _flip(x):
            if x.sum() > 0:
                return -x
            return x


        def _size(x):
            if x.sum() > 0:
                return 1
            return 0


        class Net(nn.Module):
            def forward(self, x):
                return x * 2
    ''',
}
FLIP_BRANCH, SIZE_BRANCH = ("core.py", 20, "GM101"), ("core.py", 26, "GM101")


def test_a_result_the_docstring_types_as_a_tensor_makes_tensor_api(write_tree, monkeypatch):
    """`inverse` documents its result as a LieTensor: a signature root; `count`, returning a number,
    is not, though `auto`'s public-api scope roots it as a public callable (Dynamo breaks on its
    branch when a user compiles it on a tensor)."""
    root = write_tree(DOCUMENTED_RESULT)
    assert found(root) == found(root, "library") == {FLIP_BRANCH, SIZE_BRANCH}  # every public callable
    assert signature_roots(root) == {"documented_lie.core:inverse"}
    torch = pytest.importorskip("torch")
    sys.path.insert(0, str(benchmarks_dir()))
    from ground_truth import Tree, dynamo_breaks, normalise

    monkeypatch.syspath_prepend(str(root))
    import documented_lie

    path = normalise(str(root / "documented_lie" / "core.py"))
    broken = dynamo_breaks(documented_lie.inverse, (torch.ones(2, 3),), {}, Tree([str(root / "documented_lie")]))
    assert {line for file, line in broken.lines if file == path} == {FLIP_BRANCH[1]}
    broken = dynamo_breaks(documented_lie.count, (torch.ones(2, 3),), {}, Tree([str(root / "documented_lie")]))
    assert {line for file, line in broken.lines if file == path} == {SIZE_BRANCH[1]}
    torch._dynamo.reset()


def test_documents_tensor_result_reads_the_returns_section() -> None:
    import ast
    import textwrap

    from graphmend_bot.analysis.documented_types import documents_tensor_result

    def result(doc: str) -> bool:
        node = ast.parse(f'def f(x):\n    """{textwrap.indent(doc, "    ").strip()}\n    """\n').body[0]
        assert isinstance(node, ast.FunctionDef)
        return documents_tensor_result(node)

    for doc in ("Return:\n    LieTensor: the output", "Returns: Tensor", "Returns:\n    torch.Tensor: out",
                "Returns\n-------\nTensor\n    the output", "Returns\n-------\nout : Tensor", "Returns:\n    The output tensor."):
        assert result(doc), doc
    for doc in ("Returns: int", "Returns: the number of tensors", "Returns:\n    int: the number of tensors",
                "Args:\n    x (Tensor): input\nReturns:\n    list of Tensor", "Returns\n-------\nn : int\n    number of tensors"):
        assert not result(doc), doc
