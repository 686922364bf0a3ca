"""The library scope (issue 27.2): a package's public API is traced code, and `auto` picks it for a
package with no compiled roots of its own (analysis/public_api.py)."""

import ast
import importlib
import importlib.util
import json
import subprocess
import sys
import textwrap

import pytest
from scope_roots import signature_roots

from graphmend_bot.analysis.summary_cache import SummaryCache
from graphmend_bot.config import Config, ConfigError, parse_config
from graphmend_bot.engine import check


def benchmarks_dir():
    from pathlib import Path

    return Path(__file__).resolve().parent.parent / "benchmarks"

# A public function breaks through a private helper; a private function nothing public calls breaks too.
SOLVER = """
    import torch

    def solve(x, steps=3):
        return _step(x)

    def _step(x):
        if x.sum() > 0:
            return x * 2
        return x

    def _unused(x):
        return x.max().item()
"""
SOLVER_PACKAGE = {"solvers/__init__.py": "from .core import solve\n", "solvers/core.py": SOLVER}
STEP, UNUSED = ("core.py", 7, "GM101"), ("core.py", 12, "GM301")


def found(root, scope="auto", **settings):
    result = check([str(root)], Config(scope=scope, **settings))
    assert not result.errors, result.errors
    return {(f.path.rsplit("/", 1)[-1], f.location.row, f.code) for f in result.findings}


def test_a_public_function_is_traced_in_the_library_scope_and_not_in_the_model_scope(write_tree):
    root = write_tree(SOLVER_PACKAGE)
    assert found(root, "library") == {STEP}
    assert found(root, "model") == set()


def test_private_helpers_only_public_code_calls_are_traced_and_private_only_functions_are_not(write_tree):
    root = write_tree(SOLVER_PACKAGE)
    findings = found(root, "library")
    assert STEP in findings  # `_step`, called by the public `solve`
    assert UNUSED not in findings  # `_unused`, which nothing public reaches


def test_a_function_reexported_from_a_private_module_is_public(write_tree):
    root = write_tree({"pkg/__init__.py": "from ._impl.ops import clip\n", "pkg/_impl/__init__.py": "",
                       "pkg/_impl/ops.py": "def clip(x):\n    return x.sum().item()\n\ndef other(x):\n    return x.max().item()\n"})
    # `other` has a public name, but lives in a private module nothing exports it from
    assert found(root, "library") == {("ops.py", 2, "GM301")}


def test_a_function_reexported_from_a_namespace_subpackage_is_public(write_tree):
    """A folder without `__init__.py` inside a package is a namespace subpackage (PEP 420: einx's
    `einx/_src/frontend/ops.py` is `einx._src.frontend.ops`), so the package's relative import
    reaches it; a folder whose name is no identifier holds no module of the package."""
    root = write_tree({"pkg/__init__.py": "from ._src.frontend.ops import clip\n",
                       "pkg/_src/frontend/ops.py": "def clip(x):\n    return x.sum().item()\n",
                       "pkg/my-scripts/run.py": "def main(x):\n    return x.max().item()\n"})
    assert found(root, "library") == {("ops.py", 2, "GM301")}


def test_dunder_all_lists_the_exports(write_tree):
    root = write_tree({"pkg/__init__.py": "", "pkg/ops.py": """
        __all__ = ["listed"]

        def listed(x):
            return x.sum().item()

        def unlisted(x):
            return x.max().item()
    """})
    assert found(root, "library") == {("ops.py", 4, "GM301")}


def test_public_methods_of_public_classes_and_their_private_bases(write_tree):
    root = write_tree({"pkg/__init__.py": "", "pkg/dist.py": """
        import torch

        class _Base:
            def log_prob(self, x):
                return x.sum().item()

        class Normal(_Base):
            def __init__(self, loc):
                self.n = int(loc.sum())

            def __call__(self, x):
                return x.mean().item()

            @property
            def mean(self):
                return self.loc.sum().item()

            def _private(self, x):
                return x.min().item()
    """})
    # the inherited public method and __call__; not __init__, a property or a private method
    assert found(root, "library") == {("dist.py", 5, "GM301"), ("dist.py", 12, "GM301")}


def test_builders_of_nn_modules_are_not_roots(write_tree):
    """Users run a builder once, eagerly, and compile what it builds."""
    root = write_tree({"pkg/__init__.py": "", "pkg/models.py": """
        import torch
        from torch import nn

        class _Net(nn.Module):
            def __init__(self, width):
                super().__init__()
                self.layer = nn.Linear(width, width)

        def _make(width):
            return _Net(width)

        def from_name(name):
            return _make(int(name))

        def conv(c):
            return nn.Conv2d(c, c, 1)

        def scale(x):
            return x * x.max().item()

        class _Wrapper(nn.Module):
            def __init__(self, f):
                super().__init__()
                self.f = f

        def run(f, x):
            wrapped = _Wrapper(f)
            return x.sum().item()
    """})
    # `run` builds a module without parameters and computes: torchsde's `sdeint` (ForwardSDE)
    assert found(root, "library") == {("models.py", 19, "GM301"), ("models.py", 28, "GM301")}


