"""GM601 serialization-in-traced-code: its documentation, in one place with how it is detected and fixed."""

from __future__ import annotations

from graphmend_bot.rules.detect import Detection, untraceable
from graphmend_bot.rules.rule import CACHED_LOADER_FIX, Rule

RULE = Rule(
    code="GM601",
    name="serialization-in-traced-code",
    family="not traceable",
    gb_id="GB0007",  # both are skipped functions (tests/coverage_probes/gb0007_torch_save.py)
    summary="Flags `torch.save` and `torch.load` in traced code.",
    why="Serialization does file I/O that TorchDynamo cannot trace.",
    example="torch.save(activations, 'debug.pt')",
    use_instead="# Split the compiled region: return the tensor and save it outside torch.compile.",
    fix_safety=(
        CACHED_LOADER_FIX +
        "Otherwise no automatic fix."
    ),
    fixes=("loaders.cached_constant",),
    detection=Detection(calls=dict.fromkeys(("torch.save", "torch.load"), untraceable("`{name}` does file I/O in traced code"))),
    advice=(
        "Split the compiled region around `{code}`: return the tensor and save or load it outside "
        "`torch.compile`"
    ),
)
