"""GM602 file-io-in-traced-code: its documentation, in one place with how it is detected and fixed."""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import CACHED_LOADER_FIX, Rule
from graphmend_bot.vocabulary.kind import NOT_TENSOR, TENSOR, Kind

# Measured on torch 2.13: `f = open(path)` fails to trace the builtin (GB0059); `with open(path)`
# fails entering the file as a context manager first (GB0142, "Unsupported context manager").
UNSUPPORTED_CONTEXT_MANAGER = "GB0142"


def _open(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind:
    gb_id = UNSUPPORTED_CONTEXT_MANAGER if checker.is_context_manager(call) else None
    checker.report(rule, call, "File I/O in traced code", TENSOR, gb_id=gb_id)
    return NOT_TENSOR


RULE = Rule(
    code="GM602",
    name="file-io-in-traced-code",
    family="not traceable",
    gb_id="GB0059",
    other_gb_ids=(UNSUPPORTED_CONTEXT_MANAGER,),
    summary="Flags `open(...)` in traced code.",
    why=(
        "File I/O is a Python side effect TorchDynamo cannot trace: `open(...)` breaks with GB0059, "
        "`with open(...)` with GB0142 (Dynamo cannot enter a file as a context manager)."
    ),
    example="with open('log.txt', 'a') as f: f.write(str(loss))",
    use_instead="# Move the I/O outside the compiled function.",
    fix_safety=(
        CACHED_LOADER_FIX +
        "Otherwise no automatic fix."
    ),
    fixes=("loaders.cached_constant",),
    detection=Detection(builtins={"open": _open}),
    advice="Move `{code}` out of the compiled function",
)
