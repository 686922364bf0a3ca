"""Pull-request mode: only calls that reach a changed file are explained (measured live with
Dynamo), and the base census completes the partial one (reuse.py, pure).

Recall must not drop for what the change can affect: a call reaching a changed file is explained
whole, on a snapshot taken before the real call ran (a module whose first call flips its state
breaks only on that first call), and a second call of a changed function on other input types or
sizes is still explained when its signature differs.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from graphmend_bot.census.changed import changed_since  # noqa: E402
from graphmend_bot.census.compare import compare  # noqa: E402
from graphmend_bot.census.dynamo import Tree  # noqa: E402
from graphmend_bot.census.record import BreakRecord, CallRecord, Census, CensusError  # noqa: E402
from graphmend_bot.census.recorder import Recorder  # noqa: E402
from graphmend_bot.census.reuse import complete_partial  # noqa: E402

BASE = "b" * 40
HEAD = "a" * 40

CHANGED = """\
import torch


def changed_fn(x):
    y = x * 2
    print("changed")  # break
    return y + 1


def type_dependent(x):
    if isinstance(x, list):
        x = torch.tensor(x)
        print("from a list")  # break: only for a list
    return x * 2


def size_dependent(x):
    y = x * 2
    n = x.shape[0]
    order = sorted([(n, "a"), (1, "b")])  # break only when n is symbolic
    return y + order[0][0]


