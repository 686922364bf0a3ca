"""`@torch.compiler.disable` for a helper whose data-dependent-shape break no rewrite removes.

The fixture pairs (tests/fixtures/rewrite/run_eagerly) prove the eager outputs and the Dynamo
count; these tests pin what the fix is: unsafe with its assumption stated, never a safe fix, never
offered for a function compiled itself, and honest about the break it leaves at the call site.
"""

from __future__ import annotations

import importlib.util
import io
import json
import logging
from pathlib import Path

import pytest
import torch

from graphmend_bot.cli import main
from graphmend_bot.config import Config
from graphmend_bot.engine import check
from graphmend_bot.finding_records import fix_record, read_fix
from graphmend_bot.rewrite import attach_fixes, fix_outcome, fix_paths

HELPER = """\
import torch
from torch import nn


def positive_rows(x):
    y = x * 2.0
    rows = torch.nonzero(y > 0)
    return rows.float().sum()


class Model(nn.Module):
    def forward(self, x):
        h = torch.sin(x)
        return h.sum() + positive_rows(h)
"""


def _fixed(tmp_path: Path, source: str, unsafe: bool = True, config: Config | None = None) -> str:
    path = tmp_path / "helper_case.py"
    path.write_text(source, encoding="utf-8")
    changes = fix_paths([str(path)], config or Config(), unsafe=unsafe)
    return changes[0].after if changes else source


def test_the_helper_is_run_eagerly_only_as_an_unsafe_fix_with_its_assumption(tmp_path: Path) -> None:
    assert _fixed(tmp_path, HELPER, unsafe=False) == HELPER  # `--fix` alone: no safe fix hides compilation
    assert _fixed(tmp_path, HELPER) == HELPER.replace(
        "\n\ndef positive_rows", "\n\n@torch.compiler.disable\ndef positive_rows"
    )
    path = tmp_path / "helper_case.py"
    path.write_text(HELPER, encoding="utf-8")
    findings = [f for f in attach_fixes(check([str(path)]), Config()).findings if f.code == "GM501"]
    assert len(findings) == 1 and findings[0].fix is not None
    assert findings[0].fix.applicability == "unsafe"
    assert "compiled calls run the whole helper eagerly" in " ".join(findings[0].fix.assumptions)


@pytest.mark.parametrize(
    "compiled",
    [
        "compiled_rows = torch.compile(positive_rows)\n",
        "compiled_rows = torch.compile(\n    positive_rows, fullgraph=False\n)\n",
    ],
)
def test_a_helper_compiled_itself_is_never_disabled(tmp_path: Path, compiled: str) -> None:
    # Disabling the compiled function would leave nothing to compile: zero breaks, by hiding them all.
    source = HELPER + "\n\n" + compiled
    assert _fixed(tmp_path, source) == source


def test_a_helper_named_as_an_entry_point_is_never_disabled(tmp_path: Path) -> None:
    config = Config(entry_points=["helper_case:positive_rows"])
    assert _fixed(tmp_path, HELPER, config=config) == HELPER


def test_the_import_is_added_when_the_module_has_no_plain_torch(tmp_path: Path) -> None:
    source = HELPER.replace("import torch\n", "import torch as th\n").replace("torch.", "th.")
    fixed = _fixed(tmp_path, source)
    assert "import torch\n" in fixed and "@torch.compiler.disable\ndef positive_rows" in fixed
    assert _fixed(tmp_path, fixed) == fixed  # idempotent: a decorated helper is not decorated again


def _load(path: Path, name: str) -> object:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _graph_break_lines(model: torch.nn.Module, x: torch.Tensor) -> tuple[int, list[str]]:
    """(explain's break count, the graph_breaks log's "Graph break ... in user code at" lines)."""
    torch._dynamo.reset()
    captured = io.StringIO()
    handler = logging.StreamHandler(captured)
    dynamo_log = logging.getLogger("torch._dynamo")
    torch._logging.set_logs(graph_breaks=True)
    dynamo_log.addHandler(handler)
    try:
        with torch.no_grad():
            result = torch._dynamo.explain(model)(x)
    finally:
        dynamo_log.removeHandler(handler)
        torch._logging.set_logs()
        torch._dynamo.reset()
    lines = [line for line in captured.getvalue().splitlines() if "Graph break" in line and "user code at" in line]
    return int(result.graph_break_count), lines


