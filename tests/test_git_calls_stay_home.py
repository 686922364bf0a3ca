"""Every git command graphmend runs goes through git_command.run_git (review16's finding 5), which
keeps a checked tree's own configuration from running commands: in graphmend_bot's sources, the
string "git" as a command (the first item of an argument list) appears only in git_command.py."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "graphmend_bot"
HOME = PACKAGE / "git_command.py"


def git_commands(path: Path) -> list[int]:
    """The lines of `path` with a list or tuple whose first item is the string "git"."""
    return [
        node.lineno
        for node in ast.walk(ast.parse(path.read_text(), str(path)))
        if isinstance(node, ast.List | ast.Tuple)
        and node.elts
        and isinstance(node.elts[0], ast.Constant)
        and node.elts[0].value == "git"
    ]


def test_git_runs_only_through_run_git() -> None:
    strays = [
        f"{path.relative_to(PACKAGE)}:{line}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != HOME
        for line in git_commands(path)
    ]
    assert strays == []
    assert git_commands(HOME)  # the check sees a git command where there is one
