"""Markdown for GitHub: review comments, the review body, the summary comment and the job summary.

Pure functions: findings (and what the GitHub layer decided about them) in, Markdown out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from urllib.parse import quote

from graphmend_bot.fences import code_block, code_span
from graphmend_bot.findings import CheckResult, FileError, Finding
from graphmend_bot.report.text import summary_line
from graphmend_bot.report.untrusted_text import markdown_text
from graphmend_bot.rules import ALL_RULES_BY_CODE, gb_url

# GitHub rejects comment bodies over 65,536 characters; stay well below.
MAX_BODY = 60_000
MAX_TABLE_ROWS = 100
MAX_FIX_DIFF = 20_000
RARE_SENTENCE = ("Only on a branch valid inputs rarely take (an error or misconfiguration path): "
                 "it does not break the graph on every call.")


def _rule_link(finding: Finding) -> str:
    return f"[{finding.gb_id or 'no id'}]({gb_url(finding.gb_id)})"


def evidence_line(finding: Finding) -> str:
    """What Dynamo said about this line in the project's tests (a census), in one sentence."""
    evidence = finding.evidence
    if evidence is None:
        return ""
    if evidence.status == "confirmed":
        # The test id comes from a census file, which a pull request's tests may have written.
        return f"Confirmed by Dynamo in {code_span(evidence.test[:200])}." if evidence.test else \
            "Confirmed by Dynamo in the tests."
    return "Ran in the tests without a graph break: Dynamo may handle this line; check before changing it."


def unsafe_label(assumptions: Sequence[str]) -> str:
    """What an unsafe suggestion rests on, for a reviewer deciding whether to apply it."""
    if not any(a.strip() for a in assumptions):  # a fix read back from a bundle: its message says it
        return "**Unsafe**: it rests on the assumption its description states; GPU verification checks it"
    return f"**Unsafe**: assumes {assumed_text(assumptions)}; GPU verification checks it"


def assumed_text(assumptions: Sequence[str]) -> str:
    """The assumptions after "assumes", each without its own leading "assumes"."""
    phrases = [a.removeprefix("assumes ").strip() for a in assumptions]
    return "; ".join(markdown_text(p) for p in phrases if p)


def finding_comment(finding: Finding, marker: str, suggestion: str | None = None) -> str:
    """One inline review comment: what breaks, why, the one-click fix when there is a safe one."""
    rule = ALL_RULES_BY_CODE.get(finding.code)
    parts = [f"**{finding.code}** {markdown_text(finding.message)} (PyTorch graph break {_rule_link(finding)})"]
    if finding.evidence is not None:
        parts.append(evidence_line(finding))
    if finding.rare:
        parts.append(RARE_SENTENCE)
    if rule is not None:
        parts.append(rule.why)
    if suggestion is not None and finding.fix is not None and finding.fix.applicability == "unsafe":
        # A fix read back from a bundle has no assumptions apart from its message: show the message then.
        title = finding.fix.title if finding.fix.assumptions else finding.fix.message
        parts.append(f"{markdown_text(title)}. {unsafe_label(finding.fix.assumptions)}:\n\n"
                     + code_block(suggestion, "suggestion"))
    elif suggestion is not None and finding.fix is not None:
        parts.append(f"{markdown_text(finding.fix.message)}:\n\n" + code_block(suggestion, "suggestion"))
    elif finding.fix is not None:
        parts.append(f"Fix ({finding.fix.applicability}): {markdown_text(finding.fix.message)}.")
    elif rule is not None:
        parts.append(f"<details><summary>How to fix</summary>\n\n{rule.fix_safety}\n\n"
                     f"{code_block(rule.use_instead.strip(), 'python')}\n"
                     f"</details>")
    parts.append(f"<sub>`graphmend rule {finding.code}` explains this rule.</sub>\n{marker}")
    return "\n\n".join(parts)


def resolved_comment(original: str, marker: str, sha: str) -> str:
    """The body a comment gets when its finding is gone but people replied to it (kept, not deleted)."""
    # The bot's marker is the original's last line; markers earlier in it are quoted code, kept as text.
    kept = original.rstrip().rpartition("\n")[0].rstrip()
    return (
        f"**Resolved** in {sha[:7]}: this graph break is gone.\n\n"
        f"<details><summary>Original comment</summary>\n\n{kept}\n\n</details>\n\n{marker}"
    )


def findings_review_body(commented: int, overflow: Sequence[Finding], limit: int) -> str:
    """The body of the bot's findings review (approval/verdict.py's review_body is the GPU verdict's)."""
    lines = [f"GraphMend found {commented + len(overflow)} new graph break(s) on lines changed in this pull request."]
    if overflow:
        lines.append(
            f"To keep the review readable, {commented} are commented inline (at most {limit} per review); "
            f"the other {len(overflow)} are listed here and in the summary comment:"
        )
        lines.append("")
        lines += [f"- {code_span(f'{f.path}:{f.location.row}')} **{f.code}** {markdown_text(f.message)}"
                  for f in overflow[:MAX_TABLE_ROWS]]
        if len(overflow) > MAX_TABLE_ROWS:
            lines.append(f"- ... and {len(overflow) - MAX_TABLE_ROWS} more")
    return "\n".join(lines)


