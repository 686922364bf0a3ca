"""Calls a change redirects without touching them: it points an imported name elsewhere.

`from pkg.quiet import helper` edited to `from pkg.utils import helper` leaves `helper(x)` as it
was, yet the call now reaches another function, and that function's breaks are the change's
doing. The file before the change is the file now with its diff undone; a name whose import
resolves elsewhere now than then (as the solver resolves it: relative imports made absolute, the
last of a `try`/`except` pair) makes every call through it count as added (analysis/added_calls.py),
blamed on the added line that imports it. An import only re-spelled, reordered or moved
(isort) resolves as before and redirects nothing.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection

from graphmend_bot.analysis.model import ModuleSummary
from graphmend_bot.analysis.summary import summarize_module

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(?P<start>\d+)(?:,(?P<count>\d+))? @@")
# A redirect is a call through a name now bound elsewhere: (the call's row, the name) -> the import's row
Redirects = dict[tuple[int, str], int]


def base_text(head: str, patch: str) -> str | None:
    """The file before the change: `head` with each hunk of its unified diff undone; None when the
    patch does not fit `head` (another commit, a truncated patch)."""
    lines = head.splitlines(keepends=True)
    undone: list[str] = []
    position = 0  # lines of `head` copied so far
    hunk_lines: list[str] = []
    for line in patch.removesuffix("\n").split("\n"):
        match = _HUNK.match(line)
        if match:
            start = int(match["start"]) - (1 if match["count"] != "0" else 0)
            if start < position:
                return None
            undone.extend(lines[position:start])
            position = start
            hunk_lines = []
            continue
        if line.startswith("\\") or not line:
            continue  # "\ No newline at end of file", or an empty patch
        kind, text = line[0], line[1:] + "\n"
        if kind in " +":
            if position >= len(lines) or lines[position].rstrip("\r\n") != text.rstrip("\n"):
                return None
            position += 1
        if kind in " -":
            undone.append(text)
        hunk_lines.append(line)
    undone.extend(lines[position:])
    return "".join(undone)


def redirected_calls(path: str, module: str, is_package: bool, head: str, patch: str | None,
                     added: Collection[int]) -> Redirects:
    """The calls of `head` (the file at `path`, module `module`) through names the change imports
    from elsewhere, each with the added line that does it; {} when the file cannot be read as
    before and after (the review goes on without)."""
    if not patch or "import" not in patch:
        return {}
    before = base_text(head, patch)
    if before is None:
        return {}
    try:
        now = summarize_module(head, path, module, is_package, False)
        then = summarize_module(before, path, module, is_package, False)
        import_rows = _import_rows(ast.parse(head), added)
    except Exception:  # a file too deep or too odd to read twice: the review goes on without
        return {}
    moved = {name: import_rows[name] for name, target in now.imports.items()
             if then.imports.get(name) != target and name in import_rows}
    return _calls_through(now, moved)


def _import_rows(tree: ast.Module, added: Collection[int]) -> dict[str, int]:
    """Each name an import statement touching an added line binds -> that line (the first added)."""
    rows: dict[str, int] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Import | ast.ImportFrom):
            continue
        touched = [row for row in range(node.lineno, (node.end_lineno or node.lineno) + 1) if row in added]
        if touched:
            for alias in node.names:
                rows.setdefault(alias.asname or alias.name.partition(".")[0], touched[0])
    return rows


def _calls_through(summary: ModuleSummary, moved: dict[str, int]) -> Redirects:
    redirects: Redirects = {}
    if not moved:
        return redirects
    for function in summary.functions.values():
        for site in function.calls:
            name = call_root(site.ref)
            if name in moved:
                redirects.setdefault((site.row, name), moved[name])
    return redirects


def call_root(ref: str) -> str | None:
    """The name a call site goes through: `helper` of "name:helper", `utils` of "dotted:utils.helper"."""
    kind, _, name = ref.partition(":")
    return name.partition(".")[0] if kind in ("name", "dotted") else None