def test_tests_and_loose_scripts_are_not_public_api(write_tree):
    root = write_tree({"pkg/__init__.py": "", "pkg/tests/__init__.py": "",
                       "pkg/tests/test_ops.py": "def test_clip(x):\n    return x.sum().item()\n",
                       "script.py": "def main(x):\n    return x.sum().item()\n"})
    assert found(root, "library") == set()


def test_auto_picks_the_library_scope_for_a_package_with_no_roots_of_its_own(write_tree):
    root = write_tree(SOLVER_PACKAGE)
    assert found(root) == {STEP}


def test_auto_roots_every_public_callable_of_a_package_that_exports_an_nn_module(write_tree):
    """Beside the forward, `solve` is a root though its signature names no tensor: users compile a
    library's public callables, and those that take objects or nothing (a metric's `compute(self)`)
    held the wild corpus's misses when only signatures naming tensors were (public_api.py)."""
    root = write_tree({**SOLVER_PACKAGE, "solvers/net.py": """
        from torch import nn

        class Net(nn.Module):
            def forward(self, x):
                return x.sum().item()
    """})
    assert found(root) == {("net.py", 5, "GM301"), STEP}
    assert signature_roots(root) == set()


# A package that exports an nn.Module and a functional API beside it (kornia, nflows, zuko): a
# function and a method on tensors, and a text helper that takes and returns none.
MIXED_PACKAGE = {
    "vision/__init__.py": "from .net import Net, blur, Flow, describe\n",
    "vision/net.py": """
        import torch
        from torch import nn

        class Net(nn.Module):
            def forward(self, x):
                return x * 2

        def blur(image: torch.Tensor, sigma=1.0):
            return image * image.amax().item()

        class Flow(nn.Module):
            def forward(self, x):
                return x

            def inverse(self, inputs):
                outputs = torch.zeros_like(inputs)
                for _ in range(int(inputs.sum())):
                    outputs = outputs + 1
                return outputs

        def describe(name):
            print(name)
            return name.upper()
    """,
}
BLUR, INVERSE, DESCRIBE = ("net.py", 9, "GM301"), ("net.py", 17, "GM302"), ("net.py", 22, "GM401")


def test_auto_roots_the_public_api_of_a_package_that_exports_an_nn_module(write_tree):
    """Users compile kornia's functions and nflows' `Flow.inverse`, not only forwards: in `auto`
    the public callables are roots beside the forwards, as in the library scope; of them, those that
    take or return a tensor are its signature roots, and `describe`, on text only, is not."""
    root = write_tree(MIXED_PACKAGE)
    assert found(root) == found(root, "library") == {BLUR, INVERSE, DESCRIBE}
    assert signature_roots(root) == {"vision.net:blur", "vision.net:Flow.inverse"}
    assert found(root, "model") == set()


def test_the_tensor_api_roots_break_under_dynamo(write_tree, monkeypatch):
    """The lines `auto` now reports are where Dynamo breaks when a user compiles the call."""
    torch = pytest.importorskip("torch")
    sys.path.insert(0, str(benchmarks_dir()))
    from ground_truth import Tree, dynamo_breaks, normalise

    root = write_tree(MIXED_PACKAGE)
    monkeypatch.syspath_prepend(str(root))
    import vision

    path = normalise(str(root / "vision" / "net.py"))
    rows = set()
    for fn in (vision.blur, vision.Flow().inverse):
        broken = dynamo_breaks(fn, (torch.ones(3),), {}, Tree([str(root / "vision")]))
        rows |= {line for file, line in broken.lines if file == path}
    assert rows == {BLUR[1], INVERSE[1]}


# An optimizer's step that breaks (a clip factor read with .item()), in two packages below.
CLIPPED_STEP_METHOD = """\
            @torch.no_grad()
            def step(self, closure=None):
                for group in self.param_groups:
                    for p in group["params"]:
                        scale = min(1.0, 1.0 / p.grad.norm().item())
                        p.add_(p.grad, alpha=-group["lr"] * scale)
"""

# heavyball's shape: a package that compiles kernels of its own and exports optimizers, no
# nn.Module, and a text helper beside them.
KERNEL_PACKAGE = {
    "kernels/__init__.py": "from .optim import Clipped, describe\n",
    "kernels/optim.py": """
        import torch
        from torch.optim import Optimizer

        @torch.compile
        def _norm(x):
            return x.norm()

        class Clipped(Optimizer):
""" + CLIPPED_STEP_METHOD + """
        def describe(name):
            print(name)
            return name.upper()
    """,
}
KERNEL_STEP, KERNEL_DESCRIBE = ("optim.py", 13, "GM301"), ("optim.py", 17, "GM401")


def test_a_package_compiling_its_own_kernels_and_exporting_no_module_roots_its_tensor_api(
    write_tree, monkeypatch
):
    """heavyball compiles its own kernels and exports optimizers, no nn.Module: what it compiles
    are roots, and so is its public API, the optimizer's `step` that users compile (Dynamo breaks
    there) and the text helper `describe`, as in the library scope."""
    root = write_tree(KERNEL_PACKAGE)
    assert found(root) == found(root, "library") == {KERNEL_STEP, KERNEL_DESCRIBE}
    assert signature_roots(root) == {"kernels.optim:Clipped.step"}
    assert found(root, entry_points=["kernels.optim:describe"]) == {KERNEL_DESCRIBE}  # declared: said
    assert clipped_step_breaks(root, monkeypatch, "kernels", "optim.py") == {KERNEL_STEP[1]}


