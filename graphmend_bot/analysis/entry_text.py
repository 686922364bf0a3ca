"""Whether a file's text can hold an entry point, answered by literal search.

The questions are regular expressions (kept below as the definition), but an alternation that
starts with no literal makes Python's `re` try every position of every file: a tenth of the
prefilter's time on transformers' models/. Every alternative contains a literal ("forward",
"compile", "torch"), so the same answer comes from finding that literal with `str.find` and
trying the expression only where a match could start: at a fixed offset before each occurrence.
"""

from __future__ import annotations

import re

# torch.compile(...), compile(...) imported from torch, model.compile() / model.compile(mode=...)
MENTIONS_COMPILE = re.compile(r"torch\.compile|(?<![\w.])compile\(|\.compile\(\s*(?:\)|\w+\s*=)")
# torch.compile under another name: `th.compile(f)` or `@th.compile` after `import torch as th`,
# `@tc` after `from torch import compile as tc`. The imports resolve a name to torch.compile
# (analysis/summary.py's Imports) only when one of them names the module `torch` and the name or
# the import says `compile`: a file with both words is kept (review15 #4: the files of a project
# that aliases torch were all dropped, its compiled functions with them).
# `re.compile` is no name of torch.compile: regular expressions sit beside torch in many files
# the prefilter would otherwise keep (23 of transformers 4.52.4's models/).
COMPILE_WORD = re.compile(r"(?<!\w)(?<!\bre\.)compile(?!\w)")
TORCH_WORD = re.compile(r"(?<![\w.])torch(?!\w)")
DEFINES_FORWARD = re.compile(r"\bdef[ \t]+forward\b")
# Where, relative to the literal, a match of each expression can start ("torch." is 6 long).
_COMPILE_STARTS = (-6, -1, 0)
_FORWARD_LITERAL = re.compile(r"def[ \t]+forward\b")  # starts with a literal: a fast search


def mentions_compile(source: str) -> bool:
    """`MENTIONS_COMPILE.search(source)`, or both COMPILE_WORD and TORCH_WORD found in `source`,
    without trying every position."""
    index = source.find("compile")
    word = False
    while index >= 0:
        for offset in _COMPILE_STARTS:
            if index + offset >= 0 and MENTIONS_COMPILE.match(source, index + offset):
                return True
        word = word or COMPILE_WORD.match(source, index) is not None
        index = source.find("compile", index + 1)
    return word and _says_torch(source)


def _says_torch(source: str) -> bool:
    """`TORCH_WORD.search(source) is not None`."""
    index = source.find("torch")
    while index >= 0:
        if TORCH_WORD.match(source, index):
            return True
        index = source.find("torch", index + 1)
    return False


def compile_rows(source: str) -> list[int]:
    """The line numbers (as the ast counts them, from 1) of the lines that hold "compile", in order.

    Every alternative of MENTIONS_COMPILE holds the literal, so a statement whose lines hold none
    calls neither torch.compile nor `.compile()` by name (an import alias of torch.compile is the
    caller's to check).
    """
    if "\r" in source:  # the parser counts \r\n and a lone \r as one line end each
        source = source.replace("\r\n", "\n").replace("\r", "\n")
    rows: list[int] = []
    row, counted_to = 1, 0
    index = source.find("compile")
    while index >= 0:
        row += source.count("\n", counted_to, index)
        counted_to = index
        if not rows or rows[-1] != row:
            rows.append(row)
        index = source.find("compile", index + 1)
    return rows


def defines_forward(source: str) -> bool:
    """`DEFINES_FORWARD.search(source) is not None`: `def forward` with a word boundary before it."""
    if "forward" not in source:
        return False
    return any(DEFINES_FORWARD.match(source, found.start()) for found in _FORWARD_LITERAL.finditer(source))


def has_entry_text(source: str) -> bool:
    """Text that can make a file hold an entry point: nn.Module.forward or a torch.compile use."""
    return defines_forward(source) or mentions_compile(source)
