"""Issue 25.4: the fixer is linear in the breaks of one function, and a file it would spend too long
or too much memory on keeps its findings without fixes, with a one-line message saying so."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import libcst as cst
import pytest

import graphmend_bot.rewrite as rewrite
from graphmend_bot.cli import main
from graphmend_bot.rewrite.python_io import io_purpose

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from fixer_scaling import io_model, mixed_model  # the benchmark's own generators


def _purpose_checks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, breaks: int) -> int:
    """How often the fixer asks whether a call is a deprecation notice, for `breaks` prints in a row."""
    calls = 0
    original = io_purpose.deprecation_notice

    def counted(call):  # type: ignore[no-untyped-def]
        nonlocal calls
        calls += 1
        return original(call)

    monkeypatch.setattr(io_purpose, "deprecation_notice", counted)
    path = tmp_path / f"m{breaks}.py"
    path.write_text(io_model(breaks))
    assert main(["check", "--diff", str(path)]) == 1
    return calls


def test_a_run_of_prints_is_guarded_in_linear_work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """N prints in a row share one guard; every finding rebuilt it, asking about all N calls: N^2."""
    small, large = _purpose_checks(tmp_path, monkeypatch, 30), _purpose_checks(tmp_path, monkeypatch, 60)
    assert large <= 2.5 * small and large <= 4 * 60, (small, large)
    assert "Would fix 60 graph break(s)" in capsys.readouterr().err


def _node_visits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                 breaks: int) -> tuple[int, int]:
    """How many libcst nodes `check --diff --unsafe-fixes` visits for the benchmark's mixed model
    (prints, `.item()`s, tensor `if`s and ternaries in one `forward`), and how many breaks it fixes."""
    visits = 0
    original = cst.CSTNode.visit

    def counted(node, visitor):  # type: ignore[no-untyped-def]
        nonlocal visits
        visits += 1
        return original(node, visitor)

    monkeypatch.setattr(cst.CSTNode, "visit", counted)
    path = tmp_path / f"mixed{breaks}.py"
    path.write_text(mixed_model(breaks))
    assert main(["check", "--diff", "--unsafe-fixes", str(path)]) == 1
    err = capsys.readouterr().err
    fixed = re.search(r"Would fix (\d+) graph break", err)
    assert fixed is not None and "fixes skipped" not in err, err
    return visits, int(fixed.group(1))


def test_mixed_breaks_in_one_function_are_fixed_in_linear_work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """Each `.item()`, `if` and ternary walked the whole function (its type evidence, its Name nodes,
    the statements before it): N^2 node visits (3.5x for twice the breaks)."""
    (small, small_fixed), (large, large_fixed) = (_node_visits(tmp_path, monkeypatch, capsys, n) for n in (24, 48))
    assert large <= 2.5 * small, (small, large)
    assert small_fixed > 0 and large_fixed == 2 * small_fixed, (small_fixed, large_fixed)


def test_a_file_over_the_time_limit_keeps_its_findings_without_fixes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(rewrite, "FIX_SECONDS_PER_FILE", 0.0)
    monkeypatch.chdir(tmp_path)  # paths are shown relative to the working folder, as a user runs it
    path = Path("m.py")
    path.write_text(io_model(3))
    assert main(["check", "--diff", str(path)]) == 0  # nothing to change
    err = capsys.readouterr().err
    assert f"{path}: fixes skipped: rewriting this file took over 0 s" in err and "Traceback" not in err
    assert main(["check", "--show-fixes", str(path)]) == 1
    out = capsys.readouterr().out
    assert out.count("GM401") >= 3 and "fixes skipped" in out  # findings reported, the skip said once


def test_a_file_over_the_size_limit_keeps_its_findings_without_fixes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(rewrite, "FIX_MAX_BYTES", 100)
    monkeypatch.chdir(tmp_path)
    path = Path("m.py")
    path.write_text(io_model(3))
    assert main(["check", "--diff", str(path)]) == 0
    size = len(path.read_bytes())
    assert f"{path}: fixes skipped: {size:,} bytes is over the fixer's limit of 100 bytes per file" in capsys.readouterr().err
