"""The signature roots (public_api.signature_tensor_roots: the public callables users surely
compile, whose constructions are compiled code) hold the methods torch's own base classes define on
tensors and what builds the tree's tensor subclasses, though no signature names a tensor
(public_api.keeps_torch_contract, returning_tensors): pypose's `LieTensor.cumops(self, dim)` and `identity_SO3(*lsize)`, a
Distribution's `rsample(sample_shape=torch.Size())` and `log_prob(value)`."""

import sys
import textwrap
from pathlib import Path

import pytest
from scope_roots import signature_roots

from graphmend_bot.config import Config
from graphmend_bot.engine import check

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"

# Every fixture package exports an nn.Module, so `auto` settles to the public-api scope: every public
# callable is a root, and the tensor-api policy is asserted on the signature roots.
ENCODER = """import torch
from torch import nn


class Encoder(nn.Module):
    def forward(self, x):
        return x

"""
# A package exporting a module, a tensor subclass, a factory of it, a Distribution, and near misses
# (a plain class's `sample`, a tokenizer's `encode`, a configuration helper): every break is one
# call away, in a private helper, so no signature or body of the roots names a tensor.
CONTRACT_PACKAGE = {
    "lie/__init__.py": "from .core import Encoder, Quat, identity, Funnel, Sampler, Tokenizer, describe\n",
    "lie/core.py": ENCODER
    + textwrap.dedent("""
        class Quat(torch.Tensor):
            def cumulative(self, dim):
                return _scaled(self, dim)


        def _scaled(q, dim):
            top = q.abs().amax(dim).max()
            return q / top.item()


        def identity(n):
            return Quat(_unit(n))


        def _unit(n):
            data = torch.zeros(n, 4)
            print("unit", n)
            return data


        class Funnel(torch.distributions.Distribution):
            arg_constraints = {}

            def __init__(self, scale):
                self.scale = scale
                super().__init__(validate_args=False)

            def rsample(self, sample_shape=torch.Size()):
                return _draw(self.scale, sample_shape)

            def log_prob(self, value):
                return _density(value, self.scale)


        def _draw(scale, shape):
            print("draw", shape)
            return scale


        def _density(value, scale):
            return value / scale.max().item()


        class Sampler:
            def sample(self, n=1):
                print("sampling", n)
                return [n]


        class Tokenizer:
            def encode(self, text, pad=None):
                print(text, pad)
                return text.split()


        def describe(config):
            print(config)
            return str(config)
    """),
}
CUMULATIVE, IDENTITY = ("core.py", 17, "GM301"), ("core.py", 26, "GM401")
RSAMPLE, LOG_PROB = ("core.py", 45, "GM401"), ("core.py", 50, "GM301")
NEAR_MISSES = {("core.py", 55, "GM401"), ("core.py", 61, "GM401"), ("core.py", 66, "GM401")}


def found(root, scope="auto"):
    result = check([str(root)], Config(scope=scope))
    assert not result.errors, result.errors
    return {(f.path.rsplit("/", 1)[-1], f.location.row, f.code) for f in result.findings}


def test_torch_contract_methods_and_tensor_subclass_builders_are_tensor_api(write_tree):
    """The tensor subclass's method, its factory and the Distribution's methods are signature roots;
    the plain `sample`, the tokenizer's `encode` and `describe` are not, though `auto`'s public-api
    scope roots them as public callables, as the library scope does (Dynamo breaks on their
    `print`: test_the_torch_contract_roots_break_under_dynamo)."""
    root = write_tree(CONTRACT_PACKAGE)
    assert found(root) == found(root, "library") == {CUMULATIVE, IDENTITY, RSAMPLE, LOG_PROB, *NEAR_MISSES}
    assert signature_roots(root) == {
        "lie.core:Quat.cumulative", "lie.core:identity", "lie.core:Funnel.rsample", "lie.core:Funnel.log_prob"}
    assert found(root, "model") == set()


def test_the_torch_contract_roots_break_under_dynamo(write_tree, monkeypatch):
    """Each line `auto` reports is where Dynamo breaks when a user compiles that call: the signature
    roots' breaks and the near misses' `print`, public callables whose signatures name no tensor."""
    torch = pytest.importorskip("torch")
    sys.path.insert(0, str(BENCHMARKS))
    from ground_truth import Tree, dynamo_breaks, normalise

    root = write_tree(CONTRACT_PACKAGE)
    monkeypatch.syspath_prepend(str(root))
    import lie

    path = normalise(str(root / "lie" / "core.py"))
    quat = torch.ones(3, 4).as_subclass(lie.Quat)
    funnel = lie.Funnel(torch.ones(2))
    calls = {
        CUMULATIVE: (quat.cumulative, (0,)),
        IDENTITY: (lie.identity, (3,)),
        RSAMPLE: (funnel.rsample, ()),
        LOG_PROB: (funnel.log_prob, (torch.ones(2),)),
        **dict(zip(sorted(NEAR_MISSES), [
            (lie.Sampler().sample, (2,)), (lie.Tokenizer().encode, ("a b",)), (lie.describe, ({"k": 1},))])),
    }
    for expected, (fn, args) in calls.items():
        broken = dynamo_breaks(fn, args, {}, Tree([str(root / "lie")]))
        assert expected[1] in {line for file, line in broken.lines if file == path}, (expected, broken)
    torch._dynamo.reset()


