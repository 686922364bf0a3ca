"""`graphmend census --compare BASE`: breaks added and removed by a change, per-target counts, a gate.

The end-to-end case runs the census on a scratch git repository at a base commit and at a head
commit that adds one break, removes another and moves a third down by lines added above it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from graphmend_bot.census.compare import compare, compare_files, render_json, render_text
from graphmend_bot.census.record import BreakRecord, CallRecord, Census, write_census

BASE_MODEL = '''\
import torch
from torch import nn


class Net(nn.Module):
    def forward(self, x):
        h = x * 2
        print("kept")  # moves down on the head
        if h.sum() > 0:  # removed on the head
            h = h + 1
        return h
'''

HEAD_MODEL = '''\
import torch
from torch import nn


def scaled(x):
    return x * 2


class Net(nn.Module):
    def forward(self, x):
        h = scaled(x)
        print("kept")  # moves down on the head
        h = torch.where(h.sum() > 0, h + 1, h)
        print("added")  # added on the head
        return h
'''

TESTS = '''\
import torch
from pkg.model import Net


def test_net():
    assert Net()(torch.ones(2)).shape == (2,)
'''


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args], cwd=root, check=True,
                   capture_output=True)


def graphmend(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "graphmend_bot.cli", "census", *args], cwd=root,
                          capture_output=True, text=True, timeout=600, check=False)


def line_of(source: str, marker: str) -> int:
    return next(i for i, text in enumerate(source.splitlines(), 1) if marker in text)


def test_a_change_that_adds_one_break_and_removes_another_is_plus_one_minus_one(tmp_path: Path) -> None:
    root = tmp_path / "repo"  # the censuses are written beside it, outside the repository
    (root / "pkg").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "model.py").write_text(BASE_MODEL)
    (root / "tests" / "test_model.py").write_text(TESTS)
    git(root, "init", "-q", ".")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    base = graphmend(root, "--file", "../base.json", "--", "-p", "no:cacheprovider")
    assert base.returncode == 0, base.stdout + base.stderr

    (root / "pkg" / "model.py").write_text(HEAD_MODEL)
    git(root, "commit", "-qam", "head")
    done = graphmend(root, "--compare", "../base.json", "--file", "../head.json", "--output-format", "json",
                     "--", "-p", "no:cacheprovider")
    assert done.returncode == 1, done.stdout + done.stderr  # a break was added: the gate fails
    result = json.loads(done.stdout)
    assert [(b["path"], b["line"], b["reason"], b["gb_id"], b["function"], b["tests"]) for b in result["added"]] == [
        ("pkg/model.py", line_of(HEAD_MODEL, "# added"), "Failed to trace builtin operator", "GB0059",
         "Net.forward", ["tests/test_model.py::test_net"])]
    assert [(b["line"], b["reason"], b["gb_id"], b["function"]) for b in result["removed"]] == [
        (line_of(BASE_MODEL, "# removed"), "Data-dependent branching", "GB0170", "Net.forward")]
    (net,) = result["targets"]
    assert net["target"] == "pkg.model.Net" and net["base"]["failed"] == net["head"]["failed"] == 0
    # base: graphs before the print, around the branch, after it; head: before the first print and
    # between the two (nothing after the last one makes a graph)
    assert (net["base"]["graphs"], net["head"]["graphs"]) == (3, 2)
    # one break for another: the census holds two on each side, and only fingerprints tell them apart
    assert len(json.loads((tmp_path / "base.json").read_text())["breaks"]) == 2
    assert len(json.loads((tmp_path / "head.json").read_text())["breaks"]) == 2

    text = graphmend(root, "--compare", "../base.json", "--head", "../head.json")
    assert text.returncode == 1
    assert (f"+ pkg/model.py:{line_of(HEAD_MODEL, '# added')}  Failed to trace builtin operator  [GB0059]  "
            "in Net.forward  (test tests/test_model.py::test_net)") in text.stdout
    assert f"- pkg/model.py:{line_of(BASE_MODEL, '# removed')}  Data-dependent branching  [GB0170]" in text.stdout
    # the head against itself: nothing added, the gate passes
    assert graphmend(root, "--compare", "../head.json", "--head", "../head.json").returncode == 0


SHA = "a" * 40


def census(*breaks: BreakRecord, calls: tuple[CallRecord, ...] = (), complete: bool = True) -> Census:
    return Census(commit=SHA, calls=list(calls), breaks=list(breaks), complete=complete)


def test_a_target_that_newly_fails_to_compile_is_never_clean() -> None:
    base = census(BreakRecord("pkg/m.py", 3, "Data-dependent branching", "GB0170", ["t::a"], "f", "if x:"),
                  calls=(CallRecord("pkg.m:f", "t::a", graph_count=2, graph_break_count=1),))
    head = census(calls=(CallRecord("pkg.m:f", "t::a", error="TorchRuntimeError: cond branches differ"),))
    comparison = compare(base, head)
    assert comparison.added == [] and [b.line for b in comparison.removed] == [3]
    assert comparison.exit_status == 1
    text = render_text(comparison)
    assert "pkg.m:f: graphs 2 -> failed, breaks 1 -> failed" in text
    assert "head failed: TorchRuntimeError: cond branches differ" in text
    assert "pkg.m:f could not be explained on the head, so its breaks are unknown: not clean" in text
    assert json.loads(render_json(comparison))["targets"][0]["newly_failed"] is True


def test_an_incomplete_census_is_no_verdict() -> None:
    comparison = compare(census(), census(complete=False))
    assert comparison.exit_status == 2
    assert "the head census is incomplete" in render_text(comparison)


def test_per_target_counts_add_up_over_calls() -> None:
    calls = (CallRecord("pkg.Net", "t::a", 2, 1, recompiles=0, fallbacks=1),
             CallRecord("pkg.Net", "t::b", 1, 0, recompiles=1, fallbacks=0))
    comparison = compare(census(), census(calls=calls))
    assert comparison.exit_status == 0
    assert "pkg.Net: graphs - -> 3, breaks - -> 1, recompiles - -> 1, fallbacks - -> 1" in render_text(comparison)


def test_a_malformed_census_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.json"
    write_census(census(), good)
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "graphmend-census", "version": 1, "breaks": [{"path": "/etc/passwd"}]}')
    assert compare_files(bad, good) == 2
    err = capsys.readouterr().err
    assert err.startswith("graphmend: census comparison not made: breaks[0].path must be a relative path")
    assert len(err.strip().splitlines()) == 1
    assert compare_files(good, tmp_path / "missing.json") == 2
    assert "no census file at" in capsys.readouterr().err


def test_no_head_census_is_exit_2_with_a_message(tmp_path: Path) -> None:
    write_census(census(), tmp_path / "base.json")
    done = graphmend(tmp_path, "--compare", "base.json", "--", "--no-such-pytest-option")
    assert done.returncode == 2
    assert "wrote no census at graphmend-census.json" in done.stderr and "Traceback" not in done.stderr
    alone = graphmend(tmp_path, "--head", "base.json")
    assert alone.returncode == 2
    assert alone.stderr == "graphmend: --head names the census to compare with --compare BASE_CENSUS; none given\n"


def test_update_budget_writes_the_census_breaks_and_the_budget_accepts_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from graphmend_bot.census.command import census_command

    kept = BreakRecord("pkg/m.py", 3, "Logger method not supported", "GB0291", ["t::a"], "f", "logger.info(x)")
    added = BreakRecord("pkg/m.py", 9, "Data-dependent branching", "GB0170", ["t::a"], "f", "if x.sum() > 0:")
    write_census(census(kept), tmp_path / "base.json")
    write_census(census(kept, added), tmp_path / "head.json")
    budget = tmp_path / "graphmend-breaks.json"

    assert census_command("unused.json", [], head=str(tmp_path / "head.json"), budget=str(budget),
                          update_budget=True) == 0
    assert "wrote 2 expected graph break(s)" in capsys.readouterr().err
    entries = json.loads(budget.read_text())["breaks"]
    assert [(e["path"], e["kind"], e["function"], e["source"], e["line"]) for e in entries] == [
        ("pkg/m.py", "GB0170", "f", "if x.sum() > 0:", 9), ("pkg/m.py", "GB0291", "f", "logger.info(x)", 3)]

    # Against the base: added without a budget, accepted with it.
    assert compare_files(tmp_path / "base.json", tmp_path / "head.json") == 1
    assert compare_files(tmp_path / "base.json", tmp_path / "head.json", "text", budget) == 0
    assert "0 break(s) added, 0 removed, 1 new but in the budget" in capsys.readouterr().out
    # The budget alone (no base census): every break it holds is expected, one more is added.
    moved = BreakRecord("pkg/m.py", 12, "Data-dependent branching", "GB0170", ["t::a"], "f", "if x.sum() > 0:")
    write_census(census(moved, kept, BreakRecord("pkg/m.py", 20, "print", "GB0059", [], "g", "print(x)")),
                 tmp_path / "later.json")
    assert census_command("unused.json", [], head=str(tmp_path / "later.json"), budget=str(budget)) == 1
    out = capsys.readouterr().out
    assert "1 break(s) added" in out and "+ pkg/m.py:20  print  [GB0059]  in g" in out  # moved: still budgeted


def test_a_malformed_budget_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_census(census(), tmp_path / "head.json")
    bad = tmp_path / "graphmend-breaks.json"
    bad.write_text('{"format": "graphmend-breaks", "version": 1, "breaks": [{"path": "../../etc/passwd"}]}')
    assert compare_files(None, tmp_path / "head.json", "text", bad) == 2
    err = capsys.readouterr().err
    assert err.startswith("graphmend: census comparison not made: graphmend-breaks.json: breaks[0].path must be")
    assert len(err.strip().splitlines()) == 1


def test_an_incomplete_census_writes_no_budget(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from graphmend_bot.census.command import census_command

    write_census(census(complete=False), tmp_path / "head.json")
    assert census_command("x.json", [], head=str(tmp_path / "head.json"), budget=str(tmp_path / "b.json"),
                          update_budget=True) == 2
    assert "is incomplete" in capsys.readouterr().err and not (tmp_path / "b.json").exists()
