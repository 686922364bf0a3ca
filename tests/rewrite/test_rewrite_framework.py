"""The rewrite framework: edits, imports, node lookup, the fix loop and `check --fix/--diff`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from fixture_support import FIXTURES

from graphmend_bot.config import Config
from graphmend_bot.findings import Edit, Finding, Fix, Location
from graphmend_bot.rewrite import BreakTally, apply_fixes, fix_paths
from graphmend_bot.rewrite.context import FixContext, FixUnavailable


def _edit(content: str, start: tuple[int, int], end: tuple[int, int]) -> Edit:
    return Edit(content, Location(*start), Location(*end))


def _fix(*edits: Edit) -> Fix:
    return Fix("safe", "test", edits)


def test_apply_fixes_bottom_up_merges_identical_and_skips_overlapping() -> None:
    source = "a = 1\nb = 2\nc = 3\n"
    insert = _edit("import torch\n", (1, 1), (1, 1))
    fixes = [
        _fix(insert, _edit("B", (2, 1), (2, 2))),
        _fix(insert, _edit("C", (3, 1), (3, 2))),
        _fix(_edit("X = 9", (2, 1), (2, 6))),  # overlaps the first fix: skipped whole
    ]
    assert apply_fixes(source, fixes) == "import torch\na = 1\nB = 2\nC = 3\n"


def test_apply_fixes_keeps_crlf_and_non_ascii_columns() -> None:
    source = "s = 'é'; x = 1\r\ny = 2\r\n"
    fixed = apply_fixes(source, [_fix(_edit("42", (1, 14), (1, 15)), _edit("z", (2, 1), (2, 2)))])
    assert fixed == "s = 'é'; x = 42\r\nz = 2\r\n"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('"""Doc."""\nx = 1\n', '"""Doc."""\nimport torch\nx = 1\n'),
        ("from __future__ import annotations\n\nimport os\n\nX = 1\n",
         "from __future__ import annotations\n\nimport os\nimport torch\n\nX = 1\n"),
        ("# licence\nimport os\ndef f(): pass\nimport sys\n", "# licence\nimport os\nimport torch\ndef f(): pass\nimport sys\n"),
        ("import os", "import os\nimport torch"),
        # no import yet: after the licence header, with isort's blank lines before the code
        ("x = 1\n", "import torch\n\nx = 1\n"),
        ("# Copyright\n# licence\n\ndef f(t):\n    return t\n",
         "# Copyright\n# licence\n\nimport torch\n\n\ndef f(t):\n    return t\n"),
        ("# licence\n\n# the helper\n@decorate\nclass A:\n    pass\n",
         "# licence\n\nimport torch\n\n\n# the helper\n@decorate\nclass A:\n    pass\n"),
        ("# only a comment\n", "import torch\n# only a comment\n"),
    ],
)
def test_ensure_import_goes_after_the_leading_imports(source: str, expected: str) -> None:
    edit = FixContext(source).ensure_import("import torch")
    assert edit is not None
    assert apply_fixes(source, [_fix(edit)]) == expected


@pytest.mark.parametrize(
    "source",
    [
        "import torch\n",
        "import torch.nn\n",
        "import os, torch\n",
        # transformers guards optional imports; traced code only runs where torch imported
        "from .utils import is_torch_available\n\nif is_torch_available():\n    import torch\n",
        "try:\n    import torch\nexcept ImportError:\n    torch = None\n",
    ],
)
def test_ensure_import_is_none_when_the_name_is_bound(source: str) -> None:
    assert FixContext(source).ensure_import("import torch") is None


TYPE_CHECKING_ONLY = "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    import torch\n"


def test_ensure_import_refuses_a_package_imported_only_for_type_checking() -> None:
    # The import never runs: `torch.` in a rewrite would raise NameError, and adding the import
    # would make torch a dependency of a module that keeps it lazy or optional.
    with pytest.raises(FixUnavailable):
        FixContext(TYPE_CHECKING_ONLY).ensure_import("import torch")
    with pytest.raises(FixUnavailable):
        FixContext(TYPE_CHECKING_ONLY.replace("if TYPE_CHECKING", "if typing.TYPE_CHECKING")).ensure_import(
            "import torch")


def test_ensure_import_adds_the_import_where_the_package_is_loaded_anyway() -> None:
    source = "from torch import nn\n" + TYPE_CHECKING_ONLY
    edit = FixContext(source).ensure_import("import torch")
    assert edit is not None
    assert apply_fixes(source, [_fix(edit)]).startswith("from torch import nn\nfrom typing import TYPE_CHECKING\nimport torch\n\n")
    # The `else` of `if TYPE_CHECKING:` runs.
    assert FixContext(TYPE_CHECKING_ONLY + "else:\n    import torch\n").ensure_import("import torch") is None


@pytest.mark.parametrize(
    ("source", "row"),
    [
        ("import os\n\nif is_torch_available():\n    import torch\n", 6),  # may be unbound at import
        (TYPE_CHECKING_ONLY, 6),
        ("import os\n\nx = 1\nimport torch\n", 3),  # bound, but below the inserted code
    ],
)
def test_code_run_at_import_needs_torch_bound_above_it(source: str, row: int) -> None:
    with pytest.raises(FixUnavailable):
        FixContext(source).require_at_import("torch", row)


def test_code_run_at_import_may_use_torch_imported_above_it_or_added() -> None:
    FixContext("import os\nimport torch.nn\n\nx = 1\n").require_at_import("torch", 4)
    FixContext("import os\n\nx = 1\n").require_at_import("torch", 3)  # ensure_import adds it first


def test_node_at_finds_the_innermost_node_of_the_span() -> None:
    ctx = FixContext("def f(x):\n    print((x))\n")
    finding = Finding("GM401", "m", "p", Location(2, 5), Location(2, 15), "GB0059")
    node = ctx.node_at(finding)
    assert node is not None and ctx.code_for(node) == "print((x))"
    assert type(node).__name__ == "Call"
    missing = Finding("GM401", "m", "p", Location(2, 6), Location(2, 15), "GB0059")
    assert ctx.node_at(missing) is None


def test_replace_statement_reindents_and_refuses_a_shared_line() -> None:
    source = "def f(x):\n    a = 1; print(x)\n    print(x)\n"
    ctx = FixContext(source)
    shared = ctx.node_at(Finding("GM401", "m", "p", Location(2, 12), Location(2, 20), "GB0059"))
    alone = ctx.node_at(Finding("GM401", "m", "p", Location(3, 5), Location(3, 13), "GB0059"))
    assert shared is not None and alone is not None
    with pytest.raises(FixUnavailable):
        ctx.replace_statement(shared, "if ok:\n    print(x)")
    edit = ctx.replace_statement(alone, "if ok:\n    print(x)")
    assert apply_fixes(source, [_fix(edit)]) == "def f(x):\n    a = 1; print(x)\n    if ok:\n        print(x)\n"


def test_relative_code_refuses_to_reindent_a_multiline_string() -> None:
    source = 'def f(x):\n    print("""a\n  b""")\n'
    ctx = FixContext(source)
    node = ctx.node_at(Finding("GM401", "m", "p", Location(2, 5), Location(3, 8), "GB0059"))
    assert node is not None
    with pytest.raises(FixUnavailable):
        ctx.relative_code(node)


MODEL = '''import logging

import torch

logger = logging.getLogger(__name__)


class Net(torch.nn.Module):
    def forward(self, x):
        y = x * 2
        logger.warning("careful")
        return y
'''
CLEAN = "import torch\r\n\r\n\r\ndef helper(x):\r\n    return x + 1  # CRLF, never rewritten\r\n"
UNSAFE_ONLY = '''import torch


class Scale(torch.nn.Module):
    def forward(self, x):
        total = x.sum().item()
        return x * total
'''


def _graphmend(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "graphmend_bot.cli", "check", *args], cwd=cwd, capture_output=True, text=True, check=False
    )


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "model.py").write_text(MODEL, encoding="utf-8")
    (tmp_path / "clean.py").write_bytes(CLEAN.encode())
    (tmp_path / "latin.py").write_bytes("# -*- coding: latin-1 -*-\nNAME = 'café'\n".encode("latin-1"))
    (tmp_path / "scale.py").write_text(UNSAFE_ONLY, encoding="utf-8")
    return tmp_path


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(root.glob("*.py"))}


def test_diff_prints_and_writes_nothing(tree: Path) -> None:
    before = _snapshot(tree)
    result = _graphmend(tree, ".", "--diff")
    assert result.returncode == 1, result.stderr
    assert "+++ b/model.py" in result.stdout
    assert "+        if not torch.compiler.is_compiling():" in result.stdout
    assert "scale.py" not in result.stdout  # only an unsafe fix there
    assert _snapshot(tree) == before
    assert "Traceback" not in result.stderr


def test_fix_writes_safe_fixes_only_and_leaves_clean_files_byte_identical(tree: Path) -> None:
    before = _snapshot(tree)
    result = _graphmend(tree, ".", "--fix")
    assert "Traceback" not in result.stderr
    after = _snapshot(tree)
    assert after["clean.py"] == before["clean.py"]
    assert after["latin.py"] == before["latin.py"]
    assert after["scale.py"] == before["scale.py"]
    assert b"if not torch.compiler.is_compiling():\n            logger.warning" in after["model.py"]
    assert result.returncode == 1  # scale.py still has a finding
    assert "scale.py" in result.stdout and "fix (unsafe)" in result.stdout
    second = _graphmend(tree, ".", "--fix")
    assert _snapshot(tree) == after, "a second --fix changed something"
    assert second.returncode == 1


def test_unsafe_fixes_fix_everything_and_exit_clean(tree: Path) -> None:
    result = _graphmend(tree, ".", "--fix", "--unsafe-fixes")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "total = x.sum().detach()\n" in (tree / "scale.py").read_text(encoding="utf-8")
    assert "No graph breaks found" in result.stdout


def test_text_output_shows_fix_availability_and_advice(tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text(MODEL, encoding="utf-8")
    (tmp_path / "save.py").write_text(
        "import torch\n\n\nclass S(torch.nn.Module):\n    def forward(self, x):\n"
        "        torch.save(x, 'x.pt')\n        return x\n",
        encoding="utf-8",
    )
    result = _graphmend(tmp_path, "--show-fixes", ".")
    assert "= fix (safe): Guard `logger.warning(...)`" in result.stdout
    assert "= help: Split the compiled region" in result.stdout
    assert "1 fixable with `--fix`" in result.stdout


def test_fix_paths_leaves_files_without_findings_out(tree: Path) -> None:
    changes = fix_paths([str(tree)], Config())
    assert [Path(c.path).name for c in changes] == ["model.py"]
    assert all(c.before != c.after for c in changes)


def test_parallel_fixing_gives_the_same_changes(tmp_path: Path) -> None:
    from graphmend_bot.rewrite import PARALLEL_FILES

    for index in range(PARALLEL_FILES + 2):
        (tmp_path / f"model_{index}.py").write_text(MODEL.replace("careful", f"careful {index}"), encoding="utf-8")
    serial = fix_paths([str(tmp_path)], Config(), jobs=1)
    parallel = fix_paths([str(tmp_path)], Config(), jobs=2)
    assert len(serial) == PARALLEL_FILES + 2
    assert parallel == serial


def test_focused_context_parses_only_the_classes_holding_findings() -> None:
    source = (
        "import torch\n\n\n@decorate\nclass Far:\n    def forward(self, x):\n        return x\n\n\n"
        "def helper(x):\n    return x\n\n\nclass Near:\n    def forward(self, x):\n        print((x))\r\n"
    )
    ctx = FixContext(source, focus_rows={16})
    assert ctx.module.code.splitlines()[3:11] == [""] * 8  # `Far` and `helper`, blanked line for line
    assert ctx.module.code.count("\n") == source.count("\n")
    assert ctx.top_level_functions == {"helper"}
    node = ctx.node_at(Finding("GM401", "m", "p", Location(16, 9), Location(16, 19), "GB0059"))
    assert node is not None and ctx.code_for(node) == "print((x))"  # positions are the file's


def test_deferral_helper_outside_the_focus_is_not_added_twice(tmp_path: Path) -> None:
    helper = (FIXTURES / "io" / "defer_logger.out.py").read_text(encoding="utf-8").split("def scale_rows")[0]
    source = helper + "class Model(torch.nn.Module):\n    def forward(self, x):\n        logger.info('called')\n        return x * 2\n"
    path = tmp_path / "model.py"
    path.write_text(source, encoding="utf-8")
    (change,) = fix_paths([str(path)], Config(io_strategy="defer"), unsafe=True)
    assert change.after.count("def _log_after_graph") == 1
    assert "_log_after_graph(\"info\", 'called')" in change.after


def test_a_removal_counts_only_as_far_as_the_recheck_reports_fewer_breaks() -> None:
    """Issue 24.3: two identical `.item()` lines both rewritten, one still reported afterwards: one
    removed, one left reported; a moving fix is never a removal; a break a rewrite created is not counted."""
    def item(row: int, fix: Fix | None = None, line: str = "y = x.item()") -> Finding:
        return Finding("GM301", "m", "p.py", Location(row, 1), Location(row, 9), "GB0124", "f", line, fix=fix)

    removes = Fix.of("keep it a tensor", ())
    moves = Fix.of("run it eagerly", (), ("assumed",), effect="moves")
    tally = BreakTally()
    tally.found([item(3), item(4), item(9, line="z = x.item()")])
    tally.applied([item(3, removes), item(4, removes), item(9, moves), item(12, removes, line="w = y.item()")])
    tally.left([item(3), item(9, line="z = x.item()")])
    assert tally.of("p.py") == (1, 0, 1, 1)  # removed, of those rare, moved, still reported
    # A rewrite that leaves a new break of another rule on its line removed nothing in all.
    traded = BreakTally()
    traded.found([item(3)])
    traded.applied([item(3, removes)])
    traded.left([Finding("GM302", "m", "p.py", Location(3, 1), Location(3, 9), "GB0124", "f", "y = int(x)")])
    assert traded.of("p.py") == (0, 0, 0, 1)
