"""Markdown for GitHub: review comments, the review body, the summary comment and the job summary.

Pure functions: findings (and what the GitHub layer decided about them) in, Markdown out.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol
from urllib.parse import quote

from graphmend_bot.fences import code_block, code_span
from graphmend_bot.findings import CheckResult, FileError, Finding
from graphmend_bot.report.text import summary_line
from graphmend_bot.report.untrusted_text import markdown_text
from graphmend_bot.rules import ALL_RULES_BY_CODE, Rule, advice_for, gb_url

# GitHub rejects comment bodies over 65,536 characters; stay well below.
MAX_BODY = 60_000
MAX_TABLE_ROWS = 100
MAX_FIX_DIFF = 20_000
MOVED_BREAK = ("`@torch.compiler.disable` runs the helper eagerly, and each call of it still breaks the caller's "
               "graph: the break moves to the callers, it is not removed (GM620 reports each call).")
PREEXISTING_SENTENCE = ("**Pre-existing**: this pull request does not change this line; it is shown because "
                       "the diff shows it next to a change.")
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


# A review comment is read on the diff: the visible part is the finding, the fix or the one-line help,
# and the links; the rule's reasoning and fix-safety notes go behind <details>, cut to whole
# sentences within this many words (`graphmend rule CODE` prints them whole).
MAX_NOTES_WORDS = 150
# A file path (`utils/deprecation.py`): the rule docs cite where they measured, in other projects and
# in this one's tests; a reviewer of another project's pull request has no use for either.
_FILE_REFERENCE = re.compile(r"[\w./*-]*\w\.py\b")
_PARENTHESES_WITH_FILE = re.compile(r"\s*\([^()]*?\.py\b[^()]*\)")
_SENTENCE_END = re.compile(r"(?<=[.;:])\s+(?=[A-Z(`\"])")


def finding_comment(finding: Finding, marker: str, suggestion: str | None = None, preexisting: bool = False,
                    suggested_at: int | None = None) -> str:
    """One inline review comment: what breaks, the one-click fix or the one-line help, links; the
    reasoning folded away. `preexisting`: on an unchanged line of the diff, labelled so (not a break
    the change made). `suggested_at`: the line of the comment whose suggestion is this finding's fix
    too (one guard shared by adjacent lines): pointed at, not suggested twice."""
    rule = ALL_RULES_BY_CODE.get(finding.code)
    parts = [f"**{finding.code}** {markdown_text(finding.message)} (PyTorch graph break {_rule_link(finding)})"]
    if preexisting:
        parts.append(PREEXISTING_SENTENCE)
    if finding.evidence is not None:
        parts.append(evidence_line(finding))
    if finding.rare:
        parts.append(RARE_SENTENCE)
    if finding.fix is not None and finding.fix.moves:
        parts.append(MOVED_BREAK)
    if suggestion is not None and finding.fix is not None and finding.fix.applicability == "unsafe":
        # A fix read back from a bundle has no assumptions apart from its message: show the message then.
        title = finding.fix.title if finding.fix.assumptions else finding.fix.message
        parts.append(f"{markdown_text(title)}. {unsafe_label(finding.fix.assumptions)}:\n\n"
                     + code_block(suggestion, "suggestion"))
    elif suggestion is not None and finding.fix is not None:
        parts.append(f"{markdown_text(finding.fix.message)}:\n\n" + code_block(suggestion, "suggestion"))
    elif suggested_at is not None and finding.fix is not None:
        parts.append(f"Fixed by the suggestion on line {suggested_at}: {markdown_text(finding.fix.message)}.")
    elif finding.fix is not None:
        parts.append(f"Fix ({finding.fix.applicability}): {markdown_text(finding.fix.message)}.")
    elif help_text := advice_for(finding):
        parts.append(f"**Help**: {markdown_text(help_text)}.")
    if rule is not None:
        parts.append(_rule_details(rule))
    parts.append(f"<sub>`graphmend rule {finding.code}` · {_rule_link(finding)} in the PyTorch graph-break "
                 f"index</sub>\n{marker}")
    return "\n\n".join(parts)


def _rule_details(rule: Rule) -> str:
    notes = comment_notes(rule.fix_safety)
    return (f"<details><summary>Why it breaks, and the fix's safety</summary>\n\n{rule.why}\n\n{notes}\n\n"
            f"{code_block(rule.use_instead.strip(), 'python')}\n</details>")


def comment_notes(text: str) -> str:
    """A rule's fix-safety notes for a comment: no file paths, whole sentences up to MAX_NOTES_WORDS."""
    text = _PARENTHESES_WITH_FILE.sub("", text)
    kept: list[str] = []
    words = 0
    for sentence in _SENTENCE_END.split(text.strip()):
        if _FILE_REFERENCE.search(sentence):
            continue
        count = len(sentence.split())
        if kept and words + count > MAX_NOTES_WORDS:
            kept.append("(More in `graphmend rule`.)")
            break
        kept.append(sentence)
        words += count
    return " ".join(kept)