@dataclass
class SummaryView:
    """What the summary comment and the job summary report, decided by the GitHub layer."""

    findings: list[Finding]
    errors: list[FileError] = field(default_factory=list)
    files_checked: int = 0
    changed_files: int = 0
    head_sha: str = ""
    blob_url: str = ""  # "<server>/<owner>/<repo>/blob/<sha>", for links to lines; empty for none
    inline: int = 0  # findings that have an inline comment
    fix_diff: str = ""  # unified diff of the safe fixes: what the fix PR would change
    notes: list[str] = field(default_factory=list)  # e.g. "read-only token: annotations only"


def _location(finding: Finding, blob_url: str) -> str:
    text = code_span(f"{finding.path}:{finding.location.row}")
    if blob_url:
        return f"[{text}]({blob_url}/{quote(finding.path)}#L{finding.location.row})"
    return text


def _counts_table(findings: Sequence[Finding]) -> list[str]:
    counts = Counter(f.code for f in findings)
    rows = ["| Rule | Graph break | Count | Safe fix |", "|---|---|---:|---:|"]
    for code in sorted(counts):
        sample = next(f for f in findings if f.code == code)
        rule = ALL_RULES_BY_CODE.get(code)
        name = f" {rule.name}" if rule else ""
        fixable = sum(1 for f in findings if f.code == code and f.fix and f.fix.applicability == "safe")
        rows.append(f"| **{code}**{name} | {_rule_link(sample)} | {counts[code]} | {fixable} |")
    return rows


def _findings_table(findings: Sequence[Finding], blob_url: str) -> list[str]:
    rows = ["| Location | Rule | Message | Fix |", "|---|---|---|---|"]
    for finding in findings[:MAX_TABLE_ROWS]:
        fix = finding.fix.applicability if finding.fix else "manual"
        rare = "(rare branch: error or misconfiguration path)" if finding.rare else ""
        message = " ".join(part for part in (markdown_text(finding.message), evidence_line(finding), rare) if part)
        rows.append(f"| {_location(finding, blob_url)} | {finding.code} | {message} | {fix} |")
    if len(findings) > MAX_TABLE_ROWS:
        rows.append(f"| ... | | {len(findings) - MAX_TABLE_ROWS} more, see the SARIF report | |")
    return rows


def _fix_section(view: SummaryView) -> list[str]:
    safe = [f for f in view.findings if f.fix and f.fix.applicability == "safe"]
    if not safe:
        return ["No finding has a safe automatic rewrite; each one says how to fix it by hand."]
    files = sorted({f.path for f in safe})
    out = [f"{len(safe)} finding(s) in {len(files)} file(s) have a safe rewrite (`graphmend check --fix`)"
           f"{frequency_clause(safe)}:"]
    if view.fix_diff:
        diff = view.fix_diff
        if len(diff) > MAX_FIX_DIFF:
            diff = diff[:MAX_FIX_DIFF] + "\n... (truncated)\n"
        out += ["", "<details><summary>The change</summary>", "", code_block(diff.rstrip("\n"), "diff"), "",
                "</details>"]
    else:
        out += [f"- {code_span(path)}" for path in files]
    return out


def summary_markdown(view: SummaryView, title: str = "GraphMend") -> str:
    """Body of the summary comment (and of the job summary): table, counts per rule, fix preview."""
    count = len(view.findings)
    head = f" at {view.head_sha[:7]}" if view.head_sha else ""
    if count:
        lines = [f"## {title}: {count} graph break(s) in the changed Python files{head}", ""]
    else:
        lines = [f"## {title}: no graph breaks in the changed Python files{head}", ""]
    lines.append(
        f"Checked {view.changed_files} changed Python file(s) ({view.files_checked} file(s) analysed for scope). "
        f"{view.inline} finding(s) commented inline; the others appear as annotations."
        if count else f"Checked {view.changed_files} changed Python file(s) ({view.files_checked} analysed for scope)."
    )
    lines += [f"> {note}" for note in view.notes]
    rare = sum(f.rare for f in view.findings)
    if rare:
        lines += ["", f"{count - rare} break(s) happen on every call; {rare} only on branches valid inputs "
                  "rarely take (error or misconfiguration paths), marked *rare branch* below."]
    if count:
        lines += ["", "### Findings", "", *_findings_table(view.findings, view.blob_url)]
        lines += ["", "### By rule", "", *_counts_table(view.findings)]
        lines += ["", "### What the fix pull request would change", "", *_fix_section(view)]
    if view.errors:
        lines += ["", "### Files that could not be analysed", ""]
        lines += [f"- {code_span(e.path)}: {markdown_text(e.message)}" for e in view.errors[:MAX_TABLE_ROWS]]
    lines += ["", f"<sub>{summary_line_for(view)}</sub>"]
    body = "\n".join(lines) + "\n"
    if len(body) > MAX_BODY:
        body = body[:MAX_BODY] + "\n\n... (truncated; the SARIF report has every finding)\n"
    return body


def frequency_clause(findings: Sequence[Finding]) -> str:
    """" (E on every call, R on rare branches)" when some of `findings` are rare, else ""."""
    rare = sum(f.rare for f in findings)
    return f" ({len(findings) - rare} on every call, {rare} on rare branches)" if rare else ""


def summary_line_for(view: SummaryView) -> str:
    return summary_line(CheckResult(list(view.findings), list(view.errors), view.files_checked)).strip()
