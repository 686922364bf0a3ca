"""A module's compile-guard helper is judged by its body whatever its name (precD, issue 27):
`def _compiling(): return torch.compiler.is_compiling()` guards like `is_compiling()` itself. Each
sample is measured with Dynamo (torch 2.13) and graphmend must agree line for line; the near misses
(a helper returning `torch.jit.is_scripting()`, False under compile, or a module flag the body
cannot decide) leave the tensor check traced, and it breaks."""

from __future__ import annotations

from pathlib import Path

from sample_modules import agreed_break_lines, dynamo_breaks, graphmend_findings, line_of

HEADER = """\
import torch
from torch import nn

CHECK = True


def _compiling():
    return torch.compiler.is_compiling()


def _in_graph():
    if torch.jit.is_scripting():
        return True
    return _compiling()


def _scripting():
    return torch.jit.is_scripting()


def _checking():
    return CHECK


class Model(nn.Module):
    def forward(self, x):
"""


def _agree(body: str, tmp_path: Path) -> set[int]:
    return agreed_break_lines(HEADER + body + "        return x * 2\n", tmp_path)


def test_a_helper_returning_is_compiling_guards_whatever_its_name(tmp_path: Path) -> None:
    body = (
        "        if not _compiling() and (x < 0).any():\n"
        '            raise ValueError("negative")\n'
        "        if not _in_graph():\n"
        "            if (x < 0).any():\n"
        '                raise ValueError("negative")\n'
    )
    assert _agree(body, tmp_path) == set()


def test_a_helper_false_or_undecided_under_compile_does_not_guard(tmp_path: Path) -> None:
    for helper in ("_scripting", "_checking"):
        body = f"        if not {helper}() and (x < 0).any():\n            raise ValueError('negative')\n"
        if helper == "_checking":
            body = body.replace("not ", "")
        assert _agree(body, tmp_path) == {line_of(HEADER + body, "(x < 0)")}, helper


BREAKING_HELPERS = {
    "a side effect Dynamo breaks on": 'def _compiling():\n    print("checking")\n    return torch.compiler.is_compiling()\n',
    "a decorator that skips it": "@torch.compiler.disable\ndef _compiling():\n    return torch.compiler.is_compiling()\n",
}


def test_a_helper_that_breaks_itself_is_no_guard(tmp_path: Path) -> None:
    """review30: Dynamo breaks in (or at) the helper and runs it eagerly, where it is False; the break
    must be reported, not hidden by reading the helper as a guard."""
    for why, helper in BREAKING_HELPERS.items():
        source = (
            "import torch\nfrom torch import nn\n\n" + helper + "\n\nclass Model(nn.Module):\n"
            "    def forward(self, x):\n        x = x * 2\n        if not _compiling():\n"
            "            x = x + x.sum().item()\n        return x + 1\n"
        )
        breaks = {line for line, _ in dynamo_breaks(source, tmp_path)}
        found = {line for line, _, _ in graphmend_findings(source, tmp_path)}
        assert breaks, why
        assert breaks <= found, (why, sorted(found), sorted(breaks))


def test_a_helper_that_only_decides_still_guards(tmp_path: Path) -> None:
    """Near misses: a counter kept in a global and a cache decorator trace, and the helper guards."""
    for helper in (
        "CALLS = 0\n\n\ndef _compiling():\n    global CALLS\n    CALLS += 1\n    return torch.compiler.is_compiling()\n",
        "@functools.lru_cache(None)\ndef _compiling():\n    return torch.compiler.is_compiling()\n",
    ):
        source = (
            "import functools\nimport torch\nfrom torch import nn\n\n" + helper + "\n\nclass Model(nn.Module):\n"
            "    def forward(self, x):\n        x = x * 2\n        if not _compiling():\n"
            "            x = x + x.sum().item()\n        return x + 1\n"
        )
        assert dynamo_breaks(source, tmp_path) == set()
        assert graphmend_findings(source, tmp_path) == set()
