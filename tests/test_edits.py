"""graphmend_bot/edits.py: the one edit applier behind `--fix`, the review's suggestions and its fix preview."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmend_bot.config import Config
from graphmend_bot.edits import apply_edits
from graphmend_bot.findings import Edit, Finding, Fix, Location
from graphmend_bot.github.review.suggestion import suggestion_for
from graphmend_bot.rewrite import apply_fixes, fix_paths, write_changes


def _edit(content: str, start: tuple[int, int], end: tuple[int, int]) -> Edit:
    return Edit(content, Location(*start), Location(*end))


def _finding(fix: Fix) -> Finding:
    first = fix.edits[0]
    return Finding("GM301", "m", "f.py", first.location, first.end_location, "GB0001", fix=fix)


# A form feed and a line separator end a line for str.splitlines, not for Python's tokenizer
# (nor for ast and libcst, whose rows the edits carry).
ODD_LINE_BREAKS = "x = 1\x0c  # page\ny = 'a\u2028b'\nz = 3\n"


def test_rows_are_the_tokenizers_rows() -> None:
    fixed = apply_edits(ODD_LINE_BREAKS, [_edit("Z", (3, 1), (3, 2))])
    assert fixed == "x = 1\x0c  # page\ny = 'a\u2028b'\nZ = 3\n"


def test_suggestion_and_fix_engine_apply_the_same_edits_the_same_way() -> None:
    fix = Fix("safe", "rename", (_edit("Y", (2, 1), (2, 2)), _edit("W", (3, 1), (3, 2))))
    suggestion = suggestion_for(_finding(fix), ODD_LINE_BREAKS)
    assert suggestion is not None
    assert (suggestion.first_line, suggestion.last_line) == (2, 3)
    assert suggestion.text == "Y = 'a\u2028b'\nW = 3"
    assert apply_fixes(ODD_LINE_BREAKS, [fix]) == apply_edits(ODD_LINE_BREAKS, fix.edits)


def test_a_suggestion_that_would_leave_the_file_unparsable_is_not_made() -> None:
    """Review 14, finding 4: a fix writing `elelif` was posted as a suggestion; the applied file
    is parse-checked now, as `--fix` checks what it writes."""
    source = "if a:\n    pass\nelif b:\n    pass\n"
    broken = Fix("unsafe", "broken", (_edit("elelif", (3, 1), (3, 5)),))
    fine = Fix("unsafe", "fine", (_edit("elif c", (3, 1), (3, 7)),))
    assert suggestion_for(_finding(broken), source, unsafe=True) is None
    suggestion = suggestion_for(_finding(fine), source, unsafe=True)
    assert suggestion is not None and suggestion.text == "elif c:"


def test_overlapping_or_outside_edits_are_refused() -> None:
    source = "a = 1\nb = 2\n"
    with pytest.raises(ValueError, match="overlap"):
        apply_edits(source, [_edit("x", (1, 1), (1, 4)), _edit("y", (1, 3), (1, 5))])
    with pytest.raises(ValueError, match="past the end"):
        apply_edits(source, [_edit("x", (9, 1), (9, 2))])


def test_a_fix_whose_own_edits_overlap_is_skipped_not_garbled() -> None:
    source = "a = 1\nb = 2\n"
    broken = Fix("safe", "broken", (_edit("x", (1, 1), (1, 4)), _edit("y", (1, 3), (1, 5))))
    fine = Fix("safe", "fine", (_edit("B", (2, 1), (2, 2)),))
    assert apply_fixes(source, [broken, fine]) == "a = 1\nB = 2\n"


@pytest.mark.parametrize("newline", ["\r\n", "\r"])
def test_inserted_lines_end_as_the_files_lines_do(newline: str) -> None:
    source = f"def f(x):{newline}    print(x){newline}    return x{newline}"
    guard = _edit("if not torch.compiler.is_compiling():\n        print(x)", (2, 5), (2, 13))
    fixed = apply_edits(source, [guard])
    assert fixed.split(newline) == [
        "def f(x):", "    if not torch.compiler.is_compiling():", "        print(x)", "    return x", "",
    ]


def test_a_file_with_unix_line_ends_is_written_as_before() -> None:
    source = "def f(x):\n    print(x)\n    return x\n"
    fixed = apply_edits(source, [_edit("if x:\n        print(x)", (2, 5), (2, 13))])
    assert fixed == "def f(x):\n    if x:\n        print(x)\n    return x\n"


def test_fix_keeps_a_crlf_files_line_ends_and_encoding(tmp_path: Path) -> None:
    path = tmp_path / "legacy.py"
    text = ("# -*- coding: latin-1 -*-\r\nimport torch\r\nfrom torch import nn\r\n\r\n\r\n"
            "class M(nn.Module):\r\n    def forward(self, x):\r\n        print(\"caf\u00e9\")\r\n        return x\r\n")
    path.write_bytes(text.encode("latin-1"))
    changes = fix_paths([str(path)], Config())
    assert changes, "the print guard should be offered"
    write_changes(changes)
    written = path.read_bytes()
    assert b"is_compiling()" in written and "caf\u00e9".encode("latin-1") in written
    assert written.count(b"\n") == written.count(b"\r\n"), "a line ends in a bare \\n"
