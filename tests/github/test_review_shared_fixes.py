"""The review's fix preview and suggestions when findings share a fix or an edit (review12 finding 3):
one guard over adjacent prints is one Fix on each of their findings, and every `torch.where` fix of a
file without `import torch` adds the same import. The preview applies the fixes as `--fix` does, so
it shows what `--fix` writes; the shared guard is suggested once."""

from __future__ import annotations

import difflib
from pathlib import Path

from pytest import MonkeyPatch

from graphmend_bot.config import Config
from graphmend_bot.engine import check
from graphmend_bot.github.review.diff import parse_patch
from graphmend_bot.github.review.plan import fix_diff, plan_review
from graphmend_bot.rewrite import attach_fixes, fix_paths
from graphmend_bot.source_lines import physical_lines

PRINTS = """import torch
import torch.nn as nn


class M(nn.Module):
    def forward(self, x):
        h = x * 3
        print(h)
        print(x)
        return h
"""
TERNARIES = """from torch import nn


class K(nn.Module):
    def forward(self, x):
        y = x.exp()
        a = y.sin() if y.sum() > 0 else y.cos()
        b = y.sin() if y.mean() > 0 else y.cos()
        return a + b
"""


def _added_file_patch(source: str) -> str:
    lines = source.splitlines()
    return f"@@ -0,0 +1,{len(lines)} @@\n" + "\n".join(f"+{line}" for line in lines)


def test_the_preview_is_what_fix_writes_with_shared_fixes_and_imports(tmp_path: Path, monkeypatch: MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # findings name their files as the review does: relative to the checkout
    sources = {"prints.py": PRINTS, "ternaries.py": TERNARIES}
    for name, text in sources.items():
        Path(name).write_text(text, encoding="utf-8")
    result = attach_fixes(check(list(sources), jobs=1), Config())
    prints = [f for f in result.findings if f.path == "prints.py" and f.fix]
    assert len(prints) == 2 and len({f.fix for f in prints}) == 1, "two prints, one shared guard"

    expected = "".join(
        "".join(difflib.unified_diff(physical_lines(c.before, keepends=True), physical_lines(c.after, keepends=True),
                                     f"a/{c.path}", f"b/{c.path}"))
        for c in sorted(fix_paths(list(sources), Config()), key=lambda c: c.path)
    )
    preview = fix_diff(result.findings, sources)
    assert preview == expected
    assert preview.count("+import torch") == 1  # once, though both fixes of ternaries.py add it
    assert "prints.py" in preview  # the shared guard's file is not dropped from the preview


def test_a_fix_shared_by_two_findings_is_suggested_once(tmp_path: Path, monkeypatch: MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("prints.py").write_text(PRINTS, encoding="utf-8")
    result = attach_fixes(check(["prints.py"], jobs=1), Config())
    diffs = {"prints.py": parse_patch("prints.py", _added_file_patch(PRINTS))}
    plan = plan_review(result.findings, diffs, {"prints.py": PRINTS}, [], "abc1234")
    assert len(plan.new_comments) == 2
    suggesting = [c for c in plan.new_comments if "```suggestion" in c.body]
    assert len(suggesting) == 1 and (suggesting[0].start_line, suggesting[0].line) == (8, 9)
    (pointing,) = [c for c in plan.new_comments if c is not suggesting[0]]
    assert "Fixed by the suggestion on line 9" in pointing.body
