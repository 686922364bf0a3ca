"""Render a VerifyReport: a terminal table, JSON for machines, Markdown for a PR comment."""

from __future__ import annotations

import json
import math
from typing import Any

from graphmend_bot.fences import code_span
from graphmend_bot.report.untrusted_text import markdown_text
from graphmend_bot.verify.break_diff import diff_breaks
from graphmend_bot.verify.coverage import Coverage, RewrittenLine
from graphmend_bot.verify.policy import Check
from graphmend_bot.verify.proof import proves_rewrite
from graphmend_bot.verify.protocol import ArmResult
from graphmend_bot.verify.runner import EntryResult, VerifyReport
from graphmend_bot.verify.table import (
    markdown_table,
    outputs_text,
    pair_text,
    speedup_text,
    spread_text,
    timing_text,
    within_noise,
)

JSON_VERSION = 1
SHOWN_CHECKS = 20  # Markdown rows per entry point: the failures first, then the largest errors
SHOWN_LINES = 50  # uncovered lines listed in Markdown and the table


def ratio(original: float | None, rewritten: float | None) -> float | None:
    """original / rewritten: above 1 means the rewrite is faster."""
    if original is None or rewritten is None or rewritten <= 0:
        return None
    return original / rewritten


def steady_within_noise(result: EntryResult) -> bool | None:
    o, r = result.original, result.rewritten
    return within_noise((o.steady_state_min_s, o.steady_state_max_s), (r.steady_state_min_s, r.steady_state_max_s))


def _launches(result: EntryResult) -> str | None:
    if result.original.cuda_graph_launches is None and result.rewritten.cuda_graph_launches is None:
        return None
    return pair_text(result.original.cuda_graph_launches, result.rewritten.cuda_graph_launches)


def _row(result: EntryResult) -> list[str]:
    o, r = result.original, result.rewritten
    return [
        result.entry.name,
        pair_text(o.graph_count, r.graph_count),
        pair_text(o.graph_break_count, r.graph_break_count),
        timing_text(o.cold_start_s, r.cold_start_s),
        speedup_text(ratio(o.cold_start_s, r.cold_start_s)),
        f"{spread_text(o.steady_state_s, o.steady_state_min_s, o.steady_state_max_s)} -> "
        f"{spread_text(r.steady_state_s, r.steady_state_min_s, r.steady_state_max_s)}",
        speedup_text(ratio(o.steady_state_s, r.steady_state_s), steady_within_noise(result)),
        _launches(result) or "-",
        outputs_text(result.outputs_equal),
        result.verdict,
    ]


HEADERS = [
    "entry point",
    "graphs",
    "breaks",
    "cold start",
    "speedup",
    "steady state",
    "speedup",
    "CUDA graph launches",
    "outputs",
    "verdict",
]


def _columns(report: VerifyReport) -> tuple[list[str], list[list[str]]]:
    rows = [_row(result) for result in report.results]
    keep = [
        i
        for i, header in enumerate(HEADERS)
        if header != "CUDA graph launches" or any(row[i] != "-" for row in rows)
    ]
    return [HEADERS[i] for i in keep], [[row[i] for i in keep] for row in rows]


def _settings_line(result: EntryResult, arm: ArmResult) -> str:
    settings = result.entry.settings
    mode = f", mode {settings.mode}" if settings.mode else ""
    return (
        f"{arm.device or settings.device}, {settings.dtype or 'factory dtype'}, backend {settings.backend}{mode}, "
        f"seeds {', '.join(map(str, settings.seeds))}, {settings.describe_tolerance()}"
    )


def render_table(report: VerifyReport) -> str:
    headers, rows = _columns(report)
    widths = [max(len(cell) for cell in column) for column in zip(headers, *rows, strict=True)]
    lines = [
        f"original:  {report.original.label} ({report.original.root})",
        f"rewritten: {report.rewritten.label} ({report.rewritten.root})",
        "",
        "  ".join(cell.ljust(width) for cell, width in zip(headers, widths, strict=True)).rstrip(),
        "  ".join("-" * width for width in widths),
    ]
    lines += [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip() for row in rows
    ]
    for result in report.results:
        lines += _details(result, indent="  ")
    lines += ["", *_coverage_lines(report.coverage, code=False)]
    passed = sum(result.passed for result in report.results)
    lines += ["", "steady state: the median of the timed calls, their min-max in brackets; \"within noise\" where "
                  "the arms' ranges overlap.",
              f"{passed} of {len(report.results)} entry point(s) passed; speedup = original / rewritten."]
    return "\n".join(lines) + "\n"


