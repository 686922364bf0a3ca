"""torch.cond rewrites (rewrite/branches/cond.py): outputs and gradients bit-identical, breaks gone, and
the arms it must refuse."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from fixture_support import FIXTURES, break_count, build_entry, fix_source, load_module

from graphmend_bot.config import Config
from graphmend_bot.engine import check
from graphmend_bot.rewrite import attach_fixes, fix_paths

COND = FIXTURES / "cond"


def fixes_for(source: str, tmp_path: Path) -> list:
    path = tmp_path / "case.py"
    path.write_text(source, encoding="utf-8")
    return [f.fix for f in attach_fixes(check([str(path)]), Config()).findings if f.code == "GM101"]


def test_module_arms_become_torch_cond_with_identical_outputs_and_gradients(tmp_path: Path) -> None:
    case = COND / "module_arms.in.py"
    rewritten = tmp_path / "rewritten.py"
    rewritten.write_text(fix_source(case.read_text(), tmp_path), encoding="utf-8")
    assert "y = torch.cond(x.sum() > 0, y_via_proj, y_via_norm)" in rewritten.read_text()
    before = build_entry(load_module(case, tmp_path, "cond_before"))
    after = build_entry(load_module(rewritten, tmp_path, "cond_after"))
    for shift in (-2.0, 2.0):  # both branches
        x1 = (torch.randn(3, 4, generator=torch.Generator().manual_seed(7)) + shift).requires_grad_()
        x2 = x1.detach().clone().requires_grad_()
        out1, out2 = before(x1), after(x2)
        assert torch.equal(out1, out2)
        out1.square().sum().backward()
        out2.square().sum().backward()
        assert x1.grad is not None and x2.grad is not None and torch.equal(x1.grad, x2.grad)
        for p1, p2 in zip(before.parameters(), after.parameters(), strict=True):
            # The branch not taken gets zero gradients instead of None (said in the fix message).
            assert p2.grad is not None
            assert torch.equal(p1.grad if p1.grad is not None else torch.zeros_like(p1), p2.grad)
        before.zero_grad()
        after.zero_grad()
    x = torch.randn(3, 4)
    assert break_count(before, (x,)) == 1
    assert break_count(after, (x,)) == 0


def test_cond_fixes_are_always_unsafe(tmp_path: Path) -> None:
    for case in ("module_arms", "update_with_module", "named_flag"):
        (fix,) = fixes_for((COND / f"{case}.in.py").read_text(), tmp_path)
        assert fix is not None and fix.applicability == "unsafe"
        assert "torch.cond" in fix.message and "side effects" in fix.message
        assert "zero gradients" in fix.message
        assert "eager calls get slower" in fix.message and "benchmarks/cond_eager_cost.py" in fix.message


def test_untouched_value_is_cloned_and_passed_as_operand(tmp_path: Path) -> None:
    after = fix_source((COND / "update_with_module.in.py").read_text(), tmp_path)
    assert "def keep_x(x):\n            return x.clone()" in after
    assert "x = torch.cond(x.norm() > 2, x_via_mlp, keep_x, (x,))" in after


@pytest.mark.parametrize(
    "arm",
    [
        "self.hits.add_(1)\n            y = self.proj(x)",  # in-place on module state
        "self.cache = x\n            y = self.proj(x)",  # attribute store
        "print(x)\n            y = self.proj(x)",  # I/O
        "y = self.proj(x)\n            raise ValueError('no')",  # raise
        "y = self.proj(x).item()",  # host copy
        "for _ in range(2):\n                x = self.proj(x)\n            y = x",  # control flow
        "y = None",  # not a tensor: torch.cond branches must return tensors
    ],
    ids=["inplace", "attribute-store", "print", "raise", "item", "loop", "none"],
)
def test_arms_with_side_effects_get_no_cond(arm: str, tmp_path: Path) -> None:
    source = (
        "import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.proj = nn.Linear(2, 2)\n"
        "        self.register_buffer('hits', torch.zeros(()))\n\n"
        f"    def forward(self, x):\n        if x.sum() > 0:\n            {arm}\n"
        "        else:\n            y = self.proj(-x)\n        return y\n"
    )
    fixes = fixes_for(source, tmp_path)
    assert fixes
    assert all(fix is None or "torch.cond" not in fix.message for fix in fixes)


def test_mutating_fixture_is_left_alone(tmp_path: Path) -> None:
    fixes = fixes_for((COND / "neg_mutation.in.py").read_text(), tmp_path)
    assert fixes == [None]


def test_torch_cond_rejects_mismatched_branches_loudly() -> None:
    """What makes cond fixes unsafe rather than wrong: a mismatch raises, it never broadcasts."""
    x = torch.ones(3, 4)

    def reduce_rows() -> torch.Tensor:
        return x.sum(0)

    def keep() -> torch.Tensor:
        return x.clone()

    with pytest.raises(Exception, match="merging two branches"):
        torch.cond(x.sum() > 0, reduce_rows, keep)


def test_an_arm_that_aliases_an_input_returns_a_clone(tmp_path: Path) -> None:
    source = (
        "import torch\n\n\ndef f(x, tokens):\n    x = x.float()\n    if torch.any(tokens != 0):\n"
        "        out = torch.softmax(x, -1)\n    else:\n        out = x\n    return out\n\n\n"
        "compiled = torch.compile(f)\n"
    )
    after = fix_source(source.replace("import torch", "# fixture: unsafe-fixes\nimport torch", 1), tmp_path)
    assert "def out_if_false():\n        return x.clone()" in after
    namespace: dict = {}
    exec(compile(after, "<rewritten>", "exec"), namespace)
    original: dict = {}
    exec(compile(source, "<original>", "exec"), original)
    x = torch.randn(3, 3)
    for tokens in (torch.zeros(3, 3), torch.randn(3, 3)):
        assert torch.equal(namespace["f"](x, tokens), original["f"](x, tokens))


def test_no_torch_cond_inside_a_loop(tmp_path: Path) -> None:
    """kornia's per-block refinement (HUNKS #16): torch.cond in a loop body would define two branch
    functions per iteration; the finding keeps its advice. The same `if` outside a loop is fixed."""
    arms = ("        if x.sum() > 0:\n            y = self.proj(x)\n        else:\n            y = self.norm(x) * 2\n")
    head = ("import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n    def __init__(self):\n"
            "        super().__init__()\n        self.proj = nn.Linear(4, 4)\n        self.norm = nn.LayerNorm(4)\n\n"
            "    def forward(self, xs):\n")
    looped = head + "        out = []\n        for x in xs:\n" + arms.replace("\n        ", "\n            ").replace(
        "        if", "            if", 1) + "            out.append(y)\n        return out\n"
    assert "for x in xs:\n            if x.sum() > 0:" in looped
    assert fixes_for(looped, tmp_path) == [None]
    straight = head + "        x = self.norm(xs)\n" + arms + "        return y\n"
    (fix,) = fixes_for(straight, tmp_path)
    assert fix is not None and "torch.cond" in fix.message


@pytest.mark.parametrize("form", ["return", "assign"])
def test_a_branch_that_selects_a_parameter_gets_no_cond(form: str, tmp_path: Path) -> None:
    """VISTA3D's choice between two embedding weights, returned or assigned: torch.cond (like
    torch.where) gives the weight not selected a zero gradient where the branch gave it none."""
    arms = ("            return self.a.weight\n        return self.b.weight\n" if form == "return" else
            "            y = self.a.weight\n        else:\n            y = self.b.weight\n        return x * y\n")
    source = (
        "import torch\nfrom torch import nn\n\n\nclass Pick(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n"
        "        self.a = nn.Embedding(1, 4)\n        self.b = nn.Embedding(1, 4)\n\n"
        "    def forward(self, x):\n        if x.sum() > 0:\n" + arms
    )
    assert fixes_for(source, tmp_path) == [None]
    a, b = torch.nn.Embedding(1, 4), torch.nn.Embedding(1, 4)
    torch.cond(torch.tensor(True), lambda: a.weight.clone(), lambda: b.weight.clone()).sum().backward()
    assert b.weight.grad is not None and not b.weight.grad.any()  # zeros, where the `if` left None


def test_an_arm_with_a_notice_once_helper_gets_no_cond(tmp_path: Path) -> None:
    """notice_once.py's helper runs while Dynamo traces, and torch.cond traces both arms: the notice
    would be logged for the arm not taken. An arm only assigns local names, so the call refuses it."""
    helper = "@torch.compiler.assume_constant_result\ndef _warning_once(*args):\n    return None\n\n\n"
    source = (
        f"import torch\nfrom torch import nn\n\n\n{helper}class M(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.proj = nn.Linear(2, 2)\n\n"
        "    def forward(self, x):\n        x = self.proj(x)\n        if x.sum() > 0:\n            NOTICE\n            y = self.proj(x)\n"
        "        else:\n            y = self.proj(-x)\n        return y\n"
    )
    plain = fixes_for(source.replace("NOTICE\n            ", ""), tmp_path)
    assert any(fix is not None and "torch.cond" in fix.message for fix in plain)  # the control
    noticed = fixes_for(source.replace("NOTICE", "_warning_once('`x` is deprecated')"), tmp_path)
    assert noticed and all(fix is None or "torch.cond" not in fix.message for fix in noticed)


def _with_view_arm(arm: str) -> str:
    """update_with_module.in.py, its untouched path replaced by a view of `x`."""
    update = "        if x.norm() > 2:\n            x = self.mlp(x)\n"
    source = (COND / "update_with_module.in.py").read_text(encoding="utf-8")
    assert update in source
    return source.replace(update, update + f"        else:\n            x = {arm}\n")


@pytest.mark.parametrize("arm", ["x.detach()", "x.contiguous()"])
def test_a_view_of_an_input_is_cloned_too(arm: str, tmp_path: Path) -> None:
    # torch.cond raises "Encountered aliasing during higher order op tracing" on every call whose
    # branch returns a view of an input, as for the input itself.
    source = _with_view_arm(arm)
    case, rewritten = tmp_path / "view_arm.py", tmp_path / "view_arm_fixed.py"
    case.write_text(source, encoding="utf-8")
    rewritten.write_text(fix_source(source, tmp_path), encoding="utf-8")
    torch.manual_seed(0)
    before = build_entry(load_module(case, tmp_path, f"view_before_{arm[2:6]}"))
    torch.manual_seed(0)
    after = build_entry(load_module(rewritten, tmp_path, f"view_after_{arm[2:6]}"))
    for scale in (0.1, 10.0):  # LayerNorm's output has norm ~2.8: the weight scales it to either branch
        with torch.no_grad():
            for module in (before, after):
                module.norm.weight.fill_(scale)
        x = torch.randn(2, 4, generator=torch.Generator().manual_seed(3))
        assert torch.equal(before(x), after(x))
    assert f"return {arm}.clone()" in rewritten.read_text()


def _with_arms(true_arm: str, false_arm: str) -> str:
    return (
        "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n\n\n"
        "class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.norm = nn.LayerNorm(3)\n        self.skip = nn.Identity()\n        self.drop = nn.Dropout(0.1)\n\n"
        "    def forward(self, x: torch.Tensor) -> torch.Tensor:\n        x = x.float() * 1.0\n"
        f"        if x.sum() > 0:\n            y = {true_arm}\n        else:\n            y = {false_arm}\n"
        "        return y + 1\n\n\nENTRY = M\n"
    )


@pytest.mark.parametrize("arm", [
    # review5 finding 4 (probe c2/m2.py): nn.Identity, nn.Dropout in eval hand back their input itself,
    # and torch.cond raised on every call (aliasing during higher order op tracing)
    "self.skip(x)", "self.drop(x)",
    # review6 (probe p2): the conjugate of a real tensor is the tensor itself
    "x.conj()", "torch.conj(x)",
])
def test_an_arm_that_may_return_its_input_is_cloned(arm: str, tmp_path: Path) -> None:
    source = _with_arms("self.norm(x)", arm)
    case = tmp_path / "passing_arm.py"
    case.write_text(source, encoding="utf-8")
    changes = fix_paths([str(case)], Config(), unsafe=True)
    assert changes and "torch.cond(" in changes[0].after
    rewritten = tmp_path / "passing_arm_fixed.py"
    rewritten.write_text(changes[0].after, encoding="utf-8")
    tag = str(abs(hash(arm)))
    before = build_entry(load_module(case, tmp_path, f"passing_before_{tag}"))
    after = build_entry(load_module(rewritten, tmp_path, f"passing_after_{tag}"))
    for x in (torch.tensor([[1.0, 2.0, 3.0]]), torch.tensor([[-1.0, -2.0, 0.5]])):  # both branches
        x_before, x_after = x.clone().requires_grad_(), x.clone().requires_grad_()
        out_before, out_after = before(x_before), after(x_after)  # the rewrite runs (no aliasing error)
        assert torch.equal(out_before, out_after)
        out_before.sum().backward()
        out_after.sum().backward()
        assert torch.equal(x_before.grad, x_after.grad)


def test_an_arm_computing_a_new_tensor_is_not_cloned(tmp_path: Path) -> None:
    case = tmp_path / "fresh_arms.py"
    case.write_text(_with_arms("self.norm(x)", "x * 2"), encoding="utf-8")
    changes = fix_paths([str(case)], Config(), unsafe=True)
    assert changes and "torch.cond(" in changes[0].after
    assert "return self.norm(x)\n" in changes[0].after and ".clone()" not in changes[0].after
