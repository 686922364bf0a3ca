"""Lines as Python's parser numbers them: a form feed (an Emacs page break) or another character
`str.splitlines` ends a line at must not shift the line a finding, a suppression, a `--add-noqa`
comment or a review comment lands on."""

import ast
import subprocess

from graphmend_bot.github.review.diff import parse_patch
from graphmend_bot.source_lines import physical_lines

ODD_BREAKS = "\v\f\x1c\x1d\x1e\x85\u2028\u2029"


def test_line_numbers_match_the_parsers():
    source = "".join(f"x{n} = 1  # {char} in a comment\ns{n} = '{char} in a string'\n" for n, char in enumerate(ODD_BREAKS))
    source += "\f\nlast = 2\r\nend = 3"
    lines = physical_lines(source)
    for node in ast.parse(source).body:
        name = node.targets[0].id  # type: ignore[attr-defined]
        assert lines[node.lineno - 1].startswith(f"{name} = ")
    assert "".join(physical_lines(source, keepends=True)) == source
    assert lines[-2:] == ["last = 2", "end = 3"]


def test_plain_text_splits_like_splitlines():
    for text in ["", "a", "a\n", "a\r\nb\rc\n\n", "\n\nx"]:
        assert physical_lines(text) == text.splitlines()
        assert physical_lines(text, keepends=True) == text.splitlines(keepends=True)


MODEL = (
    "import torch\n"
    "\n"
    "\f\n"
    "class M(torch.nn.Module):\n"
    "    def forward(self, x):\n"
    "        if x.sum() > 0:  # graphmend: ignore[GM101]\n"
    "            return x\n"
    "        print(x)\n"
    "        return -x\n"
)


def run(cmd, cwd, *args):
    return subprocess.run([*cmd, *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_a_page_break_shifts_no_finding_nor_suppression(tmp_path, graphmend_cmd):
    (tmp_path / "model.py").write_text(MODEL, encoding="utf-8")
    result = run(graphmend_cmd, tmp_path, "check", "model.py")
    assert result.stdout.splitlines()[:3] == [
        "model.py:8:9: GM401 `print` in traced code [GB0059]", "  |", "8 |         print(x)"]
    assert "GM101" not in result.stdout  # the comment on line 6 hides it
    noqa = run(graphmend_cmd, tmp_path, "check", "--add-noqa", "model.py")
    assert noqa.returncode == 0, noqa.stderr
    text = (tmp_path / "model.py").read_text(encoding="utf-8")
    assert text == MODEL.replace("        print(x)\n", "        print(x)  # graphmend: ignore[GM401]\n")


def test_review_reads_a_patch_line_holding_a_form_feed_as_one_line():
    diff = parse_patch("model.py", "@@ -1,2 +1,3 @@\n a = 1  # \f page\n+b = 2\n c = 3\n")
    assert diff.added == {2}
    assert diff.matches(1, "a = 1  # \f page") and diff.matches(3, "c = 3")


def test_review_numbers_a_patch_as_git_does():
    """Git ends a line at \\n only, so `x = 1\\ry = 2` is one row of the patch and `z = 3` its third;
    the parser's second line (`x = 1`) differs from that row's text, so no comment lands on it."""
    diff = parse_patch("model.py", "@@ -0,0 +1,3 @@\n+a = 1\n+x = 1\ry = 2\n+z = 3\n")
    assert sorted(diff.lines) == [1, 2, 3] and diff.added == {1, 2, 3}
    assert diff.matches(3, "z = 3")
    parser_rows = physical_lines("a = 1\nx = 1\ry = 2\nz = 3\n")
    assert not diff.matches(2, parser_rows[1])


def test_each_odd_break_alone_takes_the_parsers_split():
    # physical_lines looks for each such character by itself: one missed would leave
    # str.splitlines to end a line the parser does not
    for char in ODD_BREAKS:
        source = f"a = 1  # {char} comment\nb = 2\n"
        assert physical_lines(source) == ["a = 1  # " + char + " comment", "b = 2"]
        assert "".join(physical_lines(source, keepends=True)) == source
