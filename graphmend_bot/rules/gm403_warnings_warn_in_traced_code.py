"""GM403 warnings-warn-in-traced-code: its documentation, in one place with how it is detected and fixed."""

from __future__ import annotations

from graphmend_bot.rules.detect import Detection, untraceable
from graphmend_bot.rules.rule import Rule

RULE = Rule(
    code="GM403",
    name="warnings-warn-in-traced-code",
    family="Python I/O",
    gb_id="GB0007",
    summary="Flags `warnings.warn(...)` in traced code.",
    why=(
        "`warnings.warn` is marked as skipped by TorchDynamo, which breaks the graph to call it."
    ),
    example="warnings.warn('scores were clamped to [0, 1]')",
    use_instead="""
if not torch.compiler.is_compiling():
    warnings.warn('scores were clamped to [0, 1]')
""",
    fix_safety=(
        "A warning is a signal for the user, so a guard is offered only where it is a diagnostic on "
        "the hot path (every call). Left as written, with this advice: (1) a `warnings.warn` that is "
        "an `if` arm's whole body, or on an error branch, `except` handler or misconfiguration check "
        "(the finding says `rare-branch`): the graph breaks only for the misconfigured call, and that "
        "user needs the warning compiled or not; (2) under `if torch.onnx.is_in_onnx_export():`, "
        "`torch.compiler.is_exporting()` or `torch.jit.is_tracing()`: `is_compiling()` is true under "
        "export too, so a guard would silence the warning in the one case it is for; (3) a message "
        "that asks for an \"upgrade\" (a fallback path asking for a newer install): compiled users need "
        "it to update their install; (4) in a module without torch. A deprecation notice "
        "(`DeprecationWarning`, `FutureWarning`, or a message that says \"deprecated\"), on the hot path "
        "or on the branch where the caller used the deprecated API (`if device is not None:`, which "
        "looks rare-branch but fires on every such call: transformers' `get_extended_attention_mask` "
        "on layoutlmv3), gets the guard as an UNSAFE fix, assuming \"the deprecation notice still shows in eager runs; "
        "compiled calls skip it\": it is about how the caller uses an API, so an eager run of the same "
        "call shows it, and transformers guards its own the same way (`utils/deprecation.py`, "
        "`deprecate_kwarg`: `and not is_torchdynamo_compiling()`, \"as it would break compilation\"). "
        "`--fix` (safe only) leaves it; `--unsafe-fixes` and the bot's `fixes: verified` carry it. "
        "Measured on torch 2.13: `reorderable_logging_functions.add(warnings.warn)` "
        "keeps a one-argument warning and emits it after the graph with no break (advice or config, "
        "not a source rewrite: the defer strategy's helper), but a category or stacklevel argument "
        "still breaks (\"attempted to reorder a debugging function that can't actually be "
        "reordered\"), so a `FutureWarning` cannot be deferred; "
        "`ignore_logging_functions` removes the break and the warning — never right for a warning."
    ),
    fixes=("io",),
    detection=Detection(calls=dict.fromkeys(("warnings.warn", "warnings.warn_explicit"), untraceable("`warnings.warn` in traced code"))),
)