def test_dynamo_keeps_one_break_at_the_call_and_drops_the_helpers_own(tmp_path: Path) -> None:
    before_path, after_path = tmp_path / "rows_before.py", tmp_path / "rows_after.py"
    before_path.write_text(HELPER, encoding="utf-8")
    after_path.write_text(_fixed(tmp_path, HELPER), encoding="utf-8")
    x = torch.randn(5, 3, generator=torch.Generator().manual_seed(0))
    before_model = _load(before_path, "rows_before").Model().eval()  # type: ignore[attr-defined]
    after_model = _load(after_path, "rows_after").Model().eval()  # type: ignore[attr-defined]
    with torch.no_grad():
        assert torch.equal(before_model(x), after_model(x))
        torch._dynamo.reset()
        assert torch.equal(torch.compile(after_model)(x), after_model(x))
    before_breaks, before_lines = _graph_break_lines(before_model, x)
    after_breaks, after_lines = _graph_break_lines(after_model, x)
    # Before: the caller breaks at the call and the helper at nonzero. After: only at the call,
    # where Dynamo skips the disabled helper; the break is not hidden, it is the one left.
    assert after_breaks < before_breaks
    assert len(after_lines) == 1 and after_lines[0].endswith("rows_after.py:15")
    assert len(before_lines) > len(after_lines)


def test_two_breaks_in_one_helper_give_one_decorator(tmp_path: Path) -> None:
    source = HELPER.replace("    return rows.float().sum()\n", "    kept = y[y > 1]\n    return rows.float().sum() + kept.sum()\n")
    fixed = _fixed(tmp_path, source)
    assert fixed.count("@torch.compiler.disable") == 1, fixed
    assert fixed == source.replace("\n\ndef positive_rows", "\n\n@torch.compiler.disable\ndef positive_rows")


def test_no_decorator_where_the_package_captures_dynamic_output_shapes(tmp_path: Path) -> None:
    """kornia turns on `capture_dynamic_output_shape_ops` in one module of its package; its
    helpers then compile in one graph, so the decorator would add a break, not contain one."""
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "sub" / "__init__.py").write_text("", encoding="utf-8")
    (package / "detector.py").write_text(
        "import torch\n\n\ndef patch():\n"
        "    return torch._dynamo.config.patch(capture_dynamic_output_shape_ops=True)\n",
        encoding="utf-8",
    )
    assert _fixed(package / "sub", HELPER) == HELPER
    other = tmp_path / "other"
    other.mkdir()
    assert _fixed(other, HELPER) != HELPER  # outside that package the helper is still decorated
    inline = HELPER + "\n\ntorch._dynamo.config.capture_dynamic_output_shape_ops = True\n"
    assert _fixed(other, inline) == inline


def test_under_the_capture_flag_the_decorator_would_make_a_fullgraph_compile_raise(tmp_path: Path) -> None:
    """Why the precondition above: measured, the original helper compiles in one graph under the
    flag and the decorated one makes `fullgraph=True` raise."""
    before_path, after_path = tmp_path / "flag_before.py", tmp_path / "flag_after.py"
    before_path.write_text(HELPER, encoding="utf-8")
    after_path.write_text(_fixed(tmp_path, HELPER), encoding="utf-8")
    x = torch.randn(5, 3, generator=torch.Generator().manual_seed(0))
    before_model = _load(before_path, "flag_before").Model().eval()  # type: ignore[attr-defined]
    after_model = _load(after_path, "flag_after").Model().eval()  # type: ignore[attr-defined]
    try:
        with torch.no_grad(), torch._dynamo.config.patch(capture_dynamic_output_shape_ops=True):
            torch._dynamo.reset()
            assert torch.equal(torch.compile(before_model, fullgraph=True)(x), before_model(x))
            torch._dynamo.reset()
            with pytest.raises(torch._dynamo.exc.Unsupported, match="disable"):
                torch.compile(after_model, fullgraph=True)(x)
    finally:
        torch._dynamo.reset()


