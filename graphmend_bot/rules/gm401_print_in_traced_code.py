"""GM401 print-in-traced-code: its documentation, in one place with how it is detected and fixed."""

from __future__ import annotations

from graphmend_bot.rules.advice import GUARD_ADVICE
from graphmend_bot.rules.detect import Detection, untraceable
from graphmend_bot.rules.rule import Rule

RULE = Rule(
    code="GM401",
    name="print-in-traced-code",
    family="Python I/O",
    gb_id="GB0059",
    summary="Flags `print(...)` in traced code.",
    why=(
        "`print` is a Python side effect; TorchDynamo breaks the graph to run it (GB0296 when an "
        "argument is not a tensor, constant or format string)."
    ),
    example="print('shape', x.shape)",
    use_instead="""
if not torch.compiler.is_compiling():
    print('shape', x.shape)
""",
    fix_safety=(
        "Guarding with `torch.compiler.is_compiling()` keeps eager behaviour and skips the message "
        "under compile; deferring (`io-strategy = \"defer\"`) keeps the message and prints it after "
        "the graph. Both are safe for diagnostics only. The guard also skips evaluating the arguments "
        "under compile, and an `if` test it joins (`if not ... and flag:`): it is UNSAFE where an "
        "argument may have an effect (a call not known to be pure, a walrus, `print(*it)`, `list(it)` "
        "or `', '.join(names)` consuming an iterator not shown to be a container), and a test that "
        "may have one (`if self.step():`, `if next(it):`) keeps running, the guard nested inside. No guard is offered (advice only) where the "
        "print is the program's output: `print(..., file=f)` to a file or stream it owns (any file "
        "but `sys.stderr`) and prints in writers (`write_*`/`save_*`/`dump_*`/`export_*`) — measured "
        "on torch 2.13, a guarded `print(..., file=buf)` writes nothing under torch.compile. Nor in a "
        "module that does not import torch (no `import torch` is added to utility or CLI code), on "
        "export-only branches, or on rare error branches (see GM403). Measured on 2.13: "
        "`torch._dynamo.config.ignore_logging_functions` removes the break and drops the call; "
        "`reorderable_logging_functions` keeps `print` only when every argument is a constant, a "
        "tensor or a format string (`print('n', x.shape)` still breaks)."
    ),
    fixes=("python_io.io:build_print_fix",),
    detection=Detection(builtins={"print": untraceable("`print` in traced code")}),
    advice=GUARD_ADVICE,
)