class Lazy(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.initted = False

    def forward(self, x):
        if not self.initted:
            self.initted = True
            print("init")  # break: only on the first call
        return x * 2
"""

SAME = """\
import torch

import census_changed


def unchanged_fn(x):
    y = x * 2
    print("unchanged")  # break
    return y + 1


def calls_changed(x):
    return census_changed.changed_fn(x * 3)
"""


@pytest.fixture
def recorder(tmp_path: Path) -> Iterator[Recorder]:
    (tmp_path / "census_changed.py").write_text(CHANGED)
    (tmp_path / "census_same.py").write_text(SAME)
    sys.path.insert(0, str(tmp_path))
    recorder = Recorder(tmp_path, Tree([str(tmp_path)]), HEAD, changed=(BASE, {"census_changed.py"}))
    try:
        for spec in ("census_changed:changed_fn", "census_changed:type_dependent", "census_changed:size_dependent",
                     "census_same:unchanged_fn", "census_same:calls_changed"):
            assert recorder.wrap_entry_point(spec) == ""
        recorder.install()
        recorder.current_test = "tests/test_it.py::test_it"
        yield recorder
    finally:
        recorder.uninstall()
        sys.path.remove(str(tmp_path))
        for name in ("census_changed", "census_same"):
            sys.modules.pop(name, None)
        torch._dynamo.reset()


def _breaks(recorder: Recorder) -> set[tuple[str, int]]:
    return {(record.path, record.line) for record in recorder.finish().breaks}


def test_only_calls_that_reach_a_changed_file_are_explained(recorder: Recorder) -> None:
    same = importlib.import_module("census_same")
    assert same.unchanged_fn(torch.ones(2)).tolist() == [3.0, 3.0]
    assert recorder.census.calls == [] and recorder.unchanged_calls == 1
    assert recorder.finish().executed == {}  # not "ran without a break": Dynamo did not look
    assert same.calls_changed(torch.ones(2)).tolist() == [7.0, 7.0]  # through an unchanged file
    assert set(recorder.finish().executed) == {"census_same.py", "census_changed.py"}
    assert _breaks(recorder) == {("census_changed.py", 6)}
    census = recorder.finish()
    assert (census.changed_since, census.changed_files) == (BASE, ["census_changed.py"])
    assert [call.target for call in census.calls] == ["census_same:calls_changed"]


def test_a_second_call_with_other_types_or_sizes_is_still_explained(recorder: Recorder) -> None:
    changed = importlib.import_module("census_changed")
    changed.type_dependent(torch.ones(2))
    changed.size_dependent(torch.ones(3))
    assert _breaks(recorder) == set()
    assert changed.type_dependent([1.0, 2.0]).tolist() == [2.0, 4.0]
    changed.size_dependent(torch.ones(5))
    assert _breaks(recorder) == {("census_changed.py", 13), ("census_changed.py", 20)}


def test_the_snapshot_from_before_the_real_call_is_explained(recorder: Recorder,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """The real call runs first and flips `initted`; the break only a first call meets is recorded,
    and the test's random numbers are those it would draw without the census."""
    changed = importlib.import_module("census_changed")
    torch.manual_seed(0)
    expected = torch.rand(2)
    torch.manual_seed(0)
    module = changed.Lazy()
    module(torch.ones(2))
    assert module.initted
    assert torch.equal(torch.rand(2), expected)
    assert ("census_changed.py", 32) in _breaks(recorder)
    assert capsys.readouterr().out == "init\n"


def test_a_call_from_a_changed_test_file_is_explained(tmp_path: Path, recorder: Recorder) -> None:
    """The test that makes the call is on the stack: a changed test (new inputs) explains it."""
    (tmp_path / "census_test_caller.py").write_text(
        "import census_same\n\ndef run(x):\n    return census_same.unchanged_fn(x)\n")
    assert recorder.changed is not None
    recorder.changed.add("census_test_caller.py")
    caller = importlib.import_module("census_test_caller")
    try:
        caller.run(torch.ones(2))
    finally:
        sys.modules.pop("census_test_caller", None)
    assert _breaks(recorder) == {("census_same.py", 8)}


# -- completing a partial census with the base's (pure) ---------------------------------------------
def _break(path: str, line: int, reason: str = "print") -> BreakRecord:
    return BreakRecord(path, line, reason, "GB0001", ["tests/t.py::t"], function="f", source=f"line {line}")


def _base() -> Census:
    return Census(commit=BASE, calls=[CallRecord("pkg.a:f", "t"), CallRecord("pkg.b:g", "t")],
                  breaks=[_break("pkg/a.py", 5), _break("pkg/b.py", 9)],
                  executed={"pkg/a.py": [4, 5], "pkg/b.py": [8, 9]})


def _partial(*breaks: BreakRecord) -> Census:
    return Census(commit=HEAD, calls=[CallRecord("pkg.a:f", "t")], breaks=list(breaks),
                  executed={"pkg/a.py": [4, 6], "pkg/b.py": [8, 9, 10]}, changed_since=BASE,
                  changed_files=["pkg/a.py"])


def test_records_of_unchanged_files_come_from_the_base() -> None:
    whole = complete_partial(_base(), _partial(_break("pkg/a.py", 6, "moved"), _break("pkg/b.py", 12, "new")))
    assert not whole.partial and whole.commit == HEAD
    assert [(b.path, b.line, b.reason) for b in whole.breaks] == [
        ("pkg/a.py", 6, "moved"), ("pkg/b.py", 9, "print"), ("pkg/b.py", 12, "new")]
    assert [call.target for call in whole.calls] == ["pkg.a:f", "pkg.b:g"]
    assert whole.executed == {"pkg/a.py": [4, 6], "pkg/b.py": [8, 9, 10]}


def test_a_partial_census_needs_the_whole_census_of_its_base() -> None:
    with pytest.raises(CensusError, match="recorded on commit"):
        complete_partial(Census(commit="c" * 40), _partial())
    with pytest.raises(CensusError, match="itself partial"):
        complete_partial(_partial(), _partial())
    whole = Census(commit=HEAD)
    assert complete_partial(_base(), whole) is whole


def test_compare_completes_a_partial_head_before_matching() -> None:
    """Breaks of unchanged files are neither added nor removed; the changed file's are compared."""
    comparison = compare(_base(), _partial(_break("pkg/a.py", 7, "other")))
    assert [(b.path, b.line) for b in comparison.added] == [("pkg/a.py", 7)]
    assert [(b.path, b.line) for b in comparison.removed] == [("pkg/a.py", 5)]
    assert not comparison.problems
    assert compare(Census(commit="c" * 40), _partial()).problems


# -- git's changed files -----------------------------------------------------------------------------
def test_changed_since_lists_edited_and_untracked_files(tmp_path: Path) -> None:
    git = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t"]
    (tmp_path / "pkg").mkdir()
    for name in ("a.py", "b.py"):
        (tmp_path / "pkg" / name).write_text("x = 1\n")
    subprocess.run([*git, "init", "-q", "."], cwd=tmp_path, check=True)
    subprocess.run([*git, "add", "-A"], cwd=tmp_path, check=True)
    subprocess.run([*git, "commit", "-qm", "base"], cwd=tmp_path, check=True)
    (tmp_path / "pkg" / "a.py").write_text("x = 2\n")
    (tmp_path / "pkg" / "new.py").write_text("y = 1\n")
    commit, changed = changed_since(tmp_path, "HEAD")
    assert len(commit) == 40 and changed == {"pkg/a.py", "pkg/new.py"}
    with pytest.raises(CensusError, match="no commit"):
        changed_since(tmp_path, "no-such-branch")
    with pytest.raises(CensusError, match="not a revision"):
        changed_since(tmp_path, "--output=/tmp/x")


# -- the plugin, end to end --------------------------------------------------------------------------
def test_a_pull_request_run_that_reaches_no_changed_file_never_imports_dynamo(tmp_path: Path) -> None:
    from project import make_project, run_pytest

    from graphmend_bot.census.record import load_census

    root = make_project(tmp_path)
    (root / "conftest.py").write_text(
        "import sys\n\ndef pytest_sessionfinish(session):\n"
        "    open('dynamo.txt', 'w').write(str('torch._dynamo' in sys.modules))\n")
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True,
                            check=True).stdout.strip()
    (root / "pkg" / "other.py").write_text("x = 1\n")
    done = run_pytest(root, "--graphmend-census", f"--graphmend-census-changed-since={commit}", "-k",
                      "clean_entry_point or score_prints")
    assert "2 call(s) reach none and were not explained" in done.stdout, done.stdout
    assert (root / "dynamo.txt").read_text() == "False"
    census = load_census(root / "graphmend-census.json")
    assert census.partial and census.changed_since == commit
    assert census.changed_files == ["conftest.py", "pkg/other.py"]
    assert census.calls == [] and census.breaks == [] and census.executed == {}