def resolved_comment(original: str, marker: str, sha: str) -> str:
    """The body a comment gets when its finding is gone but people replied to it (kept, not deleted)."""
    # The bot's marker is the original's last line; markers earlier in it are quoted code, kept as text.
    kept = original.rstrip().rpartition("\n")[0].rstrip()
    return (
        f"**Resolved** in {sha[:7]}: this graph break is gone.\n\n"
        f"<details><summary>Original comment</summary>\n\n{kept}\n\n</details>\n\n{marker}"
    )


class CommentedFinding(Protocol):
    """A planned inline comment, as the review body needs it (github/review/plan.py's PlannedComment)."""

    @property
    def finding(self) -> Finding: ...

    @property
    def new(self) -> bool: ...


def findings_review_body(comments: Sequence[CommentedFinding], overflow: Sequence[CommentedFinding],
                         limit: int) -> str:
    """The body of the bot's findings review (approval/verdict.py's review_body is the GPU verdict's).
    New counts the breaks the pull request brings (the base commit's solve lacks them; without it,
    those on lines the change added); the others are pre-existing."""
    commented = len(comments)
    new = sum(c.new for c in (*comments, *overflow))
    old = commented + len(overflow) - new
    lines = [f"GraphMend found {new} new graph break(s) with this pull request."]
    if old:
        lines.append(f"{old} pre-existing graph break(s) (there before this change) on lines of the diff are shown "
                     "too, labelled pre-existing.")
    if overflow:
        lines.append(
            f"To keep the review readable, {commented} are commented inline (at most {limit} per review, "
            f"new ones first); the other {len(overflow)} are listed here and in the summary comment:"
        )
        lines.append("")
        lines += [f"- {code_span(f'{c.finding.path}:{c.finding.location.row}')} **{c.finding.code}** "
                  f"{'' if c.new else '(pre-existing) '}{markdown_text(c.finding.message)}"
                  for c in overflow[:MAX_TABLE_ROWS]]
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
    # A pull request's findings on lines it added (the rest are pre-existing); None: no pull request.
    new: frozenset[Finding] | None = None
    notes: list[str] = field(default_factory=list)  # e.g. "read-only token: annotations only"
    baselined: int = 0  # findings the baseline held, not reported (baseline.py)
    breaks: list[str] = field(default_factory=list)  # the census's +N / -M table (report/break_table.py)
    # The base commit's findings the change removed, when the review solved the base (then `new`
    # holds the findings the base lacks); None when it did not.
    removed: list[Finding] | None = None

    @property
    def worth_posting(self) -> bool:
        """The summary comment is created only when it reports something: findings, or the census's table."""
        return bool(self.findings or self.breaks)


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


