"""A comment or its spacing edited on a break's line leaves the break the same one (line_code.py):
the review's new/removed and the census's +N / -M match breaks by the line's code."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from graphmend_bot.census.fingerprint import fingerprints
from graphmend_bot.census.record import BreakRecord
from graphmend_bot.line_code import line_code


@pytest.mark.parametrize(("line", "code"), [
    ("    n = x.sum().item()\n", "n = x.sum().item()"),
    ("    n = x.sum().item()  # a scalar", "n = x.sum().item()"),
    ("n = x.sum().item()#", "n = x.sum().item()"),
    ('print("#1", x)  # step', 'print("#1", x)'),  # a `#` in a string is no comment
    ("foo(a,  # the first", "foo(a,"),  # a bracket a later line closes
    ('text = """a # b', 'text = """a # b'),  # a string the line leaves open: kept whole
])
def test_a_lines_code_is_its_text_up_to_its_comment(line: str, code: str) -> None:
    assert line_code(line) == code


def test_a_census_break_whose_comment_changed_is_the_same_break() -> None:
    before = BreakRecord("pkg/m.py", 3, "Data-dependent branching", "GB0170", ["t::a"], "f", "if x.sum() > 0:")
    after = BreakRecord("pkg/m.py", 4, "Data-dependent branching", "GB0170", ["t::a"], "f",
                        "if x.sum() > 0:  # positive only")
    assert fingerprints([before]).keys() == fingerprints([after]).keys()


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=a@b", "-c", "user.name=a", *args], cwd=root, check=True,
                   capture_output=True)


def test_review_of_a_comment_edit_on_a_break_line_has_nothing_new_or_removed(tmp_path: Path) -> None:
    model = tmp_path / "model.py"
    model.write_text("import torch\nfrom torch import nn\n\n\nclass A(nn.Module):\n    def forward(self, x):\n"
                     "        n = x.sum().item()\n        return x * n\n")
    _git(tmp_path, "init", "-q", ".")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-qm", "base")
    model.write_text(model.read_text().replace("x.sum().item()", "x.sum().item()  # a scalar"))
    review = subprocess.run([sys.executable, "-m", "graphmend_bot.cli", "review", "--base", "HEAD", "--no-cache",
                             "--output-format", "json"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert review.returncode in (0, 1), review.stderr
    document = json.loads(review.stdout)
    assert (document["new"], document["pre_existing"], document["removed"]) == (0, 1, [])
