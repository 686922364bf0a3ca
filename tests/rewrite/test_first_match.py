"""The first match's position, `(self.table == t).nonzero(as_tuple=True)[0][0]`, taken with
`(self.table == t).int().argmax()` (rewrite/shapes/first_match.py).

The fixture pair tests/fixtures/rewrite/first_match/previous_timestep is run by
test_fixture_pairs.py (the exact rewrite, bit-identical eager outputs, fewer breaks). Here: the
Dynamo and eager facts the rewrite rests on (measured on torch 2.13), the rewritten scheduler over
every timestep of every spacing, eager and compiled, and the cases that must get no fix.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from fixture_support import FIXTURES, fix_source, load_module

from graphmend_bot.config import Config
from graphmend_bot.engine import check
from graphmend_bot.findings import Finding
from graphmend_bot.rewrite import attach_fixes

CASE = FIXTURES / "first_match" / "previous_timestep.in.py"
FIRST_MATCH_FORMS = {
    "nonzero(as_tuple=True)": lambda c: c.nonzero(as_tuple=True)[0][0],
    "nonzero()": lambda c: c.nonzero()[0][0],
    "torch.nonzero": lambda c: torch.nonzero(c)[0][0],
    "torch.where": lambda c: torch.where(c)[0][0],
}


@pytest.mark.parametrize("form", sorted(FIRST_MATCH_FORMS))
def test_every_first_match_form_is_argmax_on_a_1d_condition(form: str) -> None:
    first = FIRST_MATCH_FORMS[form]
    for size in (1, 2, 7):
        for mask in range(1, 2**size):  # every non-empty set of matches, repeated ones included
            condition = torch.tensor([bool(mask >> bit & 1) for bit in range(size)])
            expected, got = first(condition), condition.int().argmax()
            assert (got.shape, got.dtype, got.device) == (expected.shape, expected.dtype, expected.device) == (
                torch.Size([]), torch.int64, condition.device)
            assert torch.equal(got, expected), (form, condition)


def test_the_differences_the_fix_states_or_refuses() -> None:
    no_match = torch.tensor([False, False, False])
    with pytest.raises(IndexError):
        no_match.nonzero(as_tuple=True)[0][0]
    assert no_match.int().argmax().item() == 0  # the assumption: the value occurs
    two_d = torch.tensor([[False, False], [False, True]])
    assert two_d.nonzero(as_tuple=True)[0][0].item() == 1 and two_d.int().argmax().item() == 3  # a row vs a flat index
    with pytest.raises(IndexError):
        torch.tensor([], dtype=torch.bool).int().argmax()  # empty: both raise


def _explain(fn: object, *args: object) -> int:
    torch._dynamo.reset()
    return torch._dynamo.explain(fn)(*args).graph_break_count


def test_dynamo_breaks_on_nonzero_and_not_on_argmax() -> None:
    table = torch.arange(90, -1, -10)

    def original(table: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        table = table * 1  # a tensor op first: explain counts no break at a frame's first statement
        return (table == t).nonzero(as_tuple=True)[0][0]

    def rewritten(table: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        table = table * 1
        return (table == t).int().argmax()

    for t in (torch.tensor(30), 30):
        assert _explain(original, table, t) == 1
        assert _explain(rewritten, table, t) == 0
    torch._dynamo.reset()
    assert torch.compile(rewritten, fullgraph=True, backend="eager")(table, torch.tensor(0)).item() == 9


def test_why_the_previous_timestep_select_is_not_rewritten() -> None:
    # After the argmax, `if index == n - 1: -1 else table[index + 1]` as a torch.where (the clamp
    # because both arms run) still breaks: indexing with a computed 0-d tensor reads its value.
    table = torch.arange(90, -1, -10)

    def select(table: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        table = table * 1
        index = (table == t).int().argmax()
        last = table.shape[0] - 1
        return torch.where(index == last, torch.tensor(-1), table[(index + 1).clamp(max=last)])

    torch._dynamo.reset()
    explained = torch._dynamo.explain(select)(table, torch.tensor(30))
    assert explained.graph_break_count == 1
    assert "_local_scalar_dense" in str(explained.break_reasons[0].reason)
    assert [select(table, t).item() for t in (torch.tensor(30), torch.tensor(0))] == [20, -1]


def test_the_rewritten_scheduler_matches_over_every_timestep_and_spacing(tmp_path: Path) -> None:
    before = load_module(CASE, tmp_path, "first_match_before")
    after = load_module(CASE.with_name("previous_timestep.out.py"), tmp_path, "first_match_after")
    sample = torch.randn(2, 3)
    checked = 0
    settings = [{"spacing": spacing} for spacing in ("linspace", "leading", "trailing")] + [{"timesteps": [90, 50, 7, 0]}]
    for setting in settings:
        old, new = before.Scheduler(), after.Scheduler()
        steps = None if "timesteps" in setting else 10
        old.set_timesteps(steps, **setting)
        new.set_timesteps(steps, **setting)
        torch._dynamo.reset()
        compiled = torch.compile(new, backend="eager")
        for timestep in (*old.timesteps, *(int(t) for t in old.timesteps)):
            expected = old(sample, timestep)[1]
            for got in (new(sample, timestep)[1], compiled(sample, timestep)[1]):
                assert got.dtype == expected.dtype and torch.equal(got, expected), (setting, timestep)
                checked += 1
    assert checked == 2 * 2 * (3 * 10 + 4)


SOURCE = CASE.read_text(encoding="utf-8").replace("# fixture: unsafe-fixes\n", "")
ORIGINAL = "(self.timesteps == timestep).nonzero(as_tuple=True)[0][0]"
ACCEPTED = {
    "nonzero()": "(self.timesteps == timestep).nonzero()[0][0]",
    "torch.nonzero": "torch.nonzero(self.timesteps == timestep)[0][0]",
    "torch.where": "torch.where(timestep == self.timesteps)[0][0]",
}
REFUSED = {
    "the last match": (ORIGINAL, "(self.timesteps == timestep).nonzero(as_tuple=True)[0][-1]"),
    "the second match": (ORIGINAL, "(self.timesteps == timestep).nonzero(as_tuple=True)[0][1]"),
    "all matches": (ORIGINAL, "(self.timesteps == timestep).nonzero(as_tuple=True)[0]"),
    "another comparison": (ORIGINAL, "(self.timesteps >= timestep).nonzero(as_tuple=True)[0][0]"),
    "a value of unknown rank": ("timestep: int)", "timestep)"),
    "a 2-d table": (
        "self.timesteps = torch.from_numpy(timesteps)",
        "self.timesteps = torch.from_numpy(timesteps).reshape(2, -1)",
    ),
    "a table of unknown rank": (
        "self.timesteps = torch.from_numpy(timesteps)", "self.timesteps = torch.from_numpy(np.load('t.npy'))"
    ),
    "an undocumented list": ("timesteps: list[int] | None = None", "timesteps=None"),
    "a step ratio of unknown rank": ("self.num_inference_steps = num_inference_steps", "self.num_inference_steps = torch.ones(2, 1)"),
    "numpy's ndmin": ("np.array(timesteps, dtype=np.int64)", "np.array(timesteps, dtype=np.int64, ndmin=2)"),
    "linspace between arrays": ("np.linspace(0, self.num_train_timesteps - 1,", "np.linspace([0, 1], self.num_train_timesteps - 1,"),
    "a numpy table": ("self.timesteps = torch.from_numpy(timesteps)", "self.timesteps = timesteps"),
    "a table unpacked": (
        "self.timesteps = torch.from_numpy(np.arange(0, num_train_timesteps)[::-1].copy())",
        "self.timesteps, self.other = torch.zeros(2, 2), 1",
    ),
    # bound where no `self.timesteps = ...` shows the value (a review found the 2-d buffer accepted)
    "a registered 2-d buffer": (
        "        self.custom_timesteps = False\n",
        "        self.custom_timesteps = False\n        self.register_buffer(\"timesteps\", torch.zeros(2, 2))\n",
    ),
    "a class-level table": ("class Scheduler(nn.Module):\n", "class Scheduler(nn.Module):\n    timesteps = torch.zeros(2, 2)\n"),
    "a table set by setattr": (
        "        self.custom_timesteps = False\n",
        "        self.custom_timesteps = False\n        setattr(self, \"timesteps\", torch.zeros(2, 2))\n",
    ),
    "an attribute set by a computed name": (
        "        self.custom_timesteps = False\n",
        "        self.custom_timesteps = False\n        setattr(self, \"time\" + \"steps\", torch.zeros(2, 2))\n",
    ),
    "a loop target": (
        "        self.custom_timesteps = False\n",
        "        self.custom_timesteps = False\n        for self.timesteps in [torch.zeros(2, 2)]:\n            pass\n",
    ),
    # `end += offsets` rebinds a number to an array: linspace then makes one column per offset
    "an end point made an array": (
        "                timesteps = np.linspace(0, self.num_train_timesteps - 1,",
        "                end = self.num_train_timesteps - 1\n                end += np.array([0, 1])\n"
        "                timesteps = np.linspace(0, end,",
    ),
}


def nonzero_findings(source: str, tmp_path: Path) -> list[Finding]:
    path = tmp_path / "case.py"
    path.write_text(source, encoding="utf-8")
    return [f for f in attach_fixes(check([str(path)]), Config()).findings if f.code == "GM501"]


def test_a_base_class_outside_nn_module_is_a_stated_assumption(tmp_path: Path) -> None:
    source = SOURCE.replace("class Scheduler(nn.Module):", "class Scheduler(SchedulerMixin, nn.Module):")
    (finding,) = nonzero_findings(source, tmp_path)
    assert finding.fix is not None
    assert any("`SchedulerMixin`" in note and "`self.timesteps`" in note for note in finding.fix.assumptions)
    (plain,) = nonzero_findings(SOURCE, tmp_path)
    assert plain.fix is not None and not any("base classes" in note for note in plain.fix.assumptions)


def test_the_fix_is_unsafe_and_says_the_value_must_occur(tmp_path: Path) -> None:
    (finding,) = nonzero_findings(SOURCE, tmp_path)
    assert finding.fix is not None and finding.fix.applicability == "unsafe"
    assert any("occurs in `self.timesteps`" in note and "IndexError" in note for note in finding.fix.assumptions)
    assert fix_source(SOURCE, tmp_path) == SOURCE, "a safe-only --fix must leave it"


@pytest.mark.parametrize("form", sorted(ACCEPTED))
def test_the_other_first_match_forms_get_the_same_rewrite(form: str, tmp_path: Path) -> None:
    source = SOURCE.replace(ORIGINAL, ACCEPTED[form])
    fixed = fix_source("# fixture: unsafe-fixes\n" + source, tmp_path)
    assert ACCEPTED[form] not in fixed
    assert "index = (self.timesteps == timestep).int().argmax()" in fixed or (
        "index = (timestep == self.timesteps).int().argmax()" in fixed
    )


@pytest.mark.parametrize("why", sorted(REFUSED))
def test_no_fix_unless_the_first_match_of_a_proven_1d_condition(why: str, tmp_path: Path) -> None:
    old, new = REFUSED[why]
    source = SOURCE.replace(old, new)
    assert source != SOURCE
    findings = nonzero_findings(source, tmp_path)
    assert findings, "the nonzero must still be reported"
    assert all(f.fix is None or "argmax" not in f.fix.title for f in findings), [f.fix for f in findings]
