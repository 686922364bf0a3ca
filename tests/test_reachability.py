"""Call resolution through dynamic dispatch, and module state typed per class (issue 12, part a).

Each case is a small multi-class module with an entry point Dynamo traces. The lines marked
`# break` and `# call` must be exactly the lines `graphmend check` reports and exactly the lines
TorchDynamo breaks on (explain + the graph_breaks log): each edge kind is checked against Dynamo,
and the unmarked look-alikes (a float attribute, a bool flag, a submodule) are the negative
cases. `# call` marks a method call on an object built in the traced frame whose callee breaks,
where Dynamo also reports the call itself (it cannot rebuild the bound method to resume there):
GM605 reports it.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from graphmend_bot.engine import check

torch = pytest.importorskip("torch")

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))

from ground_truth import Tree, dynamo_breaks, normalise  # noqa: E402

HEADER = """
    import abc
    import functools
    import typing

    import torch
    from torch import nn
"""

CASES = {
    # SOLVERS[name](...) builds any class of the dict; integrate() lives in the abstract base
    # and calls self._advance(), which only the subclasses define.
    "registry_and_abc_override": """
        class Solver(abc.ABC):
            def __init__(self, y0):
                self.y0 = y0

            def integrate(self, t):
                return self._advance(t) + self.y0

            @abc.abstractmethod
            def _advance(self, t):
                ...

        class Euler(Solver):
            def _advance(self, t):
                if (t > 0).any():  # break
                    return t * 2
                return t

        class Heun(Solver):
            def _advance(self, t):
                return t + 1

        SOLVERS = {"euler": Euler, "heun": Heun}

        @torch.compile
        def entry(y0, t):
            solver = SOLVERS["euler"](y0)
            return solver.integrate(t)  # call

        ARGS = (torch.ones(3), torch.ones(3))
    """,
    # A factory method returns a closure; __init__ stores it on self; a method calls it.
    "closure_stored_in_attribute": """
        class Grid:
            def __init__(self, steps):
                self.make_grid = self._from_steps(steps)

            @staticmethod
            def _from_steps(steps):
                def make_grid(t):
                    n = (t[-1] - t[0]).ceil().item()  # break
                    return torch.arange(0, n) * steps
                return make_grid

            def integrate(self, t):
                return self.make_grid(t)

        @torch.compile
        def entry(t):
            return Grid(2).integrate(t)  # call

        ARGS = (torch.tensor([0.0, 3.0]),)
    """,
    # __init__ stores the function a factory function returns (neuraloperator's `self._contract =
    # get_contract_fun(weight, ...)`); a method calls it through the attribute.
    "function_returned_by_factory_stored_in_attribute": """
        def dense(x, w):
            return x * w

        def scaled(x, w):
            return x * x.sum().item() * w  # break

        def pick_contraction(kind):
            if kind == "dense":
                return dense
            return scaled

        class SpectralLayer:
            def __init__(self, kind):
                self.contract = pick_contraction(kind)

            def apply(self, x):
                return self.contract(x, 2.0)

        @torch.compile
        def entry(x):
            return SpectralLayer("scaled").apply(x)  # call

        ARGS = (torch.ones(3),)
    """,
    # A function picks a class (`methods.select(...)` in torchsde); the caller builds it and
    # calls a method; another factory returns a closure the caller calls.
    "factory_returning_class_or_closure": """
        class Euler:
            def __init__(self, scale):
                self.scale = scale

            def run(self, t):
                if (t > 0).all():  # break
                    return t * self.scale
                return t

        class Heun(Euler):
            pass

        def select(name):
            if name == "euler":
                return Euler
            return Heun

        def make_step(k):
            def step(x):
                return x * k + x.sum().item()  # break
            return step

        @torch.compile
        def entry(x):
            solver_cls = select("euler")
            solver = solver_cls(2.0)
            step = make_step(3)
            return solver.run(step(x))  # call

        ARGS = (torch.ones(3),)
    """,
    # functools.partial binds a tensor keyword; the call passes the rest.
    "functools_partial": """
        def scale(x, factor):
            if factor.sum() > 0:  # break
                return x * 2
            return x

        @torch.compile
        def entry(x, t):
            step = functools.partial(scale, factor=t)
            return step(x)

        ARGS = (torch.ones(3), torch.ones(3))
    """,
    # obj(...) on a local object runs its class's __call__; Cls(...) runs __init__.
    "constructor_and_dunder_call": """
        class Checker:
            def __init__(self, limit):
                if limit.sum() > 3:  # break
                    limit = limit * 0
                self.limit = limit

            def __call__(self, x):
                return x.sum().item()  # break

        @torch.compile
        def entry(x):
            check = Checker(x)
            return x + check(x)

        ARGS = (torch.ones(3),)
    """,
    # Module state: a buffer, a parameter, a tensor attribute set in another method are tensors;
    # a float, a flag, an int from a parameter default and a submodule are not.
    "attribute_types": """
        class Base(nn.Module):
            def __init__(self, nu=2.5):
                super().__init__()
                self.register_buffer("initted", torch.tensor(False))
                self.weight = nn.Parameter(torch.ones(3))
                self.nu = nu
                self.flag = True
                self.linear = nn.Linear(3, 3)

        class Net(Base):
            def __init__(self):
                super().__init__()
                self.set_steps(3)

            def set_steps(self, n):
                self.steps = torch.zeros(n)

            def forward(self, x):
                if self.initted:  # break
                    x = x + 1
                if self.nu == 2.5:
                    x = x * 2
                if self.flag:
                    x = x - 1
                if (self.weight > 0).all():  # break
                    x = x + 1
                if self.steps.sum() > 0:  # break
                    x = x + 2
                return self.linear(x)

        def entry(x):
            return Net()(x)

        ARGS = (torch.ones(3),)
        MODULE = "Net"
    """,
    # The arguments of an autograd.Function's forward come from Fn.apply(...): a float
    # attribute passed there is no tensor (gpytorch's MaternCovariance and `nu`).
    "autograd_function_apply": """
        class Covariance(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, nu):
                if nu == 0.5:
                    return x * 2
                return x * 3

            @staticmethod
            def backward(ctx, grad):
                return grad, None

        class Kernel(nn.Module):
            def __init__(self, nu=2.5):
                super().__init__()
                self.nu = nu

            def forward(self, x):
                return Covariance.apply(x, self.nu)

        ARGS = (torch.ones(3),)
        MODULE = "Kernel"
    """,
    # A dispatch table of dispatch tables, some entries `functools.partial`s (geomloss's
    # `routines[loss][backend](...)`): every function it holds may run.
    "nested_dispatch_table": """
        def diameter(x):
            return x.max().item()  # break

        def sinkhorn(x):
            return x * diameter(x)

        def kernel(x, name):
            if (x > 0).all():  # break
                return x * 2
            return x

        ROUTINES = {
            "sinkhorn": {"tensorized": sinkhorn},
            "energy": {"tensorized": functools.partial(kernel, name="energy")},
        }

        class Loss(nn.Module):
            def __init__(self, loss="sinkhorn"):
                super().__init__()
                self.loss = loss

            def forward(self, x):
                return ROUTINES[self.loss]["tensorized"](x)

        SINKHORN, ENERGY = Loss(), Loss("energy")

        def entry(x):
            return SINKHORN(x) + ENERGY(x)

        ARGS = (torch.ones(3),)
    """,
    # An nn.Module that overrides __call__ (kornia's AugmentationSequential): calling the module,
    # compiled, runs that __call__ and what it calls; its forward never runs here.
    "module_call_override": """
        class Pipeline(nn.Module):
            def __call__(self, x):
                return self.prepare(x)

            def prepare(self, x):
                if x.sum() > 0:  # break
                    return x + 1
                return x - 1

            def forward(self, x):
                return x * 2

        MODULE = "Pipeline"
        ARGS = (torch.ones(3),)
    """,
    # __init__ replaces a method by the closure a factory of the class wraps it in (torchmetrics'
    # `self.update = self._wrap_update(self.update)`, annotated for `compute`): `self.update(x)`
    # runs the closure.
    "method_shadowed_by_wrapped_attribute": """
        class Metric(nn.Module):
            def __init__(self):
                super().__init__()
                self.update = self._wrap(self.update)
                self.compute: typing.Callable = self._wrap_compute(self.compute)

            def _wrap(self, update):
                def wrapped(x):
                    if x.sum() > 0:  # break
                        return update(x) + 1
                    return update(x)
                return wrapped

            def _wrap_compute(self, compute):
                def wrapped(x):
                    return compute(x) * x.max().item()  # break
                return wrapped

            def update(self, x):
                return x * 3

            def compute(self, x):
                return x * 2

            def forward(self, x):
                return self.compute(self.update(x))

        MODULE = "Metric"
        ARGS = (torch.ones(3),)
    """,
    # The negative of the above: the wrap happens in a method nothing calls, so the method
    # itself runs and the closure never does (no break).
    "method_wrapped_outside_init": """
        class Metric(nn.Module):
            def enable_checks(self):
                self.update = self._wrap(self.update)

            def _wrap(self, update):
                def wrapped(x):
                    if x.sum() > 0:
                        return update(x) + 1
                    return update(x)
                return wrapped

            def update(self, x):
                return x * 3

            def forward(self, x):
                return self.update(x)

        MODULE = "Metric"
        ARGS = (torch.ones(3),)
    """,
    # __init__ stores one of the module's functions on self, picked by a flag
    # (vector_quantize_pytorch's `self.transform_input = identity if ... else l2norm`): calling
    # the attribute runs it. `self.scale` holds a parameter that shares a function's name: the
    # callable passed in runs, never the module's `scale` (its `.item()` must not be reported).
    "function_held_in_attribute": """
        def identity(t):
            if t.sum() > 0:  # break
                return t
            return -t

        def l2norm(t):
            return t / t.norm()

        def scale(t):
            return t.item()

        class Codebook(nn.Module):
            def __init__(self, cosine=False, scale=torch.sigmoid):
                super().__init__()
                self.transform = identity if not cosine else l2norm
                self.scale = scale

            def forward(self, x):
                return self.scale(self.transform(x))

        MODULE = "Codebook"
        ARGS = (torch.ones(3),)
    """,
    # __init__ stores what a factory function returns (stable_baselines3's `self.action_dist =
    # make_proba_distribution(...)`): a method called on it is one of the classes the factory
    # returns an instance of, or of their subclasses. The factory also builds a Sizer it does not
    # return: Sizer.entropy never runs (its `.item()` must not be reported).
    "instance_returned_by_factory": """
        class Categorical:
            def __init__(self, n):
                self.n = n

            def entropy(self, x):
                if x.sum() > 0:  # break
                    return x
                return -x

        class Normal(Categorical):
            def entropy(self, x):
                return x * 2

        class Sizer:
            def size(self):
                return 3

            def entropy(self, x):
                return x.sum().item()

        def make_dist(kind):
            n = Sizer().size()
            if kind == "cat":
                return Categorical(n)
            return Normal(n)

        class Policy(nn.Module):
            def __init__(self, kind="cat"):
                super().__init__()
                self.dist = make_dist(kind)

            def forward(self, x):
                return self.dist.entropy(x)

        MODULE = "Policy"
        ARGS = (torch.ones(3),)
    """,
    # Forward hooks __init__ registers, on the module or a submodule: calling the module runs them
    # around forward. A backward hook runs in backward, which no forward call traces (its
    # `.item()` must not be reported).
    "forward_hooks": """
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(3, 3)
                self.register_forward_pre_hook(self._pre)
                self.handle = self.lin.register_forward_hook(self._post)
                self.register_full_backward_hook(self._backward)

            def _pre(self, module, args):
                if args[0].sum() > 0:  # break
                    return (args[0] * 2,)

            def _post(self, module, args, out):
                return out + out.max().item()  # break

            def _backward(self, module, grad_in, grad_out):
                return (grad_in[0] * grad_out[0].sum().item(),)

            def forward(self, x):
                return self.lin(x)

        MODULE = "Model"
        ARGS = (torch.ones(3),)
    """,
}


def _write(tmp_path: Path, name: str, body: str) -> Path:
    import textwrap

    path = tmp_path / f"reach_{name}.py"
    path.write_text(textwrap.dedent(HEADER) + textwrap.dedent(body), encoding="utf-8")
    return path


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _callable(module):
    if hasattr(module, "MODULE"):
        return getattr(module, module.MODULE)()
    fn = module.entry
    while (inner := getattr(fn, "_torchdynamo_orig_callable", None)) is not None:
        fn = inner
    return fn


@pytest.mark.parametrize("name", sorted(CASES))
def test_reported_lines_are_dynamo_break_lines(tmp_path: Path, name: str) -> None:
    path = _write(tmp_path, name, CASES[name])
    lines = list(enumerate(path.read_text().splitlines(), 1))
    marked = {row for row, line in lines if line.endswith("# break")}
    calls = {row for row, line in lines if line.endswith("# call")}

    result = check([str(path)])
    assert not result.errors
    reported = {f.location.row for f in result.findings}

    module = _load(path)
    explained = dynamo_breaks(_callable(module), module.ARGS, {}, Tree([str(path)]))
    broken = {line for file, line in explained.lines if file == normalise(str(path))}

    assert broken == marked | calls, f"Dynamo broke on {sorted(broken)}, the case marks {sorted(marked | calls)}"
    assert reported == marked | calls, f"reported {sorted(reported)}, Dynamo broke on {sorted(marked | calls)}"


def test_override_in_subclass_and_super_call_are_followed(write_tree) -> None:
    """Base.forward calls self.step(): only the subclass defines it; it calls super().check()."""
    root = write_tree({
        "lib.py": """
            import torch
            from torch import nn

            class Base(nn.Module):
                def forward(self, x):
                    return self.step(x)

                def check(self, x):
                    if x.sum() > 0:
                        return x * 2
                    return x

            class Child(Base):
                def step(self, x):
                    x = super().check(x)
                    return x.item()
        """
    })
    result = check([str(root)])
    assert sorted((f.location.row, f.code) for f in result.findings) == [(9, "GM101"), (16, "GM301")]


def test_call_of_a_class_that_is_no_module_is_no_root(write_tree) -> None:
    """Only a Module's own `__call__` is a root (calling the module runs it): a plain callable
    class's `__call__` runs when traced code calls an instance, and nothing here does."""
    root = write_tree({
        "lib.py": """
            import torch
            from torch import nn

            class Scaler:
                def __call__(self, x):
                    return x.item()

            class Pipeline(nn.Module):
                def __call__(self, x):
                    return x.tolist()

                def forward(self, x):
                    return x
        """
    })
    result = check([str(root / "lib.py")])
    assert [(f.location.row, f.code) for f in result.findings] == [(10, "GM303")]
