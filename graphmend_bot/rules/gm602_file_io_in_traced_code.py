"""GM602 file-io-in-traced-code: its documentation, in one place with how it is detected and fixed."""

from __future__ import annotations

import ast

from graphmend_bot.analysis.kind import NOT_TENSOR, TENSOR, Kind
from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import CACHED_LOADER_FIX, Rule


def _open(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind:
    """Measured on torch 2.13: `open(...)` alone is GB0059 (a builtin Dynamo cannot trace);
    `with open(...)` is GB0142 (a context manager it cannot enter)."""
    checker.report(rule, call, "File I/O in traced code", TENSOR, gb_id="GB0142" if checker.entered(call) else None)
    return NOT_TENSOR


RULE = Rule(
    code="GM602",
    name="file-io-in-traced-code",
    family="not traceable",
    gb_id="GB0059",
    summary="Flags `open(...)` in traced code.",
    why=(
        "File I/O is a Python side effect TorchDynamo cannot trace: `open(...)` breaks with GB0059, "
        "`with open(...)` with GB0142 (a context manager it cannot enter; measured on torch 2.13)."
    ),
    example="with open('log.txt', 'a') as f: f.write(str(loss))",
    use_instead="# Move the I/O outside the compiled function.",
    fix_safety=(
        CACHED_LOADER_FIX +
        "Otherwise no automatic fix."
    ),
    fixes=("cached_constant",),
    detection=Detection(builtins={"open": _open}),
)
