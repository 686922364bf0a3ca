"""The three renderings of one verify run: terminal table, JSON, Markdown."""

from __future__ import annotations

import dataclasses
import json

from graphmend_bot.verify import VerifyReport
from graphmend_bot.verify.coverage import RewrittenLine
from graphmend_bot.verify.render import render_json, render_markdown, render_table

from .conftest import result_named


def test_json_has_the_documented_fields(pairs_report: VerifyReport) -> None:
    data = json.loads(render_json(pairs_report))
    assert data["passed"] is False
    entries = {entry["name"]: entry for entry in data["entry_points"]}
    assert len(entries) == len(pairs_report.results)
    net = entries["logging-net"]
    measured = result_named(pairs_report, "logging-net")
    for arm in ("original", "rewritten"):
        for key in ("graph_count", "graph_break_count", "cold_start_s", "steady_state_s"):
            assert net[arm][key] == getattr(getattr(measured, arm), key)
    assert (net["original"]["graph_count"], net["rewritten"]["graph_count"]) == (2, 1)
    assert net["outputs_equal"] is True
    assert net["verdict"] == "improved"
    assert net["cold_start_speedup"] == net["original"]["cold_start_s"] / net["rewritten"]["cold_start_s"]
    assert entries["swapped"]["outputs_equal"] is False
    assert entries["swapped"]["verdict"] == "outputs differ"
    assert entries["raising"]["verdict"] == "error"
    assert entries["raising"]["original"]["error_kind"] == "factory-raised"
    assert entries["raising"]["outputs_equal"] is None


def test_table_has_one_row_per_entry_point_and_the_reasons(pairs_report: VerifyReport) -> None:
    table = render_table(pairs_report)
    lines = table.splitlines()
    header = next(line for line in lines if line.startswith("entry point"))
    assert "CUDA graph launches" not in header  # no CUDA run, no column
    start = lines.index(header) + 2
    body = lines[start : lines.index("", start)]
    assert len(body) == len(pairs_report.results)
    rows = {line.split()[0]: line for line in body}
    assert rows["logging-net"].split()[1:4] == ["2", "->", "1"]
    assert rows["debugged"].rstrip().endswith("regressed")
    assert "  - the rewritten arm has more graphs (2 > 1)" in lines
    # the breaks as a diff of the arms: the logging break removed, listed under its heading
    removed = lines.index("  - breaks removed (1):")
    assert lines[removed + 1].startswith("    - vcases.py:") and "logging.Logger" in lines[removed + 1]
    passed = sum(result.passed for result in pairs_report.results)
    assert (
        lines[-1]
        == f"{passed} of {len(pairs_report.results)} entry point(s) passed; speedup = original / rewritten."
    )


def test_markdown_is_a_pr_comment_table(pairs_report: VerifyReport) -> None:
    markdown = render_markdown(pairs_report).replace("\u200b", "")  # as shown: hex runs are broken
    lines = markdown.splitlines()
    assert lines[0] == "### GraphMend verify"
    assert lines[2].startswith(":x: ")
    table = [line for line in lines if line.startswith("| ")]
    assert len(table) == 1 + len(pairs_report.results)
    net = next(line for line in table if line.startswith("| logging-net |"))
    assert "| 2 -> 1 | 1 -> 0 |" in net and net.endswith(":white_check_mark: improved |")
    assert "<details><summary>Details</summary>" in lines
    swapped = result_named(pairs_report, "swapped")
    assert f"- {swapped.reasons[0]}" in lines
    assert "| swapped |" in markdown and ":x: outputs differ |" in markdown


def test_json_shows_the_rule_and_errors_per_output(pairs_report: VerifyReport) -> None:
    entries = {entry["name"]: entry for entry in json.loads(render_json(pairs_report))["entry_points"]}
    ulp = entries["ulp-moved"]
    assert ulp["equivalence"]["passed"] is True and ulp["outputs_equal"] is True
    rows = {(row["kind"], row["key"]): row for row in ulp["equivalence"]["outputs"]}
    assert rows[("eager", "output")]["rule"] == "eager-bitwise"
    assert rows[("eager", "output")]["max_abs"] == 0.0
    compiled = rows[("compiled", "output")]
    assert compiled["rule"] == "compiled-vs-fp64" and compiled["passed"] is True
    assert 0 < compiled["max_abs"] < 1e-5 and 0 < compiled["max_rel"] < 1e-6
    assert 0 < compiled["error"] <= compiled["budget"]
    root = {(row["kind"], row["key"]): row for row in entries["root-net"]["equivalence"]["outputs"]}
    nan_gradient = root[("grad-eager", "grad.parameter.lin.weight")]
    assert nan_gradient["passed"] is False and nan_gradient["failed_seeds"] == ["0", "1"]
    assert nan_gradient["max_abs"] == "nan"  # JSON has no NaN: the string says it
    assert entries["root-net"]["settings"]["backward"] is True
    assert entries["raising"]["equivalence"] == {"passed": None, "outputs": []}


def test_markdown_lists_the_rule_per_output_and_the_uncovered_lines(pairs_report: VerifyReport) -> None:
    lines = render_markdown(pairs_report).splitlines()
    assert any(
        line.startswith(
            "- :x: grad-eager `grad.parameter.lin.weight` (gradient-eager-bitwise): max abs nan"
        )
        for line in lines
    )
    assert any(
        line.startswith("- pass compiled `output` (compiled-vs-fp64): max abs ") for line in lines
    )
    coverage = pairs_report.coverage
    # ulp-moved's compiled-only line (the body of `if torch.compiler.is_compiling():`, which eager
    # calls never run) is proven by the `if` line that chose it
    assert not any("# the compiled" in line.text for line in coverage.lines)
    assert any(line.text.startswith("if torch.compiler.is_compiling():") for line in coverage.covered)
    summary = f"coverage of the rewrite: {len(coverage.covered)} of {len(coverage.lines)} rewritten line(s) executed"
    assert any(line.startswith(summary) for line in lines)
    never_run = RewrittenLine("vcases.py", 999, "print('never')")
    report = dataclasses.replace(pairs_report, rewritten_lines=[*pairs_report.rewritten_lines, never_run])
    assert any(
        line.startswith("- never executed: `vcases.py:999`") for line in render_markdown(report).splitlines()
    )
