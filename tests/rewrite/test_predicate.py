"""torch.where rewrites (rewrite/branches/predicate.py): what is offered, how safe, and what is left alone.

The fixture pairs under tests/fixtures/rewrite/predicate/ are run by test_fixture_pairs.py
(rewrite, bit-identical outputs, fewer breaks); here: the safety verdicts, the analysis rules,
the cases that must get no fix, and the Phi-3 LongRoPE branch of the installed transformers.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
import types
from pathlib import Path

import libcst as cst
import pytest
import torch
from fixture_support import FIXTURES, break_count

from graphmend_bot.config import Config
from graphmend_bot.engine import check
from graphmend_bot.findings import Finding
from graphmend_bot.rewrite import attach_fixes, fix_paths
from graphmend_bot.rewrite.context import Rejected
from graphmend_bot.rewrite.purity import ArmAnalyzer, dtype_assumption

PREDICATE = FIXTURES / "predicate"


def findings_with_fixes(source: str, tmp_path: Path, codes: tuple[str, ...] = ("GM101", "GM102", "GM103")) -> list[Finding]:
    path = tmp_path / "case.py"
    path.write_text(source, encoding="utf-8")
    result = attach_fixes(check([str(path)]), Config())
    return [f for f in result.findings if f.code in codes]


def only_fix(source: str, tmp_path: Path) -> Finding:
    (finding,) = findings_with_fixes(source, tmp_path)
    assert finding.fix is not None
    return finding


def compiled(body: str) -> str:
    return f"import torch\n\n\n{body}\n\ncompiled = torch.compile(f)\n"


@pytest.mark.parametrize("case", sorted(p.name for p in PREDICATE.glob("neg_*.in.py")))
def test_cases_that_must_be_left_alone_get_no_fix(case: str, tmp_path: Path) -> None:
    findings = findings_with_fixes((PREDICATE / case).read_text(), tmp_path)
    assert findings, "the fixture must still be reported"
    assert all(f.fix is None for f in findings), [f.fix for f in findings]


@pytest.mark.parametrize(
    ("case", "applicability", "says"),
    [
        # an arm subtracts from a parameter that may be a bool tensor (partial_operators.py)
        ("if_else_assign", "unsafe", "`x` is not a bool tensor: `-` raises on bool tensors"),
        ("elif_chain", "unsafe", "`x`, `y` are not bool tensors"),
        ("ternary", "unsafe", "`self.bias`, `x` are not bool tensors"),
        ("early_return", "unsafe", "`x`, `y` are not bool tensors"),
        ("bool_ops", "safe", "`out`"),
        ("attribute_both_arms", "safe", "select"),
        ("else_less_update", "safe", "`x`"),
        ("sqrt_autograd", "unsafe", "`sqrt`"),
        ("phi3_longrope", "unsafe", "same shape and dtype"),
        ("fp16_clamp", "safe", "`hidden_states`"),
        ("static_prefix", "safe", "`scores`"),
        ("bool_values", "safe", "torch.logical_"),
    ],
)
def test_fixture_verdicts(case: str, applicability: str, says: str, tmp_path: Path) -> None:
    findings = findings_with_fixes((PREDICATE / f"{case}.in.py").read_text(), tmp_path)
    fixes = {f.fix for f in findings}
    assert None not in fixes
    assert {fix.applicability for fix in fixes if fix} == {applicability}
    assert any(says.lower() in fix.message.lower() for fix in fixes if fix)


def test_safe_fixes_only_leave_unsafe_ones_as_reports(tmp_path: Path) -> None:
    path = tmp_path / "case.py"
    path.write_text((PREDICATE / "sqrt_autograd.in.py").read_text(), encoding="utf-8")
    assert fix_paths([str(path)], Config(), unsafe=False) == []
    (change,) = fix_paths([str(path)], Config(), unsafe=True)
    assert "y = torch.where(x.min() >= 0, torch.sqrt(x), x * x)" in change.after


def test_import_is_added_once_for_several_fixes(tmp_path: Path) -> None:
    source = (
        "from torch import nn\n\n\nclass M(nn.Module):\n    def forward(self, x):\n"
        "        if x.sum() > 0:\n            y = x + 1\n        else:\n            y = x - 1\n"
        "        z = y * 2 if y.max() > 1 else y * 3\n        return z\n"
    )
    path = tmp_path / "case.py"
    path.write_text(source, encoding="utf-8")
    (change,) = fix_paths([str(path)], Config(), unsafe=True)  # `x - 1`: `x` may be a bool tensor
    assert change.after.count("import torch\n") == 1
    assert "y = torch.where(x.sum() > 0, x + 1, x - 1)" in change.after
    assert "z = torch.where(y.max() > 1, y * 2, y * 3)" in change.after


@pytest.mark.parametrize(
    "body",
    [
        # an elementwise condition may have shape (1,), which would broadcast 0-d arms
        "def f(x):\n    if x.abs() > 0:\n        y = x + 1\n    else:\n        y = x - 1\n    return y",
        # a reduction over a dimension is not 0-d
        "def f(x):\n    if x.sum(0) > 0:\n        y = x + 1\n    else:\n        y = x - 1\n    return y",
        # an arm calls a function torch.where cannot know is pure (and torch.cond cannot take:
        # the arm prints)
        "def f(x):\n    if x.sum() > 0:\n        y = helper(x)\n        print(y)\n    else:\n        y = x\n    return y",
        # the second target reads the first: order matters
        "def f(x):\n    if x.sum() > 0:\n        a = x + 1\n        b = a * 2\n    else:\n        a = x\n        b = x\n    return a + b",
        # the target has no value on the other path
        "def f(x):\n    if x.sum() > 0:\n        fresh = x + 1\n    return x",
        # integer division by a tensor raises on integer zero when evaluated eagerly
        "def f(x, y):\n    if x.sum() > 0:\n        z = x // y\n    else:\n        z = x\n    return z",
        # a Python bool operand cannot go through torch.logical_and
        "def f(x, flag):\n    if flag and x.sum() > 0:\n        y = x + 1\n    else:\n        y = x - 1\n    return y",
    ],
    ids=["elementwise-condition", "dim-reduction", "impure-call", "dependent-targets", "unbound-target", "floordiv", "python-bool"],
)
def test_unprovable_branches_get_no_torch_where(body: str, tmp_path: Path) -> None:
    findings = findings_with_fixes(compiled("def helper(x):\n    return x\n\n\n" + body), tmp_path)
    assert findings
    assert all(f.fix is None or "torch.where" not in f.fix.edits[-1].content for f in findings)


def test_static_prefix_stays_python_and_temporaries_are_hoisted(tmp_path: Path) -> None:
    body = (
        "def f(h, training: bool = True):\n"
        "    if training and torch.isinf(h).any() or torch.isnan(h).any():\n"  # `or` at top: no split
        "        h = h * 0\n"
        "    h = h.float()\n"  # proven floating: torch.finfo(h.dtype) cannot raise on the other path
        "    if training and torch.isinf(h).any():\n"
        "        bound = torch.finfo(h.dtype).max - 1000\n"
        "        h = torch.clamp(h, min=-bound, max=bound)\n"
        "    return h.softmax(-1)"  # not `h` itself: `h.float()` may be the caller's tensor (test_selection_escapes.py)
    )
    findings = findings_with_fixes(compiled(body), tmp_path)
    assert len(findings) == 2
    mixed, split = findings
    assert mixed.fix is None  # `training` is a Python bool: no logical_or over it
    assert split.fix is not None and split.fix.applicability == "safe", split.fix.message
    unproven = findings_with_fixes(compiled(body.replace("    h = h.float()\n", "")), tmp_path)[1]
    assert unproven.fix is None  # torch.finfo(h.dtype) would raise for an integer `h` where the branch was not taken
    assert split.fix.edits[-1].content.startswith("if training:\n        bound = torch.finfo(h.dtype).max - 1000\n")


def test_temporary_read_after_the_branch_is_not_hoisted(tmp_path: Path) -> None:
    body = (
        "def f(h):\n"
        "    bound = 1.0\n"
        "    if torch.isinf(h).any():\n"
        "        bound = torch.finfo(h.dtype).max\n"
        "        h = torch.clamp(h, min=-bound, max=bound)\n"
        "    return h * bound"
    )
    (finding,) = findings_with_fixes(compiled(body), tmp_path)
    assert finding.fix is None


def test_bool_operators_outside_if(tmp_path: Path) -> None:
    body = (
        "def f(x, y, flag: bool):\n"
        "    negated = not (x > 0).any()\n"  # a Python bool becomes a tensor: unsafe
        "    summed = x.sum() and y.sum()\n"  # not bool tensors: `and` returns a float tensor
        "    return negated, summed"
    )
    findings = {f.source_line.strip(): f.fix for f in findings_with_fixes(compiled(body), tmp_path)}
    negated = findings["negated = not (x > 0).any()"]
    assert negated is not None and negated.applicability == "unsafe" and "Python bool" in negated.message
    assert findings["summed = x.sum() and y.sum()"] is None


def test_elif_findings_build_one_identical_edit(tmp_path: Path) -> None:
    findings = findings_with_fixes((PREDICATE / "elif_chain.in.py").read_text(), tmp_path)
    assert len(findings) == 2
    first, second = (f.fix for f in findings)
    assert first is not None and first == second


def analyze(code: str) -> tuple[frozenset[str], int] | str:
    try:
        info = ArmAnalyzer().analyze(cst.parse_expression(code))
    except Rejected as rejected:
        return f"rejected: {rejected}"
    return info.leaves, info.category


def test_arm_analysis_tracks_leaves_and_scalar_category() -> None:
    assert analyze("x * 2 + y") == (frozenset({"x", "y"}), 2)
    assert analyze("torch.exp(x) - self.bias") == (frozenset({"x", "self.bias"}), 3)
    assert analyze("x / 2")[1] == 3
    assert str(analyze("x @ w")).startswith("rejected")
    assert str(analyze("x.sum(0)")).startswith("rejected")
    assert str(analyze("x.add_(1)")).startswith("rejected")
    assert str(analyze("x.T + 1")).startswith("rejected")
    assert str(analyze("~x")).startswith("rejected")  # may not be bool
    assert analyze("~(x > 0)") == (frozenset({"x"}), 0)


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("x + 1", "x - 1", None),
        ("x + y", "y * x", None),
        ("x * 0.5", "x", "floating-point"),
        ("x * 2", "x", "not bool"),
        ("x", "y", "same shape and dtype"),
        ("x > 0", "x", "same shape and dtype"),
    ],
)
def test_dtype_assumptions(a: str, b: str, expected: str | None) -> None:
    analyzer = ArmAnalyzer()
    note = dtype_assumption(analyzer.analyze(cst.parse_expression(a)), analyzer.analyze(cst.parse_expression(b)), "arms")
    assert (note is None) if expected is None else (note is not None and expected in note)


def test_risky_operators_are_reported_for_autograd() -> None:
    analyzer = ArmAnalyzer()
    assert analyzer.analyze(cst.parse_expression("torch.sqrt(x) + x.log()")).risky == ("sqrt", "log")
    assert analyzer.analyze(cst.parse_expression("x / y")).risky == ("/",)
    assert analyzer.analyze(cst.parse_expression("x / 2")).risky == ()
    assert analyzer.analyze(cst.parse_expression("x ** 2")).risky == ()
    assert analyzer.analyze(cst.parse_expression("x ** 0.5")).risky == ("**",)


def test_unselected_sqrt_arm_really_poisons_gradients() -> None:
    """Why `sqrt_autograd` is unsafe: the rewrite's forward is identical, its gradient is not."""
    x = torch.tensor([-1.0, 4.0], requires_grad=True)
    torch.where(x.min() >= 0, torch.sqrt(x), x * x).sum().backward()
    assert x.grad is not None and torch.isnan(x.grad).any()
    branch = torch.tensor([-1.0, 4.0], requires_grad=True)
    (branch * branch).sum().backward()
    assert branch.grad is not None and not torch.isnan(branch.grad).any()


