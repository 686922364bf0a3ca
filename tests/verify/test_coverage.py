"""Coverage of the rewrite: which rewritten lines the entry points ran, and what that proves."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphmend_bot.verify import ArmSource, EntryPoint, Settings, VerifyReport, verify
from graphmend_bot.verify.coverage import RewrittenLine, changed_lines, tree_changes
from graphmend_bot.verify.proof import proves_rewrite
from graphmend_bot.verify.render import render_json, render_markdown, report_json

ORIGINAL = """import torch


def step(x, verbose=False):
    if x.sum() > 0:
        y = x * 2
    else:
        y = x - 1
    if verbose:
        print("step", y.shape)
    return y


def quiet_case():
    return step, (torch.randn(8) + 1,)


def verbose_case():
    return step, (torch.randn(8) + 1,), {"verbose": True}
"""
REWRITTEN = ORIGINAL.replace(
    """    if x.sum() > 0:
        y = x * 2
    else:
        y = x - 1
""",
    """    y = torch.where(x.sum() > 0, x * 2, x - 1)
""",
).replace(
    """        print("step", y.shape)
""",
    """        if not torch.compiler.is_compiling():
            print("step", y.shape)
""",
)
QUICK = Settings(device="cpu", backend="eager", seeds=(0,), warmup=0, repeat=1, timeout=300)


def line_number(source: str, text: str) -> int:
    (number,) = [n for n, line in enumerate(source.splitlines(), start=1) if text in line]
    return number


@pytest.fixture(scope="module")
def coverage_report(tmp_path_factory: pytest.TempPathFactory) -> VerifyReport:
    root = tmp_path_factory.mktemp("coverage")
    for arm, source in (("original", ORIGINAL), ("rewritten", REWRITTEN)):
        (root / arm).mkdir()
        (root / arm / "model.py").write_text(source, encoding="utf-8")
    entries = [
        EntryPoint("quiet", "model:quiet_case", QUICK),
        EntryPoint("verbose", "model:verbose_case", QUICK),
    ]
    return verify(
        entries, ArmSource(root / "original", "original"), ArmSource(root / "rewritten", "rewritten")
    )


def test_changed_lines_are_the_executable_lines_the_rewrite_wrote() -> None:
    lines = changed_lines(ORIGINAL, REWRITTEN, "model.py")
    assert [(line.line, line.text) for line in lines] == [
        (line_number(REWRITTEN, "torch.where"), "y = torch.where(x.sum() > 0, x * 2, x - 1)"),
        (line_number(REWRITTEN, "is_compiling"), "if not torch.compiler.is_compiling():"),
        (line_number(REWRITTEN, "print("), 'print("step", y.shape)'),
    ]


def test_comments_need_no_proof_and_a_deletion_is_anchored_before_the_gap() -> None:
    before = "def f(x):\n    y = x + 1\n    print(y)\n    return y\n"
    after = "def f(x):\n    # a comment\n    y = x + 1\n    return y\n"
    # the comment owns no bytecode; the deleted print is stood for by the line before it
    assert changed_lines(before, after, "f.py") == [RewrittenLine("f.py", 3, "y = x + 1")]


def test_a_compiled_only_branch_is_proven_by_the_if_line_that_chose_it() -> None:
    """Eager calls never run the body of `if torch.compiler.is_compiling():` (GM201's split of a
    ValueError guard), so coverage asks for its `if` line: the line an eager call runs, and the
    one whose compiled call traces the body."""
    before = "def f(x):\n    if x.sum() < 0:\n        raise ValueError('neg')\n    return x\n"
    after = (
        "def f(x):\n"
        "    if torch.compiler.is_compiling() and torch.is_tensor(x):\n"
        "        torch._assert_async(x.sum() >= 0, 'ValueError: neg')\n"
        "    elif x.sum() < 0:\n"
        "        raise ValueError('neg')\n"
        "    return x\n"
    )
    lines = [(line.line, line.text) for line in changed_lines(before, after, "f.py")]
    assert lines == [
        (2, "if torch.compiler.is_compiling() and torch.is_tensor(x):"),
        (4, "elif x.sum() < 0:"),
    ]
    # a guard that eager code takes is proven by its own body as before
    guarded = "def f(x):\n    if not torch.compiler.is_compiling():\n        print(x)\n    return x\n"
    plain = "def f(x):\n    print(x)\n    return x\n"
    assert [line.line for line in changed_lines(plain, guarded, "f.py")] == [2, 3]


def test_an_added_decorator_is_proven_by_its_function_body_not_by_the_import() -> None:
    """`@torch.compiler.disable` runs when the module is imported; only a call of the function
    proves the fix, so coverage asks for the body's first statement (after a docstring)."""
    before = 'def helper(x):\n    """Masks."""\n    idx = torch.nonzero(x)\n    return idx\n'
    after = '@torch.compiler.disable\ndef helper(x):\n    """Masks."""\n    idx = torch.nonzero(x)\n    return idx\n'
    assert [(line.line, line.text) for line in changed_lines(before, after, "h.py")] == [(4, "idx = torch.nonzero(x)")]