def clipped_step_breaks(root, monkeypatch, package, module_file):
    """The lines of `package/module_file` where Dynamo breaks compiling `package.Clipped(...).step`
    (an optimizer) over the parameters of a Linear layer with gradients."""
    torch = pytest.importorskip("torch")
    sys.path.insert(0, str(benchmarks_dir()))
    from ground_truth import Tree, dynamo_breaks, normalise

    monkeypatch.syspath_prepend(str(root))
    imported = importlib.import_module(package)
    model = torch.nn.Linear(3, 2)
    model(torch.ones(4, 3)).sum().backward()
    broken = dynamo_breaks(imported.Clipped(model.parameters(), {"lr": 0.1}).step, (), {}, Tree([str(root / package)]))
    torch._dynamo.reset()
    path = normalise(str(root / package / module_file))
    return {line for file, line in broken.lines if file == path}


def test_a_model_zoo_compiling_something_keeps_the_model_scope(write_tree):
    """A package exporting nn.Modules that compiles something itself (transformers' `@torch.compile`
    integrations): users compile its models, whose forwards are the roots; its functional API
    (`blur`, `Flow.inverse`), roots of `auto` without the compile, is not."""
    root = write_tree(MIXED_PACKAGE)
    assert found(root) == {BLUR, INVERSE, DESCRIBE}
    write_tree({"vision/fast.py": """
        import torch

        @torch.compile
        def fast(x):
            return x * 2
    """})
    assert found(root) == set()


# A wrapper that compiles the model it holds (kornia's `ObjectDetector.compile`: `self.model =
# torch.compile(self.model)`): a compile of no code of the package's own.
HELD_MODEL_COMPILE = {
    "vision/__init__.py": "from .net import Net, blur, Flow, describe\nfrom .wrap import Detector\n",
    "vision/wrap.py": """
        import torch

        class Detector:
            def __init__(self, model):
                self.model = model

            def compile(self):
                self.model = torch.compile(self.model)
    """,
}


def test_a_package_exporting_modules_that_compiles_only_what_it_holds_roots_its_public_api(
    write_tree, monkeypatch
):
    """Compiling the model a wrapper holds names no root of the package's own: its users compile
    its modules and functions as they would without that call, so `auto` keeps the public-api
    scope (it kept the model scope, and the test half's 13 misses of this kind), and the lines it
    reports are where Dynamo breaks compiling `blur` and `Flow().inverse`."""
    root = write_tree({**MIXED_PACKAGE, **HELD_MODEL_COMPILE})
    assert found(root) == found(root, "library") == {BLUR, INVERSE, DESCRIBE}
    assert found(root, "model") == set()
    torch = pytest.importorskip("torch")
    sys.path.insert(0, str(benchmarks_dir()))
    from ground_truth import Tree, dynamo_breaks, normalise

    monkeypatch.syspath_prepend(str(root))
    for name in ("vision", "vision.net", "vision.wrap"):  # another test's `vision` may be imported already
        monkeypatch.delitem(sys.modules, name, raising=False)
    import vision

    assert vision.Detector  # the compiling wrapper is part of what users import
    path = normalise(str(root / "vision" / "net.py"))
    rows = set()
    for fn in (vision.blur, vision.Flow().inverse):
        broken = dynamo_breaks(fn, (torch.ones(3),), {}, Tree([str(root / "vision")]))
        rows |= {line for file, line in broken.lines if file == path}
    assert rows == {BLUR[1], INVERSE[1]}


def test_a_trainer_compiling_what_it_holds_and_exporting_no_module_keeps_the_model_scope(write_tree):
    """The near miss: the same wrapper in a package that exports no nn.Module (a training
    repository's helpers) names its roots, what it compiles; its public helpers run eagerly. The
    engine reads the package's other public modules to tell (one might export an nn.Module)."""
    root = write_tree({**SOLVER_PACKAGE, "solvers/wrap.py": HELD_MODEL_COMPILE["vision/wrap.py"]})
    assert found(root) == set()
    write_tree({"solvers/net.py": """
        from torch import nn

        class Net(nn.Module):
            def forward(self, x):
                return x
    """, "solvers/__init__.py": "from .core import solve\nfrom .net import Net\n"})
    assert found(root) == {STEP}


def test_declared_entry_points_add_to_autos_roots(write_tree):
    """A maintainer declares what users compile beside the forwards: declaring one never loses
    the forwards' and the public callables on tensors that `auto` found without it (it used to
    switch to the model scope, whose roots are the declared ones only). In a package that exports
    no nn.Module they replace the library scope's guess, every public callable: `solve` is public
    but not declared (a settings helper users never compile would be a root otherwise)."""
    assert found(write_tree(SOLVER_PACKAGE), entry_points=["solvers.core:_unused"]) == {UNUSED}
    mixed = write_tree(MIXED_PACKAGE)  # beside `solvers`, now one of the public-api scope's packages
    assert found(mixed, entry_points=["vision.net:describe"]) == {STEP, BLUR, INVERSE, DESCRIBE}
    assert found(mixed, "model", entry_points=["vision.net:describe"]) == {DESCRIBE}


