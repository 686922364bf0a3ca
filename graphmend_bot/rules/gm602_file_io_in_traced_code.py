"""GM602 file-io-in-traced-code: its documentation, in one place with how it is detected and fixed."""

from __future__ import annotations

from graphmend_bot.rules.detect import Detection, untraceable
from graphmend_bot.rules.rule import CACHED_LOADER_FIX, Rule

RULE = Rule(
    code="GM602",
    name="file-io-in-traced-code",
    family="not traceable",
    gb_id="GB0059",
    summary="Flags `open(...)` in traced code.",
    why="File I/O is a Python side effect TorchDynamo cannot trace.",
    example="with open('log.txt', 'a') as f: f.write(str(loss))",
    use_instead="# Move the I/O outside the compiled function.",
    fix_safety=(
        CACHED_LOADER_FIX +
        "Otherwise no automatic fix."
    ),
    fixes=("loaders.cached_constant",),
    detection=Detection(builtins={"open": untraceable("File I/O in traced code")}),
    advice="Move `{code}` out of the compiled function",
)
