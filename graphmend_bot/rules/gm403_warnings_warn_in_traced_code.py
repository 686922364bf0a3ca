"""GM403 warnings-warn-in-traced-code: its documentation, in one place with how it is detected and fixed."""

from __future__ import annotations

from graphmend_bot.rules.advice import DEPRECATION_NOTICE, GUARD_ADVICE
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
        "it to update their install; (4) in a module without torch. "
        "A deprecation notice (`DeprecationWarning`, `FutureWarning`, or a message that says "
        "\"deprecated\"), on the hot path or on the branch where the caller used the deprecated API "
        "(`if device is not None:`, which looks rare-branch but fires on every such call: "
        "transformers' `get_extended_attention_mask` on layoutlmv3), is the project's call, set by "
        "`deprecation-notices` (default `advice`). By default it is left with advice: compiled callers "
        "need it too (a diffusers maintainer rejects a guard, or a deferral that torch 2.13 drops from "
        "inlined frames, for \"Passing `txt_ids` 3d torch.Tensor is deprecated\": 13 of 13 such hunks "
        "in a sample of the wild benchmark's fixes read as rejects). `guard`: a project that skips its "
        "own notices under compile (transformers' `utils/deprecation.py` `deprecate_kwarg` guards its "
        "FutureWarning with `not is_torchdynamo_compiling()`, \"as it would break compilation\") gets "
        "the same guard on the notice alone, UNSAFE, assuming \"the deprecation notice still shows in "
        "eager runs; compiled calls skip it\". `defer`: `warnings.warn(msg, FutureWarning, stacklevel=2)` becomes "
        "`_future_warning_after_graph(msg, stacklevel=2)`, a module-level helper (one per category, "
        "reused by every call in the module) registered in "
        "`torch._dynamo.config.reorderable_logging_functions` right below it, whose body is "
        "`warnings.warn(message, FutureWarning, stacklevel=stacklevel + 1)`: the category, a class "
        "Dynamo cannot carry, stays in the body; the + 1 is the helper's own frame. "
        "Measured on torch 2.13 (tests/rewrite/test_deprecation_deferral.py and the fixtures "
        "io/defer_deprecation_*): no break (explain with a tensor op before the call, and "
        "`fullgraph=True`) whether the message is a constant, a module constant (T5's "
        "`__HEAD_MASK_WARNING_MSG`), an f-string of Python values or of tensors, or a `.format(...)`; "
        "under torch.compile the warning is emitted on the first call and on every cached call, with "
        "its category; eager warnings carry the same message, category, file and line as before "
        "the rewrite (`warnings.catch_warnings(record=True)`). Compiled, the warning names the "
        "traced function's file and its `def` line (Dynamo makes the call from the compiled "
        "frame), not the call's line. The helper must be registered before the function is first "
        "compiled (a registration after that leaves the cached code breaking until a recompile): "
        "it sits at module level next to the helper, so importing the module does it. "
        "The limit, measured (test_torch_2_13_emits_a_deferred_notice_only_from_the_compiled_frame): "
        "Dynamo makes only the compiled frame's own reorderable calls; from a function it inlines "
        "into the compiled one (a submodule's forward, a forward under a decorator, a helper) torch "
        "2.13 drops the notice under compile (`output_graph.py`: \"TODO get debug_locals working "
        "for nested graph breaks\"), just as a guard would; diffusers' Flux `txt_ids` notice, its "
        "forward under a decorator, measured 2 -> 0 breaks but no compiled notice. "
        "Safety class: UNSAFE, assuming \"under torch.compile the notice is emitted after the graph "
        "(a warnings-as-errors filter raises there) only when its function is the compiled frame; "
        "torch 2.13 drops it from a frame inlined into another\". Eager behaviour is bit-identical; "
        "compiled, the notice is kept where Dynamo can and lost where the guard lost it too, so the "
        "deferral is never worse than the guard and is chosen over it; but the order moves (a `-W "
        "error` / pytest `filterwarnings = error` run that stopped at the notice raises after the "
        "frame's graph and its mutations ran) and kwargs at the call are not passed to the deferred "
        "call (Dynamo replays positional arguments only: under compile the stacklevel is the default). "
        "`--fix` (safe only) leaves it; `--unsafe-fixes` and the bot's `fixes: verified` carry it. "
        "Where the helper cannot be written (a category that is not a module-level or builtin name, "
        "`source=` or `skip_file_prefixes=` arguments, the call's value used), the notice is left with "
        "this advice, never hidden by a guard. Registering `warnings.warn` itself keeps a "
        "one-argument warning, but a category or stacklevel argument at the call still breaks "
        "(\"attempted to reorder a debugging function that can't actually be reordered\"); "
        "`ignore_logging_functions` removes the break and the warning — never right for a warning."
    ),
    fixes=("python_io.io:build_warning_fix",),
    detection=Detection(calls=dict.fromkeys(("warnings.warn", "warnings.warn_explicit"), untraceable("`warnings.warn` in traced code"))),
    advice=GUARD_ADVICE,
    advice_cases=(DEPRECATION_NOTICE,),
)
