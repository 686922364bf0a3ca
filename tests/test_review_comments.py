"""Review comments people read (issue 29.4): for every rule, the comment on its documented example
shows the finding, the fix or a one-line help and the links within a word budget; the reasoning is
behind <details>, capped, and names no file of another project (or of this one's tests)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_rule_docs import CONFIGS, DEPENDENCY_SITE, IDS, as_module

from graphmend_bot.config import Config
from graphmend_bot.engine import check
from graphmend_bot.findings import Finding
from graphmend_bot.report.markdown import finding_comment
from graphmend_bot.rewrite import attach_fixes
from graphmend_bot.rules import RULES, Rule

MAX_VISIBLE_WORDS = 120  # outside <details> and code blocks, the finding's own message included
MAX_COMMENT_WORDS = 400  # everything, the folded notes and the example included
DETAILS = re.compile(r"<details>.*?</details>", re.S)
FENCE = re.compile(r"(`{3,})\w*\n.*?\n\1", re.S)
FILE_PATH = re.compile(r"[\w./*-]*\w\.py\b")
MARKER = "<!-- graphmend:finding 0123456789abcdef -->"


def visible_words(body: str) -> int:
    return len(FENCE.sub("", DETAILS.sub("", body)).replace(MARKER, "").split())


def example_findings(rule: Rule, tmp_path: Path) -> list[Finding]:
    source, _ = as_module(rule.example)
    (tmp_path / "example.py").write_text(source, encoding="utf-8")
    config = CONFIGS.get(rule.code, Config())
    result = attach_fixes(check([str(tmp_path)], config, jobs=1), config, [str(tmp_path)])
    return [finding for finding in result.findings if finding.code == rule.code]


@pytest.mark.parametrize("rule", RULES, ids=IDS)
def test_every_rule_comment_is_short_and_names_no_other_files(rule: Rule, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(DEPENDENCY_SITE))
    findings = example_findings(rule, tmp_path)
    assert findings
    for finding in findings:
        suggestion = "    suggested = code\n" if finding.fix else None
        for body in {finding_comment(finding, MARKER), finding_comment(finding, MARKER, suggestion)}:
            assert visible_words(body) <= MAX_VISIBLE_WORDS, body
            assert len(body.split()) <= MAX_COMMENT_WORDS, body
            assert f"`graphmend rule {rule.code}`" in body  # the links: the rule's page, and its id's
            assert ("/gb/" in body) == bool(finding.gb_id), body  # or the index, for a compile reason
            folded = DETAILS.findall(body)
            assert len(folded) == 1 and rule.why in folded[0]
            assert FILE_PATH.findall(body.replace(finding.message, "")) == [], body


def test_a_plain_logger_warning_reads_in_a_few_lines(tmp_path: Path) -> None:
    """The issue's case: about 600 words for `logger.warning("NaN in output")`."""
    (tmp_path / "model.py").write_text(
        "import logging\n\nimport torch\nfrom torch import nn\n\nlogger = logging.getLogger(__name__)\n\n\n"
        "class M(nn.Module):\n    def forward(self, x):\n        if torch.isnan(x).any():\n"
        "            pass\n        logger.warning(\"NaN in output\")\n        return x\n", encoding="utf-8")
    [finding] = [f for f in check([str(tmp_path)], Config()).findings if f.code == "GM402"]
    body = finding_comment(finding, MARKER)
    assert visible_words(body) <= 50, body
    assert "**Help**: " in body and "is_compiling()" in body  # what to do, on the diff
    assert "transformers" not in DETAILS.sub("", body)