# -- Phi-3 LongRoPE in the installed transformers 4.52.4 --------------------------------------------


def _transformers_dir() -> Path:
    spec = importlib.util.find_spec("transformers")
    assert spec is not None and spec.origin is not None
    return Path(spec.origin).parent


@pytest.fixture(scope="module")
def fixed_rope_source(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """modeling_rope_utils.py before and after `--fix --unsafe-fixes`, with Phi-3 as scope context."""
    source_dir = _transformers_dir()
    root = tmp_path_factory.mktemp("tf") / "transformers"
    (root / "models" / "phi3").mkdir(parents=True)
    shutil.copyfile(source_dir / "modeling_rope_utils.py", root / "modeling_rope_utils.py")
    shutil.copyfile(source_dir / "models" / "phi3" / "modeling_phi3.py", root / "models" / "phi3" / "modeling_phi3.py")
    for package in (root, root / "models", root / "models" / "phi3"):
        (package / "__init__.py").write_text("", encoding="utf-8")
    changes = {Path(c.path).name: c for c in fix_paths([str(root)], Config(), unsafe=True)}
    change = changes["modeling_rope_utils.py"]
    return change.before, change.after


def test_phi3_longrope_branch_becomes_torch_where(fixed_rope_source: tuple[str, str]) -> None:
    before, after = fixed_rope_source
    assert "        if seq_len > original_max_position_embeddings:\n            if not hasattr" in before
    assert "torch.where(seq_len > original_max_position_embeddings, self.long_inv_freq, self.original_inv_freq)" in after
    assert "if seq_len > original_max_position_embeddings:" not in after
    # the maintainers' comment on the .to() is kept
    assert "# This .to() is needed if the model has been moved to a device" in after


def _phi3(rope_module: object) -> torch.nn.Module:
    from transformers import Phi3Config, Phi3ForCausalLM
    from transformers.models.phi3 import modeling_phi3

    head_dim = 16
    config = Phi3Config(
        vocab_size=96, hidden_size=64, intermediate_size=96, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=4, max_position_embeddings=64, original_max_position_embeddings=8, pad_token_id=0,
        rope_scaling={"type": "longrope", "short_factor": [1.0] * (head_dim // 2), "long_factor": [2.5] * (head_dim // 2)},
    )
    torch.manual_seed(0)
    model = Phi3ForCausalLM(config).eval()
    # Phi3RotaryEmbedding.forward is `torch.no_grad()(dynamic_rope_update(forward))`: rebuild it
    # with the given module's dynamic_rope_update, on this model's rotary embedding only.
    undecorated = modeling_phi3.Phi3RotaryEmbedding.forward.__wrapped__.__wrapped__
    forward = torch.no_grad()(rope_module.dynamic_rope_update(undecorated))  # type: ignore[attr-defined]
    rotary = model.model.rotary_emb
    rotary.forward = types.MethodType(forward, rotary)
    return model


def test_phi3_longrope_fix_keeps_outputs_and_removes_breaks(fixed_rope_source: tuple[str, str], tmp_path: Path) -> None:
    before, after = fixed_rope_source
    modules = []
    for name, text in (("rope_before", before), ("rope_after", after)):
        path = tmp_path / f"{name}.py"
        path.write_text(text, encoding="utf-8")
        # A submodule of the installed package, so its relative imports resolve.
        spec = importlib.util.spec_from_file_location(f"transformers._graphmend_test_{name}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        modules.append(module)
    original, rewritten = (_phi3(m) for m in modules)
    with torch.no_grad():
        for length in (5, 20, 6, 13):  # short, long, short again (buffer switches back), long
            ids = torch.randint(1, 96, (1, length), generator=torch.Generator().manual_seed(length))
            assert torch.equal(original(ids).logits, rewritten(ids).logits)
    ids = torch.randint(1, 96, (1, 20), generator=torch.Generator().manual_seed(0))
    assert break_count(original, (ids,)) > 0
    assert break_count(rewritten, (ids,)) == 0


SCALED_BRANCH = "    if h.sum() > 0:\n        h = h * 3\n    else:\n        h = h / 3\n    return h\n"


@pytest.mark.parametrize(
    ("source", "applicability"),
    [
        # a parameter may be an integer tensor: `h * 3` stays integer, `h / 3` does not (refused)
        ("def f(x):\n    h = x\n" + SCALED_BRANCH + "\ncompiled = torch.compile(f)\n", None),
        ("def f(x):\n    h = torch.randn(4)\n" + SCALED_BRANCH + "\ncompiled = torch.compile(f)\n", "safe"),
        ("def f(x):\n    h = x.float() * 2\n" + SCALED_BRANCH + "\ncompiled = torch.compile(f)\n", "safe"),
        ("def f(x):\n    h = torch.zeros(4, dtype=torch.int64)\n" + SCALED_BRANCH + "\ncompiled = torch.compile(f)\n", None),
        (
            "class M(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
            "        self.proj = torch.nn.Linear(4, 4)\n\n    def forward(self, x):\n        h = self.proj(x)\n"
            + SCALED_BRANCH.replace("    ", "        ").replace("            return", "        return"),
            "safe",
        ),
    ],
    ids=["parameter", "randn", "float-conversion", "int-factory", "linear-output"],
)
def test_dtype_facts_make_the_where_rewrite_safe(source: str, applicability: str | None, tmp_path: Path) -> None:
    """Arms whose dtypes differ unless the value is floating: safe where that is proven, refused
    where it is not (torch.where would return the float arm's dtype on both paths)."""
    (finding,) = findings_with_fixes("import torch\n\n\n" + source, tmp_path)
    if applicability is None:
        assert finding.fix is None
        return
    assert finding.fix is not None and "torch.where" in finding.fix.edits[-1].content
    assert finding.fix.applicability == applicability, finding.fix.message


def test_a_floating_last_assignment_before_the_branch_makes_it_safe(tmp_path: Path) -> None:
    """`h` is a parameter, but the value the branch reads comes from a LayerNorm; a loop in
    between (which may rebind it after the branch) leaves it unproven."""
    module = (
        "import torch\n\n\nclass M(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.norm = torch.nn.LayerNorm(4)\n\n    def forward(self, h):\n        h = self.norm(h)\n"
        "        if self.training:\n            if torch.isinf(h).any():\n"
        "                bound = torch.finfo(h.dtype).max - 1000\n                h = torch.clamp(h, min=-bound, max=bound)\n"
        "        return h\n"
    )
    finding = only_fix(module, tmp_path)
    assert finding.fix is not None and finding.fix.applicability == "safe", finding.fix.message
    looped = module.replace("        if self.training:\n", "        for _ in range(2):\n            h = h.long()\n            if self.training:\n                pass\n        if self.training:\n")
    (finding,) = findings_with_fixes(looped, tmp_path)
    assert finding.fix is None  # unproven: `torch.clamp(h, ...)` and `h` may differ in dtype


def test_selecting_parameters_gets_no_fix(tmp_path: Path) -> None:
    """MONAI's VISTA3D picks one of two `nn.Embedding(1, dim)` weights per class: torch.where gives
    the unselected weight a zero gradient where the branch gave it none. The rewrite check measured
    that gradient change on VISTA3D's point head (every prompted class a supported one), so the
    rewrite is withdrawn, not kept as an unsafe fix."""
    source = (
        "import torch\nfrom torch import nn\n\n\nclass Pick(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n"
        "        self.a = nn.Embedding(1, 4)\n        self.b = nn.Embedding(1, 4)\n\n"
        "    def forward(self, x):\n        if x.sum() > 0:\n            y = self.a.weight\n"
        "        else:\n            y = self.b.weight\n        return x * y\n"
    )
    (finding,) = findings_with_fixes(source, tmp_path)
    assert finding.fix is None, finding.fix.message
    a, b = torch.nn.Parameter(torch.ones(1, 4)), torch.nn.Parameter(torch.ones(1, 4))
    torch.where(torch.tensor(True), a, b).sum().backward()
    assert b.grad is not None and torch.equal(b.grad, torch.zeros(1, 4))  # the branch left it None


def _arm(code: str) -> cst.BaseExpression:
    return cst.parse_expression(code)


@pytest.mark.parametrize(
    "code",
    [
        "torch.tensor(x)",  # a tensor value: a copy, not a constant
        "torch.tensor(1e-6, requires_grad=True)",  # a new leaf of autograd
        "torch.tensor(1e-6, dtype=pick(x))",  # a computed dtype may run anything
        "torch.ones(3)",  # not 0-d: broadcasting would change the other arm's shape
        "torch.full((2,), 1.0)",
        "torch.tensor([1.0, 2.0])",
    ],
)
def test_only_zero_d_constants_are_constant_tensor_arms(code: str) -> None:
    with pytest.raises(Rejected):
        ArmAnalyzer().analyze(_arm(code))


def test_a_constant_tensor_arm_is_a_tensor_whose_agreement_with_a_computed_arm_is_an_assumption() -> None:
    analyzer = ArmAnalyzer()
    constant = analyzer.analyze(_arm("torch.tensor(1e-6, dtype=dtype, device=device)"))
    same = analyzer.analyze(_arm("torch.ones((), dtype=dtype, device=device)"))
    computed = analyzer.analyze(_arm("0.01 * d0 / d1"))
    assert constant.leaves  # a tensor, never taken for a Python value
    assert dtype_assumption(constant, same, "the arms") is None  # both 0-d, the same named dtype
    assert dtype_assumption(constant, computed, "the arms") == "assumes the arms have the same shape and dtype"
    other = analyzer.analyze(_arm("torch.tensor(1, device=device)"))
    assert dtype_assumption(constant, other, "the arms") is not None  # int64 vs `dtype`


def test_initial_step_constant_arm_is_refused(tmp_path: Path) -> None:
    """A constant of a named dtype against a computed value: torch.where would promote both to one
    dtype (the fix was offered as unsafe before issue 24)."""
    (finding,) = findings_with_fixes((PREDICATE / "neg_constant_tensor_arm.in.py").read_text(), tmp_path)
    assert finding.fix is None


def test_early_returns_with_a_tail_are_unsafe_and_say_why(tmp_path: Path) -> None:
    finding = findings_with_fixes((PREDICATE / "early_returns_tail.in.py").read_text(), tmp_path)[0]
    assert finding.fix is not None and finding.fix.applicability == "unsafe"
    message = finding.fix.message
    assert "computes `slope` on every path" in message and "NaN" in message
    assert "0-d" in message


@pytest.mark.parametrize(
    "tail",
    [
        "    t = t * 2\n    return y0 + t\n",  # the hoisted name is read by the test above it
        "    print(t)\n    return y0 + t\n",  # a statement with an effect
        "    slope = torch.linalg.solve(t, t1)\n    return y0 * slope\n",  # not elementwise: may raise
        "    slope = t - t1\n",  # no final return
    ],
    ids=["rebinds-a-read-name", "side-effect", "not-elementwise", "no-return"],
)
def test_early_return_tails_that_cannot_be_hoisted_get_no_fix(tail: str, tmp_path: Path) -> None:
    source = (
        "import torch\n\n\ndef interp(t0, t1, y0, t):\n    if t == t0:\n        return y0\n"
        f"{tail}\n\ndef run(ts, y0):\n    t0, t1, t = torch.unbind(ts)\n    return interp(t0, t1, y0, t)\n\n\n"
        "compiled = torch.compile(run)\n"
    )
    findings = findings_with_fixes(source, tmp_path)
    assert findings, "the early return must still be reported"
    assert all(f.fix is None for f in findings), [f.fix for f in findings]


PARENTHESISED = '''import torch


def f(x, y):
    z = (x * 2 if (x > 0).all() else y) + 1
    w = ((x > 0).all() and (y > 0).all())
    v = (not (x > 0).all()) + 1
    return z, w, v


compiled = torch.compile(f)
'''


def test_parenthesised_expressions_keep_one_pair_of_parentheses(tmp_path: Path) -> None:
    """The span of a parenthesised expression leaves its parentheses out: a fix that added its own
    doubled them (`((torch.where(...)))`). A call needs none; an operator form keeps the original pair."""
    path = tmp_path / "parens.py"
    path.write_text(PARENTHESISED, encoding="utf-8")
    [change] = fix_paths([str(path)], Config(), unsafe=True)
    assert "    z = torch.where((x > 0).all(), x * 2, y) + 1\n" in change.after
    assert "    w = ((x > 0).all() & (y > 0).all())\n" in change.after
    assert "    v = (~(x > 0).all()) + 1\n" in change.after
    namespace: dict[str, object] = {}
    exec(compile(PARENTHESISED, "before", "exec"), namespace)
    before = namespace["f"]
    exec(compile(change.after, "after", "exec"), namespace)
    for x, y in ((torch.ones(3), torch.zeros(3)), (-torch.ones(3), torch.ones(3))):
        for old, new in zip(before(x, y), namespace["f"](x, y), strict=True):  # type: ignore[operator]
            assert torch.equal(torch.as_tensor(old), torch.as_tensor(new))