def _findings_table(findings: Sequence[Finding], blob_url: str, new: frozenset[Finding] | None = None) -> list[str]:
    rows = ["| Location | Rule | Message | Fix |", "|---|---|---|---|"]
    for finding in findings[:MAX_TABLE_ROWS]:
        fix = finding.fix.applicability if finding.fix else "manual"
        rare = "(rare branch: error or misconfiguration path)" if finding.rare else ""
        old = "*pre-existing*" if new is not None and finding not in new else ""
        message = " ".join(part for part in (old, markdown_text(finding.message), evidence_line(finding), rare) if part)
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
    elif view.breaks:  # the census's table below has Dynamo's word on them: "no graph breaks" would contradict it
        lines = [f"## {title}: no static findings in the changed Python files{head}", ""]
    else:
        lines = [f"## {title}: no graph breaks in the changed Python files{head}", ""]
    lines.append(
        f"Checked {view.changed_files} changed Python file(s) ({view.files_checked} file(s) analysed for scope). "
        f"{view.inline} finding(s) commented inline; the others appear as annotations."
        if count else f"Checked {view.changed_files} changed Python file(s) ({view.files_checked} analysed for scope)."
    )
    lines += [f"> {note}" for note in view.notes]
    if view.breaks:
        lines += ["", *view.breaks]
    if count and view.new is not None and view.removed is not None:
        new = sum(f in view.new for f in view.findings)
        lines += ["", f"{new} new with this pull request (its base commit does not have them); {count - new} "
                  "pre-existing (the base has them too), marked *pre-existing* below."]
    elif count and view.new is not None:
        new = sum(f in view.new for f in view.findings)
        lines += ["", f"{new} new on lines this pull request added; {count - new} pre-existing (on lines it did not "
                  "change), marked *pre-existing* below."]
    if view.removed:
        gone = ", ".join(f"{code_span(f'{f.path}:{f.location.row}')} {f.code}" for f in view.removed[:MAX_TABLE_ROWS])
        more = f" and {len(view.removed) - MAX_TABLE_ROWS} more" if len(view.removed) > MAX_TABLE_ROWS else ""
        lines += ["", f"{len(view.removed)} graph break(s) the base commit has are gone with this pull request "
                  f"(lines as the base has them): {gone}{more}."]
    rare = sum(f.rare for f in view.findings)
    if rare:
        lines += ["", f"{count - rare} break(s) happen on every call; {rare} only on branches valid inputs "
                  "rarely take (error or misconfiguration paths), marked *rare branch* below."]
    if count:
        lines += ["", "### Findings", "", *_findings_table(view.findings, view.blob_url, view.new)]
        lines += ["", "### By rule", "", *_counts_table(view.findings)]
        lines += ["", "### What the fix pull request would change", "", *_fix_section(view)]
    if view.errors:
        lines += ["", "### Files that could not be analysed", ""]
        lines += [f"- {code_span(e.path)}: {markdown_text(e.message)}" for e in view.errors[:MAX_TABLE_ROWS]]
    lines += ["", f"<sub>{summary_line_for(view)}</sub>"]
    body = "\n".join(lines) + "\n"
    if len(body) > MAX_BODY:
        # At the end of a line: each line is inert on its own, but a cut inside a code span leaves its
        # opening backtick unclosed, and the rest of the span (a forged test id) renders as Markdown.
        body = body[:body.rfind("\n", 0, MAX_BODY) + 1] + "\n... (truncated; the SARIF report has every finding)\n"
    return body


def frequency_clause(findings: Sequence[Finding]) -> str:
    """" (E on every call, R on rare branches)" when some of `findings` are rare, else ""."""
    rare = sum(f.rare for f in findings)
    return f" ({len(findings) - rare} on every call, {rare} on rare branches)" if rare else ""


def summary_line_for(view: SummaryView) -> str:
    # Under the census's table, "No graph breaks found" would contradict its added rows.
    return summary_line(CheckResult(list(view.findings), list(view.errors), view.files_checked,
                                    view.baselined), census_shown=bool(view.breaks)).strip()