# A variadic parameter annotated as tensors (geoopt's `pack_point(self, *tensors: torch.Tensor)`);
# a loader's unannotated `**options` beside `path: str` says nothing of tensors.
VARIADIC_PACKAGE = {
    "packs/__init__.py": "from .core import Encoder, pack, load\n",
    "packs/core.py": ENCODER
    + textwrap.dedent("""
        def pack(*parts: torch.Tensor, dim=0):
            _check(parts, dim)
            return parts


        def _check(parts, dim):
            if torch.cat(parts, dim).isnan().any().item():
                raise ValueError("a part holds NaN")


        def load(path: str, **options) -> dict[str, torch.Tensor]:
            print(path, options)
            return torch.load(path)
    """),
}
PACK, LOAD, LOADING = ("core.py", 16, "GM301"), ("core.py", 21, "GM401"), ("core.py", 22, "GM601")


def test_a_variadic_parameter_annotated_as_tensors_is_tensor_api(write_tree, monkeypatch):
    """`pack(*parts: Tensor)` is a signature root (Dynamo breaks in its helper when a user compiles
    it); `load(path: str, **options) -> dict[str, Tensor]` is not, though `auto`'s public-api scope
    roots it as a public callable, as the library scope does: Dynamo breaks on its `print` and its
    `torch.load` when a user compiles it."""
    root = write_tree(VARIADIC_PACKAGE)
    assert found(root) == found(root, "library") == {PACK, LOAD, LOADING}
    assert signature_roots(root) == {"packs.core:pack"}
    torch = pytest.importorskip("torch")
    sys.path.insert(0, str(BENCHMARKS))
    from ground_truth import Tree, dynamo_breaks, normalise

    monkeypatch.syspath_prepend(str(root))
    import packs

    path = normalise(str(root / "packs" / "core.py"))
    broken = dynamo_breaks(packs.pack, (torch.ones(2), torch.ones(2)), {}, Tree([str(root / "packs")]))
    assert PACK[1] in {line for file, line in broken.lines if file == path}
    torch.save({"w": torch.ones(2)}, root / "w.pt")
    broken = dynamo_breaks(packs.load, (str(root / "w.pt"),), {}, Tree([str(root / "packs")]))
    assert {LOAD[1], LOADING[1]} <= {line for file, line in broken.lines if file == path}, broken
    torch._dynamo.reset()


# torch's Transform runs a subclass's `_call` for `t(x)` and its `_inverse` for `t.inv(y)`, which a
# TransformedDistribution's `log_prob` calls (pyro's AffineAutoregressive breaks in `_inverse`);
# a plain class's methods of those names are private helpers like any other.
TRANSFORM_PACKAGE = {
    "xforms/__init__.py": "from .core import Encoder, Shift, Cache\n",
    "xforms/core.py": ENCODER
    + textwrap.dedent("""
        from torch.distributions import constraints


        class Shift(torch.distributions.Transform):
            domain = constraints.real
            codomain = constraints.real
            bijective = True

            def _call(self, x):
                return _forward(x)

            def _inverse(self, y):
                return _backward(y)

            def log_abs_det_jacobian(self, x, y):
                return torch.zeros_like(x)


        def _forward(x):
            print("forward")
            return x + 1


        def _backward(y):
            return y - y.max().item()


        class Cache:
            def _call(self, key):
                print("call", key)
                return key

            def _inverse(self, value):
                print("inverse", value)
                return value
    """),
}


def _row(root, text):
    lines = (root / "xforms" / "core.py").read_text().splitlines()
    return next(row for row, line in enumerate(lines, 1) if text in line)


def test_a_transforms_call_and_inverse_are_tensor_api_where_dynamo_breaks(write_tree, monkeypatch):
    """`Shift._call` and `Shift._inverse` are roots of `auto` and of the library scope (their helpers'
    breaks are reported), and Dynamo breaks there compiling `t(x)` and a flow's `log_prob`;
    `Cache._call` / `Cache._inverse` of a plain class are not roots."""
    root = write_tree(TRANSFORM_PACKAGE)
    forward, backward = ("core.py", _row(root, 'print("forward")'), "GM401"), ("core.py", _row(root, ".item()"), "GM301")
    assert found(root) == {forward, backward}
    assert found(root, "library") == {forward, backward}
    torch = pytest.importorskip("torch")
    sys.path.insert(0, str(BENCHMARKS))
    from ground_truth import Tree, dynamo_breaks, normalise

    monkeypatch.syspath_prepend(str(root))
    import xforms

    path = normalise(str(root / "xforms" / "core.py"))
    shift = xforms.Shift()
    flow = torch.distributions.TransformedDistribution(torch.distributions.Normal(torch.zeros(3), 1.0), [shift])
    for expected, (fn, args) in {forward: (shift, (torch.ones(3),)), backward: (flow.log_prob, (torch.ones(3),))}.items():
        broken = dynamo_breaks(fn, args, {}, Tree([str(root / "xforms")]))
        assert expected[1] in {line for file, line in broken.lines if file == path}, (expected, broken)
    torch._dynamo.reset()
