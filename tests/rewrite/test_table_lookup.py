"""A table read guarded by its index's sign (`self.t[i] if i >= 0 else self.f`) selected with
`torch.where(torch.as_tensor(i) >= 0, self.t[i], self.f)` (rewrite/branches/table_lookup.py).

The fixture pair tests/fixtures/rewrite/table_lookup/previous_alpha is run by test_fixture_pairs.py
(the exact rewrite, bit-identical eager outputs for tensor and Python-int timesteps, fewer breaks).
Here: that the form is well-typed for both documented types under Dynamo (a tensor index, a
Python int, a dynamic int), bit-identical over every index, and the cases that must get no fix.
"""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
import torch
from fixture_support import FIXTURES, fix_source, load_module

from graphmend_bot.config import Config
from graphmend_bot.engine import check
from graphmend_bot.findings import Finding
from graphmend_bot.rewrite import attach_fixes
from graphmend_bot.rewrite.branches.table_lookup import proven_tensor_attributes

CASE = FIXTURES / "table_lookup" / "previous_alpha.in.py"
STEPS = 10


def schedulers(tmp_path: Path) -> tuple[torch.nn.Module, torch.nn.Module]:
    before = load_module(CASE, tmp_path, "table_lookup_before")
    after = load_module(CASE.with_name("previous_alpha.out.py"), tmp_path, "table_lookup_after")
    return before.Scheduler(STEPS), after.Scheduler(STEPS)


def breaks(module: torch.nn.Module, *args: object) -> int:
    torch._dynamo.reset()
    return torch._dynamo.explain(module)(*args).graph_break_count


def test_the_rewrite_is_bit_identical_for_every_index_int_or_tensor(tmp_path: Path) -> None:
    before, after = schedulers(tmp_path)
    sample = torch.randn(2, 3)
    compiled = torch.compile(after, backend="eager")
    checked = 0
    for prev in range(-STEPS, STEPS):
        for index in (prev, torch.tensor(prev)):
            expected = before(sample, 3, index)
            for got in (after(sample, 3, index), compiled(sample, 3, index)):
                assert got.dtype == expected.dtype and torch.equal(got, expected), prev
                checked += 1
    assert checked == 4 * 2 * STEPS


def test_the_break_goes_for_a_tensor_timestep_and_none_comes_for_an_int(tmp_path: Path) -> None:
    before, after = schedulers(tmp_path)
    sample = torch.randn(2, 3)
    assert breaks(before, sample, torch.tensor(3), torch.tensor(-1)) == 1
    assert breaks(after, sample, torch.tensor(3), torch.tensor(-1)) == 0
    assert breaks(before, sample, 3, -1) == breaks(after, sample, 3, 2) == 0


def test_a_dynamic_int_timestep_compiles_whole(tmp_path: Path) -> None:
    # `torch.as_tensor(prev_t >= 0)` would fail here: a SymBool cannot become a tensor (measured).
    before, after = schedulers(tmp_path)
    torch._dynamo.reset()
    compiled = torch.compile(after, backend="eager", dynamic=True, fullgraph=True)
    sample = torch.randn(2, 3)
    for t, prev in ((5, 4), (7, 6), (0, -1), (3, 2)):
        assert torch.equal(compiled(sample, t, prev), before(sample, t, prev))


ORIGINAL = "alpha_prev = self.table[prev_t] if prev_t >= 0 else self.one"
TABLE = "self.table = torch.cumprod(torch.linspace(0.9, 0.1, 10), dim=0)"
REFUSED = {
    "the index is another name": (ORIGINAL, "alpha_prev = self.table[t] if prev_t >= 0 else self.one"),
    "another bound": (ORIGINAL, "alpha_prev = self.table[prev_t] if prev_t > 0 else self.one"),
    "a Python fallback": (ORIGINAL, "alpha_prev = self.table[prev_t] if prev_t >= 0 else 1.0"),
    "a computed index": (ORIGINAL, "alpha_prev = self.table[prev_t + 1] if prev_t >= 0 else self.one"),
    "a table made a list": (TABLE, TABLE + ".tolist()"),
    "a fallback set to a float elsewhere": ("    def forward", "    def reset(self):\n        self.one = 1.0\n\n    def forward"),
    "a fallback unpacked from a tuple": ("self.one = torch.tensor(1.0)", "self.one, self.two = torch.tensor(1.0), 2.0"),
    # DDIM `step`: the table read with an index computed in the frame breaks by itself (measured below)
    "an index computed in this frame": ("    def forward(self, sample, t, prev_t):\n",
                                        "    def forward(self, sample, t, step):\n        prev_t = t - step\n"),
    # found in review: both are now read on every call, so each must exist once the object does
    "a fallback set outside __init__": ("        self.one = torch.tensor(1.0)\n",
                                        "\n    def set_final(self):\n        self.one = torch.tensor(1.0)\n"),
    "a fallback set under an if": ("        self.one = torch.tensor(1.0)\n",
                                   "        if True:\n            self.one = torch.tensor(1.0)\n"),
    "a fallback registered as a buffer": ("        self.one = torch.tensor(1.0)\n",
                                          "        self.one = torch.tensor(1.0)\n        self.register_buffer('one', None)\n"),
    "a class-level fallback": ("class Scheduler(nn.Module):\n", "class Scheduler(nn.Module):\n    one = 1.0\n"),
}
TEMPLATE = f'''import torch
from torch import nn


class Scheduler(nn.Module):
    def __init__(self):
        super().__init__()
        {TABLE}
        self.one = torch.tensor(1.0)

    def forward(self, sample, t, prev_t):
        alpha = self.table[t]
        {ORIGINAL}
        return sample * alpha * alpha_prev
'''