def checks_by_output(checks: list[Check]) -> list[dict[str, Any]]:
    """One row per (kind, output): the worst over the seeds, and the seeds that failed."""
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for check in checks:
        row = rows.setdefault(
            (check.kind, check.key),
            {"kind": check.kind, "key": check.key, "rule": check.rule, "passed": True, "failed_seeds": [],
             "max_abs": None, "max_rel": None, "error": None, "budget": None, "detail": ""},
        )  # fmt: skip
        row["rule"] = check.rule
        for name in ("max_abs", "max_rel"):
            row[name] = _larger(row[name], getattr(check, name))
        if check.error is not None and (row["error"] is None or _ratio(check) >= _ratio_of_row(row)):
            row["error"], row["budget"] = check.error, check.budget
        if not check.passed:
            row["passed"] = False
            row["failed_seeds"].append(check.seed)
            row["detail"] = row["detail"] or check.detail
    return [
        {**row, "max_abs": _json_number(row["max_abs"]), "max_rel": _json_number(row["max_rel"])}
        for row in rows.values()
    ]


def _larger(current: float | str | None, value: float | None) -> float | str | None:
    """The larger error; NaN (a NaN or inf one side only) outranks any number."""
    if value is None:
        return current
    if current is None or math.isnan(value):
        return value
    return current if isinstance(current, str) or math.isnan(current) or current >= value else value


def _json_number(value: float | str | None) -> float | str | None:
    """JSON has no NaN or Infinity: those become the strings "nan" and "inf"."""
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else "inf"
    return value


def _ratio(check: Check) -> float:
    if check.error is None or not check.budget:
        return float("inf") if check.error else 0.0
    return check.error / check.budget


def _ratio_of_row(row: dict[str, Any]) -> float:
    if row["error"] is None or not row["budget"]:
        return float("inf") if row["error"] else 0.0
    return float(row["error"] / row["budget"])


def _shown_checks(result: EntryResult) -> list[dict[str, Any]]:
    rows = checks_by_output(list(result.judgement.checks))
    return sorted(rows, key=lambda row: (row["passed"], -_sort_value(row["max_rel"])))


def _sort_value(value: float | str | None) -> float:
    return float("inf") if isinstance(value, str) else (value or 0.0)


def _number(value: float | str | None) -> str:
    if value is None:
        return "-"
    return value if isinstance(value, str) else f"{value:.3g}"


def _error_text(row: dict[str, Any]) -> str:
    text = f"max abs {_number(row['max_abs'])}, max rel {_number(row['max_rel'])}"
    if row["error"] is not None:
        text += f", rmse {_number(row['error'])} (at most {_number(row['budget'])})"
    return text + ("" if row["passed"] else f": FAILED on seed(s) {', '.join(row['failed_seeds'])}")


def _line_label(line: RewrittenLine) -> str:
    return f"{line.path}:{line.line}"


def _coverage_lines(coverage: Coverage, code: bool) -> list[str]:
    total, covered = len(coverage.lines), len(coverage.covered)
    if total == 0:
        return ["coverage of the rewrite: no rewritten line (the arms' .py files are the same)"]
    uncovered = coverage.uncovered
    lines = [f"coverage of the rewrite: {covered} of {total} rewritten line(s) executed by an entry point"]
    for line in uncovered[:SHOWN_LINES]:
        # source text is the PR's: a code span nothing inside can close
        label = (
            f"{code_span(_line_label(line))} {code_span(line.text)}"
            if code
            else f"{_line_label(line)}  {line.text}"
        )
        lines.append(f"- never executed: {label}")
    if len(uncovered) > SHOWN_LINES:
        lines.append(f"- ... and {len(uncovered) - SHOWN_LINES} more (see the JSON report)")
    return lines