def test_a_package_that_only_names_the_capture_flag_in_a_comment_still_gets_the_decorator(tmp_path: Path) -> None:
    """transformers' dbrx says "(set torch._dynamo.config.capture_dynamic_output_shape_ops = True may
    help but not tested)" in a comment: that turns nothing on, so Grounding DINO's helper in the same
    package is still decorated. A dict-style patch does turn it on."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "dbrx.py").write_text(
        "def route(x):\n"
        "    # (set torch._dynamo.config.capture_dynamic_output_shape_ops = True may help but not tested)\n"
        "    return x\n",
        encoding="utf-8",
    )
    assert _fixed(package, HELPER) != HELPER
    patched = tmp_path / "patched"
    patched.mkdir()
    (patched / "__init__.py").write_text("", encoding="utf-8")
    (patched / "detector.py").write_text(
        'import torch\n\nPATCH = torch._dynamo.config.patch({"capture_dynamic_output_shape_ops": True})\n',
        encoding="utf-8",
    )
    assert _fixed(patched, HELPER) == HELPER


# Issue 24.3: the decorator moves its break, it does not remove it, and every count says so. Forward
# also prints: a guard removes that break, the one break `--fix` may count as fixed.
PRINTING = HELPER.replace("        h = torch.sin(x)\n", "        h = torch.sin(x)\n        print(\"step\")\n")


def _line_of(path: Path, text: str) -> int:
    return next(row for row, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if text in line)


def _break_rows(lines: list[str], path: Path) -> set[int]:
    """The rows of `path` in graph_breaks log lines ("... user code at <file>:<row> ...")."""
    marker = f"{path.name}:"
    return {int(line.rsplit(marker, 1)[1].split()[0]) for line in lines if marker in line}


def test_fixed_counts_what_dynamo_removes_and_the_decorator_as_moved(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before_path, after_path = tmp_path / "counts_before.py", tmp_path / "counts_after.py"
    before_path.write_text(PRINTING, encoding="utf-8")
    after_path.write_text(PRINTING, encoding="utf-8")
    assert main(["check", "--fix", "--unsafe-fixes", str(after_path)]) == 1  # the moved break is still reported
    captured = capsys.readouterr()
    assert "@torch.compiler.disable\ndef positive_rows" in after_path.read_text(encoding="utf-8")
    assert "Fixed 1 graph break(s) in 1 file(s)." in captured.err  # it said "Fixed 2"
    assert "Moved 1 graph break(s) to the callers" in captured.err and "not counted as fixed" in captured.err
    # The moved break does not vanish from the report: it is reported where Dynamo now breaks, at
    # the call of the disabled helper (GM620), and no longer inside it (GM501).
    assert "GM620" in captured.out and "GM501" not in captured.out
    x = torch.randn(5, 3, generator=torch.Generator().manual_seed(0))
    _, before_lines = _graph_break_lines(_load(before_path, "counts_before").Model().eval(), x)  # type: ignore[attr-defined]
    _, after_lines = _graph_break_lines(_load(after_path, "counts_after").Model().eval(), x)  # type: ignore[attr-defined]
    # Dynamo: the print's break is gone (the one counted as fixed); forward still breaks at the
    # call of the helper (moved, not fixed), and that is the only break left.
    assert _line_of(before_path, 'print("step")') in _break_rows(before_lines, before_path)
    assert _break_rows(after_lines, after_path) == {_line_of(after_path, "positive_rows(h)")}
    assert {(f.code, f.location.row) for f in check([str(after_path)]).findings} == {
        ("GM620", _line_of(after_path, "positive_rows(h)"))
    }


def test_the_diff_and_the_check_say_the_decorator_only_moves_the_break(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "helper_case.py"
    path.write_text(HELPER, encoding="utf-8")
    assert main(["check", "--diff", "--unsafe-fixes", str(path)]) == 1
    err = capsys.readouterr().err
    assert "Would fix 0 graph break(s) in 0 file(s)." in err and "Would move 1 graph break(s)" in err
    assert main(["check", "--show-fixes", str(path)]) == 1
    out = capsys.readouterr().out
    assert "more with `--unsafe-fixes`" not in out  # moving is not fixing
    assert "1 can only be moved to the callers with `--unsafe-fixes`" in out
    outcome = fix_outcome([str(path)], Config(), unsafe=True)
    [change] = outcome.changes
    assert (change.breaks_removed, change.breaks_moved, change.still_reported) == (0, 1, 0)


def test_the_fix_records_its_effect_and_old_records_read_as_removals(tmp_path: Path) -> None:
    path = tmp_path / "helper_case.py"
    path.write_text(PRINTING, encoding="utf-8")
    fixes = {f.code: f.fix for f in attach_fixes(check([str(path)]), Config()).findings}
    assert fixes["GM501"] is not None and fixes["GM501"].effect == "moves"
    assert fixes["GM401"] is not None and fixes["GM401"].effect == "removes"
    record = json.loads(json.dumps(fix_record(fixes["GM501"])))
    read = read_fix(record, "fix")
    assert read is not None and read.effect == "moves"
    del record["effect"]  # a record written before the field existed
    old = read_fix(record, "fix")
    assert old is not None and old.effect == "removes"
    with pytest.raises(ValueError, match=r"fix\.effect"):
        read_fix({**record, "effect": "hides"}, "fix")