def ternary_findings(source: str, tmp_path: Path) -> list[Finding]:
    path = tmp_path / "case.py"
    path.write_text(source, encoding="utf-8")
    return [f for f in attach_fixes(check([str(path)]), Config()).findings if f.code == "GM102"]


def test_the_template_gets_the_unsafe_fix_with_its_assumptions(tmp_path: Path) -> None:
    (finding,) = ternary_findings(TEMPLATE, tmp_path)
    assert finding.fix is not None and finding.fix.applicability == "unsafe"
    assert any("-len(self.table)" in note for note in finding.fix.assumptions)
    fixed = fix_source("# fixture: unsafe-fixes\n" + TEMPLATE, tmp_path)
    assert "torch.where(torch.as_tensor(prev_t) >= 0, self.table[prev_t], self.one)" in fixed
    assert fix_source(TEMPLATE, tmp_path) == TEMPLATE, "a safe-only --fix must leave it"


def test_parentheses_are_not_doubled(tmp_path: Path) -> None:
    one_line = "alpha_prev = (self.table[prev_t] if prev_t >= 0 else self.one)"
    spread = "alpha_prev = (\n            self.table[prev_t]\n            if prev_t >= 0\n            else self.one\n        )"
    where = "torch.where(torch.as_tensor(prev_t) >= 0, self.table[prev_t], self.one)"
    fixed = fix_source("# fixture: unsafe-fixes\n" + TEMPLATE.replace(ORIGINAL, one_line), tmp_path)
    assert f"alpha_prev = {where}\n" in fixed
    fixed = fix_source("# fixture: unsafe-fixes\n" + TEMPLATE.replace(ORIGINAL, spread), tmp_path)
    assert f"alpha_prev = (\n            {where}\n        )\n" in fixed


def test_a_base_class_outside_nn_module_is_a_stated_assumption(tmp_path: Path) -> None:
    (finding,) = ternary_findings(TEMPLATE.replace("(nn.Module)", "(SchedulerMixin, nn.Module)"), tmp_path)
    assert finding.fix is not None
    assert any("`SchedulerMixin`" in note and "`self.one`" in note for note in finding.fix.assumptions)


@pytest.mark.parametrize("why", sorted(REFUSED))
def test_no_fix_when_a_value_is_not_a_proven_tensor_or_the_shape_differs(why: str, tmp_path: Path) -> None:
    old, new = REFUSED[why]
    source = TEMPLATE.replace(old, new)
    assert source != TEMPLATE
    findings = ternary_findings(source, tmp_path)
    assert findings, "the conditional must still be reported"
    assert all(f.fix is None for f in findings), [f.fix for f in findings]


def test_proven_attributes_follow_assignments_to_a_fixed_point() -> None:
    module = cst.parse_module(
        "class S:\n"
        "    def __init__(self, flag, betas):\n"
        "        self.alphas = 1.0 - betas\n"
        "        self.alphas_cumprod = torch.cumprod(self.alphas, dim=0)\n"
        "        self.final = torch.tensor(1.0) if flag else self.alphas_cumprod[0]\n"
        "        self.moved = self.alphas_cumprod.to('cpu')\n"
        "        self.count = 0\n"
        "        self.count += 1\n"
        "        self.ext = self.ext.to('cpu')\n"
        "    def add_noise(self, x):\n"
        "        self.alphas_cumprod = self.alphas_cumprod.to(device=x.device)\n"
    )
    cls = module.body[0]
    assert isinstance(cls, cst.ClassDef)
    # `1.0 - betas` reads an unknown parameter: not proven, though cumprod of it is a tensor; the
    # `.to` in another method keeps `alphas_cumprod` a tensor; `ext` is only ever moved, never made.
    assert proven_tensor_attributes(cls) == {"alphas_cumprod", "final", "moved"}


def test_a_table_read_with_an_index_computed_in_the_frame_breaks_by_itself() -> None:
    """Why `an index computed in this frame` is refused: the select would remove nothing."""
    table, one = torch.rand(100), torch.tensor(1.0)

    def computed_here(t: torch.Tensor) -> torch.Tensor:
        i = t - 20
        return torch.where(torch.as_tensor(i) >= 0, table[i], one) * 2

    def graph_input(t: torch.Tensor, i: torch.Tensor) -> torch.Tensor:
        return torch.where(torch.as_tensor(i) >= 0, table[i], one) * 2

    t = torch.tensor(50)
    torch._dynamo.reset()
    assert torch._dynamo.explain(computed_here)(t).graph_break_count == 1
    torch._dynamo.reset()
    assert torch._dynamo.explain(graph_input)(t, t - 20).graph_break_count == 0
    torch._dynamo.reset()
