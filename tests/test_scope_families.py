"""A method called on an object of no known class runs the tree's one family of that method
(method_families.py), measured with torch._dynamo.explain: Dynamo traces the method of whatever
object arrives, as linear_operator's `linear_op.cholesky()._cholesky_solve(rhs)` enters
`DenseLinearOperator._cholesky_solve`. Negatives: a name torch's objects share (`opt.step()`),
an object another package built (`Normal(...)`), an attribute the tree builds from another
package's class; a name two unrelated classes define (`_scale`) reaches neither."""

from __future__ import annotations

import pytest
from test_scope_edges import _assert_reported_where_dynamo_breaks

from graphmend_bot.analysis.method_families import MODULE_API
from graphmend_bot.engine import check

torch = pytest.importorskip("torch")

FAMILY_TREE = {
    "fampkg/__init__.py": "",
    "fampkg/operators.py": """
        import torch


        class Operator:
            def _solve(self, rhs):
                raise NotImplementedError

            def factor(self):
                return Dense()


        class Dense(Operator):
            def _solve(self, rhs):
                if rhs.sum() > 0:  # break
                    return rhs * 2
                return rhs


        class Diagonal(Operator):
            def _solve(self, rhs):
                return rhs / 2

            def _scale(self, rhs):
                return rhs.tolist()


        class Unrelated:
            def _scale(self, rhs):
                return rhs.tolist()


        def solve(op, rhs):
            return op.factor()._solve(rhs)  # break


        def scale(op, rhs):
            return op._scale(rhs)


        class Holder(torch.nn.Module):
            def __init__(self, inner):
                super().__init__()
                self.inner = inner

            def forward(self, x):
                return self.inner._solve(x)
    """,
    "fampkg/model.py": """
        from torch import nn

        from fampkg.operators import Dense, Holder, scale, solve


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.op = Dense()
                self.holder = Holder(Dense())

            def forward(self, x):
                x = solve(self.op, x)
                return self.holder(x)
    """,
}


def test_a_method_of_an_object_of_unknown_class_runs_the_family_of_that_method(write_tree) -> None:
    # `op.factor()._solve(rhs)` on a parameter and `self.inner._solve(x)` on an attribute copied
    # from a parameter: Dense._solve breaks, and the call on the object `factor()` built breaks
    # again (GM605); `scale`, which calls `_scale` of two unrelated classes, is not traced
    _assert_reported_where_dynamo_breaks(write_tree(FAMILY_TREE), "fampkg", "model", "Net", "operators.py")


def test_objects_another_package_builds_do_not_run_the_tree_s_methods(write_tree) -> None:
    """`opt.step()` (an optimizer's name), `dist.sample()` on `Normal(...)` and `self.dist.sample()`
    on an attribute built from torch's class run torch's, though a family of the tree has them."""
    root = write_tree({
        "extpkg/__init__.py": "",
        "extpkg/model.py": """
            import torch
            from torch import nn
            from torch.distributions import Normal


            class Sampler:
                def sample(self):
                    return torch.ones(2).tolist()

                def step(self):
                    return torch.ones(2).tolist()


            class Biased(Sampler):
                def sample(self):
                    return torch.zeros(2).tolist()


            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.dist = Normal(torch.zeros(2), 1.0)
                    self.lin = nn.Linear(3, 3)

                def forward(self, x):
                    opt = torch.optim.SGD(self.lin.parameters(), lr=0.1)
                    opt.step()
                    dist = Normal(x, 1.0)
                    return dist.sample() + self.dist.sample().sum()
        """,
    })
    result = check([str(root / "extpkg")])
    assert not result.errors
    assert [f.location.row for f in result.findings if f.location.row < 20] == []  # none in Sampler, Biased


def test_the_module_api_list_is_torch_s() -> None:
    assert frozenset(name for name in dir(torch.nn.Module) if not name.startswith("__")) == MODULE_API