def test_tree_changes_skip_equal_files_and_walk_new_ones(tmp_path: Path) -> None:
    (tmp_path / "a" / "pkg").mkdir(parents=True)
    (tmp_path / "b" / "pkg").mkdir(parents=True)
    (tmp_path / "b" / ".venv").mkdir()
    for arm in ("a", "b"):
        (tmp_path / arm / "same.py").write_text("x = 1\n")
    (tmp_path / "b" / "pkg" / "new.py").write_text("y = 2\n")
    (tmp_path / "b" / ".venv" / "site.py").write_text("z = 3\n")
    assert tree_changes(tmp_path / "a", tmp_path / "b", prefix="p/") == [
        RewrittenLine("p/pkg/new.py", 1, "y = 2")
    ]


def test_every_rewritten_line_covered_proves_the_rewrite(coverage_report: VerifyReport) -> None:
    assert [result.verdict for result in coverage_report.results] == ["improved", "improved"]
    data = json.loads(render_json(coverage_report))
    assert data["coverage"]["rewritten_lines"] == 3
    assert data["coverage"]["uncovered"] == []
    by_line = {line["line"]: line["entry_points"] for line in data["coverage"]["covered"]}
    assert by_line == {
        line_number(REWRITTEN, "torch.where"): ["quiet", "verbose"],
        line_number(REWRITTEN, "is_compiling"): ["verbose"],
        line_number(REWRITTEN, "print("): ["verbose"],
    }
    quiet = data["entry_points"][0]["coverage"]
    assert [line["line"] for line in quiet["uncovered"]] == [
        line_number(REWRITTEN, "is_compiling"),
        line_number(REWRITTEN, "print("),
    ]
    assert data["proof"] == {"proven": True, "reasons": []}
    proof = proves_rewrite(data)
    assert proof.proven and proof.covered_by[f"model.py:{line_number(REWRITTEN, 'print(')}"] == ["verbose"]


def test_a_rewritten_line_never_executed_is_reported_and_not_proven(coverage_report: VerifyReport) -> None:
    # the same measurements, without the entry point that takes the verbose branch
    quiet_only = VerifyReport(
        coverage_report.original,
        coverage_report.rewritten,
        [result for result in coverage_report.results if result.entry.name == "quiet"],
        coverage_report.rewritten_lines,
    )
    data = report_json(quiet_only)
    guard, printed = line_number(REWRITTEN, "is_compiling"), line_number(REWRITTEN, "print(")
    assert data["coverage"]["uncovered"] == [
        {"path": "model.py", "line": guard, "text": "if not torch.compiler.is_compiling():"},
        {"path": "model.py", "line": printed, "text": 'print("step", y.shape)'},
    ]
    assert data["passed"] is True  # the policy passed; the proof still fails
    proof = proves_rewrite(data)
    assert not proof.proven
    assert proof.reasons == [
        f"2 rewritten line(s) never executed by an entry point: model.py:{guard}, model.py:{printed}"
    ]
    markdown = render_markdown(quiet_only)
    assert "coverage of the rewrite: 1 of 3 rewritten line(s) executed by an entry point" in markdown
    assert (
        f"- never executed: `model.py:{printed}` `print(\"step\", y.shape)`"
        in markdown
    )


@pytest.mark.parametrize(
    ("report", "reason"),
    [
        ({}, "no entry point was verified"),
        ({"entry_points": ["x"]}, "entry point 0 is malformed"),
        (
            {"entry_points": [{"name": "n", "passed": False, "verdict": "outputs differ"}]},
            "`n` did not pass (outputs differ)",
        ),
        (
            {"entry_points": [{"name": "n", "passed": True, "outputs_equal": None}]},
            "`n`: outputs are not equivalent",
        ),
        (
            {"entry_points": [{"name": "n", "passed": True, "outputs_equal": True}]},
            "no coverage of the rewritten lines",
        ),
        (
            {
                "entry_points": [{"name": "n", "passed": True, "outputs_equal": True}],
                "coverage": {"rewritten_lines": "3"},
            },
            "the report's coverage is malformed",
        ),
        (
            {
                "entry_points": [{"name": "n", "passed": True, "outputs_equal": True}],
                "coverage": {"rewritten_lines": 0, "covered": [], "uncovered": []},
            },
            "lists no rewritten line",
        ),
        (
            {
                "entry_points": [{"name": "n", "passed": True, "outputs_equal": True}],
                "coverage": {
                    "rewritten_lines": 2,
                    "covered": [{"path": "m.py", "line": 3, "entry_points": ["n"]}],
                    "uncovered": [],
                },
            },
            "the coverage does not add up",
        ),
    ],
)
def test_a_malformed_or_failing_report_proves_nothing(report: dict, reason: str) -> None:
    proof = proves_rewrite(report)
    assert not proof.proven
    assert any(reason in text for text in proof.reasons), proof.reasons