def test_auto_picks_the_library_scope_when_the_only_modules_are_private(write_tree):
    """torchdiffeq's case: its nn.Modules are private wrappers around the user's vector field."""
    root = write_tree({**SOLVER_PACKAGE, "solvers/_wrap.py": """
        from torch import nn

        class _Perturb(nn.Module):
            def forward(self, x):
                return x
    """})
    assert found(root) == {STEP}


def test_auto_keeps_the_model_scope_for_a_lone_file_or_scripts(write_tree):
    script = "def main(x):\n    return x.sum().item()\n\nif __name__ == \"__main__\":\n    main(1)\n"
    root = write_tree({"pkg/__init__.py": "", "pkg/ops.py": "def clip(x):\n    return x.sum().item()\n",
                       "script.py": script})
    assert found(root / "pkg" / "ops.py") == set()  # its package's __init__ is not checked
    assert found(root / "script.py") == set()
    assert found(root) == {("ops.py", 2, "GM301")}


# A single-module distribution (pytorch_wpe.py, `py_modules=[...]`): functions on tensors, no nn.Module.
# `power` is typed as tensor API nowhere (a script's helper, as `def helper(x)` in test_scope.py).
LONE_LIBRARY = """
    import torch

    def whiten(x: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
        if x.std() > eps:
            return (x - x.mean()) / x.std()
        return x - x.mean()

    def power(x):
        return x.abs().pow(2).mean().item()
"""
WHITEN = ("wpe.py", 4, "GM101")