def _details(result: EntryResult, indent: str) -> list[str]:
    lines = [""]
    measured = result.original if result.original.ok else result.rewritten
    lines.append(
        f"{result.entry.name} ({result.entry.factory}; {_settings_line(result, measured)}): {result.verdict}"
    )
    lines += [f"{indent}- {reason}" for reason in result.reasons]
    lines += [f"{indent}- note: {note}" for note in result.notes]
    if result.comparison is not None and result.comparison.equal:
        lines.append(f"{indent}- outputs: {result.comparison.detail}")
    for row in _shown_checks(result)[:SHOWN_CHECKS]:
        lines.append(f"{indent}- {row['kind']} {row['key']}: {row['rule']}, {_error_text(row)}")
    lines += _break_diff_lines(result, indent)
    return lines


def _break_diff_lines(result: EntryResult, indent: str) -> list[str]:
    """The breaks as a diff of the two arms, so nobody compares two lists by eye."""
    diff = diff_breaks(result.original.break_reasons, result.rewritten.break_reasons)
    lines = []
    for label, sign, reasons in (("removed", "-", diff.removed), ("added", "+", diff.added), ("kept", " ", diff.kept)):
        if reasons:
            lines.append(f"{indent}- breaks {label} ({len(reasons)}):")
            lines += [f"{indent}  {sign} {reason['location'] or '?'}: {reason['reason']}" for reason in reasons]
    return lines


def _break_diff_json(result: EntryResult) -> dict[str, Any]:
    diff = diff_breaks(result.original.break_reasons, result.rewritten.break_reasons)
    return {"removed": diff.removed, "added": diff.added, "kept": diff.kept}


def _arm_json(arm: ArmResult) -> dict[str, Any]:
    return {
        "ok": arm.ok,
        "error": arm.error,
        "error_kind": arm.error_kind,
        "device": arm.device,
        "graph_count": arm.graph_count,
        "graph_break_count": arm.graph_break_count,
        "break_reasons": arm.break_reasons,
        "cold_start_s": arm.cold_start_s,
        "steady_state_s": arm.steady_state_s,
        "steady_state_min_s": arm.steady_state_min_s,
        "steady_state_max_s": arm.steady_state_max_s,
        "cuda_graph_launches": arm.cuda_graph_launches,
        "cuda_kernel_launches": arm.cuda_kernel_launches,
    }


def report_json(report: VerifyReport) -> dict[str, Any]:
    """The report for machines. `outputs_equal` means: equivalent under the policy (policy.py),
    eager results bit-identical and compiled ones within the original's error; `proof` is
    proof.proves_rewrite's answer (a consumer that must not trust the producer recomputes it)."""
    coverage = report.coverage
    not_reached = {
        result.entry.name: set(coverage.uncovered_by(result.entry.name)) for result in report.results
    }
    entries = []
    for result in report.results:
        settings = result.entry.settings
        entries.append(
            {
                "name": result.entry.name,
                "factory": result.entry.factory,
                "settings": {
                    "device": settings.device,
                    "dtype": settings.dtype,
                    "seeds": list(settings.seeds),
                    "tolerance": settings.describe_tolerance(),
                    "backend": settings.backend,
                    "mode": settings.mode,
                    "warmup": settings.warmup,
                    "repeat": settings.repeat,
                    "backward": settings.backward,
                    "compiled_multiplier": settings.compiled_multiplier,
                    "compiled_tol": settings.compiled_tol,
                },
                "original": _arm_json(result.original),
                "rewritten": _arm_json(result.rewritten),
                "outputs_equal": result.outputs_equal,
                "max_abs_diff": result.comparison.max_abs_diff if result.comparison else None,
                "cold_start_speedup": ratio(result.original.cold_start_s, result.rewritten.cold_start_s),
                "steady_state_speedup": ratio(
                    result.original.steady_state_s, result.rewritten.steady_state_s
                ),
                "steady_state_within_noise": steady_within_noise(result),
                "breaks": _break_diff_json(result),
                "verdict": result.verdict,
                "rule": result.judgement.rule,
                "passed": result.passed,
                "reasons": result.reasons,
                "notes": result.notes,
                "equivalence": {
                    "passed": result.outputs_equal,
                    "outputs": checks_by_output(list(result.judgement.checks)),
                },
                "coverage": {
                    "covered": [
                        _line_json(line)
                        for line in coverage.lines
                        if line not in not_reached[result.entry.name]
                    ],
                    "uncovered": [
                        _line_json(line) for line in coverage.lines if line in not_reached[result.entry.name]
                    ],
                },
            }
        )
    data: dict[str, Any] = {
        "version": JSON_VERSION,
        "original": {"label": report.original.label, "root": str(report.original.root)},
        "rewritten": {"label": report.rewritten.label, "root": str(report.rewritten.root)},
        "passed": report.passed,
        "entry_points": entries,
        "coverage": {
            "rewritten_lines": len(coverage.lines),
            "covered": [
                {
                    **_line_json(line),
                    "text": line.text,
                    "entry_points": list(coverage.covered_by[(line.path, line.line)]),
                }
                for line in coverage.covered
            ],
            "uncovered": [{**_line_json(line), "text": line.text} for line in coverage.uncovered],
        },
    }
    proof = proves_rewrite(data)
    data["proof"] = {"proven": proof.proven, "reasons": proof.reasons}
    return data