def test_auto_roots_the_functions_of_a_lone_module_that_only_defines(write_tree):
    """A lone module whose top level only defines is imported, not run: its public callables on
    tensors are roots as a package's are (not `power`, unmarked), and the lines are where Dynamo breaks."""
    torch = pytest.importorskip("torch")
    sys.path.insert(0, str(benchmarks_dir()))
    from ground_truth import Tree, dynamo_breaks, normalise

    root = write_tree({"wpe.py": LONE_LIBRARY})
    assert found(root / "wpe.py") == {WHITEN}
    assert found(root / "wpe.py", "model") == set()
    spec = importlib.util.spec_from_file_location("wpe", root / "wpe.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    broken = dynamo_breaks(module.whiten, (torch.ones(3),), {}, Tree([str(root)]))
    assert {line for file, line in broken.lines if file == normalise(str(root / "wpe.py"))} == {WHITEN[1]}


@pytest.mark.parametrize("tail", [
    "\nif __name__ == '__main__':\n    whiten(torch.ones(3))\n",  # a script's main guard
    "\nprint(power(torch.ones(3)))\n",  # a call its top level runs
    "\nfor _ in range(2):\n    whiten(torch.ones(3))\n",
    "\nfrom torch import nn\n\nclass Model(nn.Module):\n    def forward(self, x):\n        return x\n",  # a model file
    "\nimport sys\n\nsys.path.append('.')\n",  # a call its top level runs
    "\nfast = torch.compile(power)\n",  # it compiles: its roots are named
])
def test_a_lone_file_that_runs_something_or_defines_models_keeps_the_model_scope(write_tree, tail):
    root = write_tree({"wpe.py": textwrap.dedent(LONE_LIBRARY) + tail})
    assert WHITEN not in found(root / "wpe.py")


def test_the_cache_gives_the_same_result_in_auto(write_tree, tmp_path):
    root = write_tree(SOLVER_PACKAGE)
    cache = SummaryCache(tmp_path / "cache")
    cold = check([str(root)], Config(), cache=cache)
    warm = check([str(root)], Config(), cache=cache)
    assert [f.location.row for f in cold.findings] == [f.location.row for f in warm.findings] == [7]


def test_scope_setting_and_cli_option(write_tree):
    assert parse_config({"scope": "library"}).scope == "library"
    assert Config().scope == "auto"
    with pytest.raises(ConfigError, match="scope must be one of auto, model, library"):
        parse_config({"scope": "everything"})
    root = write_tree({**SOLVER_PACKAGE, ".graphmend.yml": "scope: model\n"})
    cli = [sys.executable, "-m", "graphmend_bot.cli", "check", "--no-cache"]
    assert subprocess.run([*cli, "."], cwd=root, capture_output=True).returncode == 0
    done = subprocess.run([*cli, "--scope", "library", "."], cwd=root, capture_output=True, text=True)
    assert done.returncode == 1 and "solvers/core.py:7:" in done.stdout


@pytest.mark.parametrize(("source", "exports"), [
    ("__all__ = ['a', 'b']", ("a", "b")),
    ("__all__ = ('a',)\n__all__ += ['b']\n__all__.extend(['c'])\n__all__.append('d')", ("a", "b", "c", "d")),
    ("x = 1", None),
    ("from .m import __all__ as m_all\n__all__ = m_all + ['a']", None),
    ("__all__ = ['a']\n__all__ += other.__all__", None),
    ("__all__ += ['a']", None),
])
def test_exports_are_read_from_literals_only(source, exports):
    from graphmend_bot.analysis.summary import Exports

    reader = Exports()
    for statement in ast.parse(textwrap.dedent(source)).body:
        reader.read(statement)
    assert reader.names == exports


def test_a_finding_only_the_public_api_reaches_names_the_public_callable(write_tree, tmp_path):
    """A line no forward reaches would puzzle its reader: the finding says which public callable
    makes it traced code, in the text and JSON reports, and keeps it through the cache."""
    root = write_tree({**MIXED_PACKAGE, "vision/model.py": """
        import torch
        from torch import nn

        class Model(nn.Module):
            def forward(self, x):
                return x * x.sum().item()
    """, "vision/__init__.py": "from .net import Net, blur, Flow, describe\nfrom .model import Model\n"})
    cache = SummaryCache(tmp_path / "cache")
    for _ in range(2):  # cold, then the whole result from the cache
        result = check([str(root)], Config(), cache=cache)
        via = {(f.path.rsplit("/", 1)[-1], f.location.row): f.reached_through for f in result.findings}
        assert via == {("net.py", 9): "vision.net.blur", ("net.py", 17): "vision.net.Flow.inverse",
                       ("net.py", 22): "vision.net.describe", ("model.py", 6): ""}
    cli = [sys.executable, "-m", "graphmend_bot.cli", "check", "--no-cache", "vision"]
    text = subprocess.run(cli, cwd=root, capture_output=True, text=True).stdout
    assert "note: traced as public API: a user who compiles `vision.net.blur` runs this line" in text
    assert text.count("traced as public API") == 3  # not on the forward's finding
    records = json.loads(subprocess.run([*cli, "--output-format", "json"], cwd=root, capture_output=True).stdout)
    assert sorted(r["reached_through"] for r in records) == [
        "", "vision.net.Flow.inverse", "vision.net.blur", "vision.net.describe"]


DIST = """
    import torch

    def sample(num_samples, shift):
        if num_samples <= 0:
            raise ValueError("num_samples must be positive")
        return torch.randn(num_samples, 2) + shift.max().item()

    def scale(x):
        return sample(x.sum(), x)

    def tile(x, n):
        if n <= 0:
            raise ValueError("n must be positive")
        return x.repeat(n, 1)
"""


def test_a_count_parameter_of_a_public_callable_is_not_assumed_a_tensor(write_tree):
    """A root's unannotated parameters are tensors, except a count by name (`num_samples`, `n`):
    nflows' `sample(num_samples)` is called with an int, and its `if num_samples <= 0: raise` does
    not break (the wild benchmark's nflows sample call, torch 2.13). A tensor passed in still counts."""
    root = write_tree({"flows/__init__.py": "from .dist import sample, scale\n", "flows/dist.py": DIST})
    # `scale` passes a tensor: then it is one (the guard, and a tensor as randn's size)
    assert found(root, "library") == {("dist.py", 4, "GM201"), ("dist.py", 6, "GM302"), ("dist.py", 6, "GM301")}
    root = write_tree({"flows/dist.py": DIST.replace("return sample(x.sum(), x)", "return x")})
    assert found(root, "library") == {("dist.py", 6, "GM301")}  # only `shift` is assumed a tensor


def test_an_iteration_limit_of_a_public_method_is_not_assumed_a_tensor(write_tree):
    """torchdyn's multiple-shooting `root_solve(self, odeint_func, f, x, t_span, B, fine_steps, maxiter)`:
    `while i <= maxiter:` runs on the int its caller passes (through a solver object the tree cannot
    type), and does not break (the wild benchmark's torchdyn call, torch 2.13)."""
    root = write_tree({"solvers/__init__.py": "from .ms import MSZero\n", "solvers/ms.py": """
        import torch

        class MSZero:
            def root_solve(self, x, maxiter):
                i = 0
                while i <= maxiter:
                    i += 1
                    x = x * 2
                return x
    """})
    assert found(root, "library") == set()


CYCLE_PACKAGE = {
    "ops/__init__.py": "from .calls import first, second, third\n",
    "ops/calls.py": """
        import torch

        def first(x):
            if x is None:
                return second(x)
            return third(x)

        def second(x):
            return first(x)

        def third(x):
            return torch.cat([x, x])
    """,
}


@pytest.mark.parametrize("order", [0, 1, 2])
def test_what_returns_a_tensor_does_not_depend_on_the_order_functions_are_met(write_tree, order):
    """`second` returns what `first` returns, which is `third`'s tensor: all three return one,
    whichever is asked about first (a cycle met half-way once settled `second` as no tensor)."""
    from graphmend_bot.analysis.public_api import returning_tensors
    from graphmend_bot.engine import Workspace

    workspace = Workspace([str(write_tree(CYCLE_PACKAGE))], Config(), jobs=1)
    program = workspace._program()
    names = ["first", "second", "third"]
    starts = [("ops.calls", name) for name in names[order:] + names[:order]]
    for start in starts:  # one at a time, as the roots are met
        assert returning_tensors(program, [start]) >= {start}
    assert returning_tensors(program, starts) == set(starts)


# normflows' `NormalizingFlow.sample(num_samples=1)`: a method of an exported nn.Module whose
# result is what its submodules return (`self.base(n)`, then each `flow(z)`), annotated nowhere.
SAMPLER_PACKAGE = {
    "flows/__init__.py": "from .core import Flow, Sampler\n",
    "flows/core.py": """
        import torch
        from torch import nn

        class Base(nn.Module):
            def forward(self, num_samples=1):
                return torch.randn(num_samples, 3)

        class Flow(nn.Module):
            def forward(self, z):
                return z * 2

        class Sampler(nn.Module):
            def __init__(self):
                super().__init__()
                self.base = Base()
                self.flows = nn.ModuleList([Flow(), Flow()])

            def forward(self, x):
                return x

            def sample(self, num_samples=1):
                z = self.base(num_samples)
                for flow in self.flows:
                    z = flow(z)
                if z.sum() > 0:
                    z = -z
                return z

            def describe(self, name="sampler"):
                print(name)
                return len(self.flows)
    """,
}
SAMPLE, DESCRIBE_FLOWS = ("core.py", 25, "GM101"), ("core.py", 30, "GM401")


def test_a_model_method_returning_its_submodules_output_is_tensor_api(write_tree, monkeypatch):
    """`sample` returns what its submodules return: a signature root (Dynamo breaks there when a
    user compiles `Sampler().sample`); `describe`, returning a count, is not, though public."""
    root = write_tree(SAMPLER_PACKAGE)
    assert found(root) == found(root, "library") == {SAMPLE, DESCRIBE_FLOWS}
    assert "flows.core:Sampler.sample" in signature_roots(root)
    assert "flows.core:Sampler.describe" not in signature_roots(root)
    torch = pytest.importorskip("torch")
    sys.path.insert(0, str(benchmarks_dir()))
    from ground_truth import Tree, dynamo_breaks, normalise

    monkeypatch.syspath_prepend(str(root))
    import flows

    broken = dynamo_breaks(flows.Sampler().sample, (), {}, Tree([str(root / "flows")]))
    assert {line for file, line in broken.lines if file == normalise(str(root / "flows" / "core.py"))} == {SAMPLE[1]}
    torch._dynamo.reset()


# A package exporting a module and an RL-style mixin whose signature alone says it is on tensors.
ANNOTATED_PACKAGE = {
    "agents/__init__.py": "from .core import Policy, TabularMixin, stack, describe\n",
    "agents/core.py": """
        from typing import Any, List

        import torch
        from torch import nn

        class Policy(nn.Module):
            def forward(self, x):
                return x

        class TabularMixin:
            def act(self, inputs: dict[str, Any]) -> tuple[torch.Tensor, dict[str, Any]]:
                states = inputs["states"]
                if states.sum() > 0:
                    states = -states
                return states, {}

        def stack(xs: List[torch.Tensor]):
            total = torch.stack(xs)
            return total.max().item()

        def describe(table: dict[str, Any]) -> str:
            print(table)
            return str(table)

        def load(path: str) -> dict[str, torch.Tensor]:
            print(path)
            return torch.load(path)
    """,
}
ACT, STACK, DESCRIBE_TABLE = ("core.py", 13, "GM101"), ("core.py", 19, "GM301"), ("core.py", 22, "GM401")
LOAD = ("core.py", 26, "GM401")


def test_a_signature_naming_tensors_in_containers_or_its_result_is_tensor_api(write_tree, monkeypatch):
    """`act` returns `tuple[Tensor, ...]` and `stack` takes `List[Tensor]`: on tensors by their
    annotations, so roots of `auto` (Dynamo breaks there when a user compiles them); `describe`,
    on a dict of anything and returning text, is not, nor the loader `load(path: str) -> dict[str,
    Tensor]`, which makes tensors from a path (review5: library scope only)."""
    root = write_tree(ANNOTATED_PACKAGE)
    assert found(root) == found(root, "library") >= {ACT, STACK, DESCRIBE_TABLE, LOAD}
    assert signature_roots(root) == {"agents.core:TabularMixin.act", "agents.core:stack"}
    torch = pytest.importorskip("torch")
    sys.path.insert(0, str(benchmarks_dir()))
    from ground_truth import Tree, dynamo_breaks, normalise

    monkeypatch.syspath_prepend(str(root))
    import agents

    path = normalise(str(root / "agents" / "core.py"))
    rows = set()
    for fn, args in ((agents.TabularMixin().act, ({"states": torch.ones(3)},)), (agents.stack, ([torch.ones(3)],))):
        broken = dynamo_breaks(fn, args, {}, Tree([str(root / "agents")]))
        rows |= {line for file, line in broken.lines if file == path}
    assert rows == {ACT[1], STACK[1]}
    torch._dynamo.reset()


def test_compiling_in_its_tests_names_no_roots_of_a_package(write_tree, monkeypatch):
    """einops ships `einops/tests`, which compile what they test: not what users compile, so `auto`
    still roots the public API (Dynamo breaks in `solve`'s helper when a user compiles it).
    Compiling a function of its own outside its tests, a package that exports no nn.Module roots
    its public callables on tensors only (its kernels, heavyball's case, below); a model zoo
    compiling something, or a method compiling the model its object is handed (a trainer,
    review5), keeps the model scope (below)."""
    root = write_tree({
        **SOLVER_PACKAGE,
        "solvers/tests/__init__.py": "",
        "solvers/tests/test_core.py": """
            import torch

            def double(x):
                return x * 2

            def test_double():
                torch.compile(double)(torch.ones(3))
        """,
    })
    assert found(root) == {STEP}
    torch = pytest.importorskip("torch")
    sys.path.insert(0, str(benchmarks_dir()))
    from ground_truth import Tree, dynamo_breaks, normalise

    monkeypatch.syspath_prepend(str(root))
    import solvers

    broken = dynamo_breaks(solvers.solve, (torch.ones(3),), {}, Tree([str(root / "solvers")]))
    assert {line for file, line in broken.lines if file == normalise(str(root / "solvers" / "core.py"))} == {STEP[1]}
    torch._dynamo.reset()
    scripted = write_tree({"solvers/train.py": """
        import torch

        def loss(x):
            return x * 2

        def main():
            torch.compile(loss)
    """})
    assert found(scripted) == {STEP}  # public-api roots: every public callable, `solve` too


def test_a_method_compiling_its_objects_model_keeps_the_model_scope(write_tree):
    """A training repository whose Trainer compiles its model (review5): what it compiles are the
    roots, and its public helpers (`solve` here) run eagerly, so nothing of them is reported."""
    root = write_tree(SOLVER_PACKAGE)
    assert found(root) == {STEP}
    write_tree({"solvers/trainer.py": """
        import torch

        class Trainer:
            def __init__(self, model):
                self.model = torch.compile(model)
    """})
    assert found(root) == set()


# A package exporting a loss module and optimizers (pytorch_optimizer, geoopt): `step(self,
# closure=None)` names no tensor, yet it updates the parameters' tensors; a scheduler's and a
# plain class's `step` do not.
OPTIMIZER_PACKAGE = {
    "optims/__init__.py": "from .core import FocalLoss, Clipped, Warmup, Counter\n",
    "optims/core.py": """
        import torch
        from torch import nn
        from torch.optim import Optimizer
        from torch.optim.lr_scheduler import LRScheduler

        class FocalLoss(nn.Module):
            def forward(self, x):
                return x

        class BaseOptimizer(Optimizer):
            pass

        class Clipped(BaseOptimizer):
""" + CLIPPED_STEP_METHOD + """
        class Warmup(LRScheduler):
            def step(self, epoch=None):
                print(epoch)

        class Counter:
            def step(self):
                print("tick")
    """,
}
CLIPPED_STEP, WARMUP_STEP = ("core.py", 18, "GM301"), ("core.py", 23, "GM401")
COUNTER_STEP = ("core.py", 27, "GM401")


def test_an_optimizers_step_is_tensor_api(write_tree, monkeypatch):
    """An optimizer's `step` is what users compile (`torch.compile(opt.step)`): a root of `auto`
    beside the loss's forward, through an in-tree base of torch.optim.Optimizer; Dynamo breaks
    there. An LR scheduler's `step` and a plain class's are not (library scope only)."""
    root = write_tree(OPTIMIZER_PACKAGE)
    assert found(root) == found(root, "library") == {CLIPPED_STEP, WARMUP_STEP, COUNTER_STEP}
    assert signature_roots(root) == {"optims.core:Clipped.step"}  # the scheduler's is no signature root
    assert clipped_step_breaks(root, monkeypatch, "optims", "core.py") == {CLIPPED_STEP[1]}


# opacus's DPOptimizer: `zero_grad(self, set_to_none=False)` logs before clearing the per-sample
# gradients; a compiled training step calls it beside `step`.
ZERO_GRAD_PACKAGE = {
    "zeroing/__init__.py": "from .core import FocalLoss, Clipped\n",
    "zeroing/core.py": """
        import logging
        import torch
        from torch import nn
        from torch.optim import Optimizer

        logger = logging.getLogger(__name__)

        class FocalLoss(nn.Module):
            def forward(self, x):
                return x

        class Clipped(Optimizer):
            def zero_grad(self, set_to_none=False):
                if set_to_none is False:
                    logger.debug("clearing the per-sample gradients too")
                for group in self.param_groups:
                    for p in group["params"]:
                        p.grad = None
    """,
}


def test_an_optimizers_zero_grad_is_tensor_api(write_tree, monkeypatch):
    """An optimizer's `zero_grad` is a root of `auto` like its `step`: Dynamo breaks at the logger
    call there (measured below), which the scope reaches without a declared entry point."""
    torch = pytest.importorskip("torch")
    sys.path.insert(0, str(benchmarks_dir()))
    from ground_truth import Tree, dynamo_breaks, normalise

    root = write_tree(ZERO_GRAD_PACKAGE)
    assert found(root) == {("core.py", 15, "GM402")}
    monkeypatch.syspath_prepend(str(root))
    imported = importlib.import_module("zeroing")
    model = torch.nn.Linear(3, 2)
    model(torch.ones(4, 3)).sum().backward()
    broken = dynamo_breaks(imported.Clipped(model.parameters(), {"lr": 0.1}).zero_grad, (), {}, Tree([str(root / "zeroing")]))
    torch._dynamo.reset()
    path = normalise(str(root / "zeroing" / "core.py"))
    assert {line for file, line in broken.lines if file == path} == {15}


# A model's method that hands on its own output (pytorch_tcn's `BaseTCN.inference`), and one that
# calls nn.Module's own API (`self.named_children()`: no output of the module) and takes no tensor.
SELF_CALLING = {
    "tcn/__init__.py": "from .core import Net\n",
    "tcn/core.py": """
        from torch import nn


        class Net(nn.Module):
            def forward(self, x, inference=False):
                return x * 2 if inference else x

            def inference(self, *args, **kwargs):
                print("inference")
                return self(*args, inference=True, **kwargs)

            def describe(self, *args):
                print("describe")
                return self.named_children(*args)
    """,
}
INFERENCE = ("core.py", 9, "GM401")


def test_a_model_method_returning_the_models_own_output_is_a_tensor_api_root(write_tree, monkeypatch):
    torch = pytest.importorskip("torch")
    sys.path.insert(0, str(benchmarks_dir()))
    from ground_truth import Tree, dynamo_breaks, normalise

    root = write_tree(SELF_CALLING)
    assert found(root) == {INFERENCE, ("core.py", 13, "GM401")}  # `describe` is public too
    assert signature_roots(root) == {"tcn.core:Net.inference"}  # named_children is no submodule's output
    monkeypatch.syspath_prepend(str(root))
    import tcn

    path = normalise(str(root / "tcn" / "core.py"))
    broken = dynamo_breaks(tcn.Net().inference, (torch.ones(3),), {}, Tree([str(root / "tcn")]))
    assert {line for file, line in broken.lines if file == path} == {INFERENCE[1]}


# A Bayesian layer library's loss over a model's layers (bayesian_torch's `get_kl_loss(m)`): no
# tensor in its signature, but a compiled training step adds it to the loss. `freeze` walks the
# model and returns nothing; `count_layers` returns no accumulated value: neither is a root.
KL_PACKAGE = {
    "bnn/__init__.py": "from .layers import BayesLinear, get_kl_loss, freeze, count_layers\n",
    "bnn/layers.py": """
        import torch
        from torch import nn


        class BayesLinear(nn.Module):
            def __init__(self):
                super().__init__()
                self.mu = nn.Parameter(torch.zeros(3))

            def forward(self, x):
                return x + self.mu

            def kl_loss(self):
                return self.mu.pow(2).sum()


        def get_kl_loss(m):
            kl = None
            for layer in m.modules():
                if hasattr(layer, "kl_loss"):
                    kl = layer.kl_loss() if kl is None else kl + layer.kl_loss()
            print("kl", kl)
            return kl


        def freeze(model):
            for p in model.parameters():
                p.requires_grad_(False)
            print("frozen")


        def count_layers(model):
            print("counting")
            return len(list(model.children()))
    """,
}
KL_PRINT = ("layers.py", 22, "GM401")


def test_a_loss_over_a_models_layers_is_a_tensor_api_root(write_tree, monkeypatch):
    torch = pytest.importorskip("torch")
    sys.path.insert(0, str(benchmarks_dir()))
    from ground_truth import Tree, dynamo_breaks, normalise

    root = write_tree(KL_PACKAGE)
    assert KL_PRINT in found(root)
    assert signature_roots(root) == {"bnn.layers:get_kl_loss", "bnn.layers:BayesLinear.kl_loss"}
    monkeypatch.syspath_prepend(str(root))
    import bnn

    path = normalise(str(root / "bnn" / "layers.py"))
    model = torch.nn.Sequential(bnn.BayesLinear(), bnn.BayesLinear())
    broken = dynamo_breaks(bnn.get_kl_loss, (model,), {}, Tree([str(root / "bnn")]))
    assert {line for file, line in broken.lines if file == path} == {KL_PRINT[1]}


# opacus's shape: a public `make_private` wraps the user's optimizer at setup; the wrapper's `step`,
# which users compile, calls the wrapped torch optimizer's `step` (GM655).
WRAPPING_PACKAGE = {
    "dp/__init__.py": "from .core import Net, DPOptimizer, make_private\n",
    "dp/core.py": """
        from torch import nn
        from torch.optim import Optimizer


        class Net(nn.Module):
            def forward(self, x):
                return x * 2


        class DPOptimizer:
            def __init__(self, optimizer: Optimizer):
                self.original_optimizer = optimizer

            def step(self):
                return self.original_optimizer.step()


        def make_private(optimizer: Optimizer):
            return DPOptimizer(optimizer)
    """,
}
WRAPPED_STEP = ("core.py", 15, "GM655")


def test_a_public_callable_that_builds_at_setup_does_not_make_its_object_compiled(write_tree, monkeypatch):
    """`make_private` is a root of the public-api scope, and it constructs the wrapper; yet users
    call it once, eagerly, so the wrapped optimizer reaches the compiled `step` from outside and
    Dynamo breaks there. Only the roots whose signatures name tensors make what they build compiled
    (Program.surely_compiled); before, the finding was dropped as built in traced code."""
    torch = pytest.importorskip("torch")
    sys.path.insert(0, str(benchmarks_dir()))
    from ground_truth import Tree, dynamo_breaks, normalise

    root = write_tree(WRAPPING_PACKAGE)
    assert WRAPPED_STEP in found(root)
    monkeypatch.syspath_prepend(str(root))
    import dp

    weight = torch.nn.Parameter(torch.ones(3))
    weight.grad = torch.ones(3)
    wrapped = dp.make_private(torch.optim.SGD([weight], lr=0.1))
    broken = dynamo_breaks(wrapped.step, (), {}, Tree([str(root / "dp")]))
    torch._dynamo.reset()
    assert {line for file, line in broken.lines if file == normalise(str(root / "dp" / "core.py"))} == {
        WRAPPED_STEP[1]}