def _line_json(line: RewrittenLine) -> dict[str, Any]:
    return {"path": line.path, "line": line.line}


def render_json(report: VerifyReport) -> str:
    return json.dumps(report_json(report), indent=2) + "\n"


def render_markdown(report: VerifyReport) -> str:
    headers, rows = _columns(report)
    icon = {True: ":white_check_mark:", False: ":x:"}
    passed = sum(result.passed for result in report.results)
    lines = [
        "### GraphMend verify",
        "",
        f"{icon[report.passed]} {passed} of {len(report.results)} entry point(s) passed. "
        f"Original: {code_span(report.original.label)}; rewritten: {code_span(report.rewritten.label)}. "
        "Speedup = original / rewritten.",
        "",
    ]
    cells = [[*map(markdown_text, row[:-1]), f"{icon[result.passed]} {markdown_text(row[-1])}"]
             for result, row in zip(report.results, rows, strict=True)]
    lines += markdown_table(headers, cells)
    lines += ["", *_coverage_lines(report.coverage, code=True)]
    details = [
        result
        for result in report.results
        if result.reasons
        or result.notes
        or result.comparison
        or result.original.break_reasons
        or result.rewritten.break_reasons
    ]
    if details:
        lines += ["", "<details><summary>Details</summary>", ""]
        for result in details:
            lines += [
                f"**{markdown_text(result.entry.name)}** ({markdown_text(_settings_line(result, result.original))})",
                "",
            ]
            lines += [f"- {markdown_text(reason)}" for reason in result.reasons]
            lines += [f"- note: {markdown_text(note)}" for note in result.notes]
            lines += _checks_list(result)
            diff = diff_breaks(result.original.break_reasons, result.rewritten.break_reasons)
            for label, reasons in (("removed", diff.removed), ("added", diff.added), ("kept", diff.kept)):
                lines += [
                    f"- break {label} at {code_span(r['location'] or '?')}: {markdown_text(r['reason'])}"
                    for r in reasons
                ]
            lines.append("")
        lines.append("</details>")
    return "\n".join(lines) + "\n"


def _checks_list(result: EntryResult) -> list[str]:
    """Per output: the rule that decided, its errors and the verdict (failures first)."""
    rows = _shown_checks(result)
    lines = [
        f"- {'pass' if row['passed'] else ':x:'} {row['kind']} {code_span(row['key'])} "
        f"({row['rule']}): {markdown_text(_error_text(row))}"
        for row in rows[:SHOWN_CHECKS]
    ]
    if len(rows) > SHOWN_CHECKS:
        lines.append(f"- ... {len(rows) - SHOWN_CHECKS} more output(s) in the JSON report")
    return lines


RENDERERS = {"table": render_table, "json": render_json, "markdown": render_markdown}
