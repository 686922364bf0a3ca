"""Write graphmend_bot/vocabulary/skipped_torch_callees.py from the installed torch's own trace rules:
the functions of torch's private modules a traced frame cannot call without a graph break, each measured.

    python benchmarks/skipped_torch_callees.py           # (re)write the table (about five minutes)
    python benchmarks/skipped_torch_callees.py --check   # exit 1 when the table is out of date

Libraries call torch's internals from code they compile: `torch._dynamo.utils.disable_cache_limit()`
entered by `with` in an optimizer's `step` (heavyball), `torch._dynamo.utils.is_compile_supported()`,
`torch._utils` functions. Dynamo skips every Python file under
torch/_dynamo/trace_rules.py's `MOD_SKIPLIST` that no inline list takes back, and each C function it
has no handler for. Candidates: every public function defined in torch that a private torch module
under `MOD_SKIPLIST` exposes (a module with a `_part`, among those a fresh `import torch,
torch._dynamo` loads: the same list whatever this process imported before), that `trace_rules.lookup`
classifies as `SkipFunctionVariable`, itself or the function it wraps (a `@contextlib.contextmanager`
function is `contextlib`'s wrapper, which Dynamo inlines up to the skipped generator it calls). Each
is measured as benchmarks/skipped_callees.py measures the
standard library's: `module.fn()` between two tensor operations, compiled with `fullgraph=True`
(Dynamo refuses a skipped function before binding any argument, so none is given). It enters the
table when refused as a skipped function (GB0007 "Attempted to call function marked as skipped",
GB0008 for one it tried to inline); the others (traced, folded, refused with an id another rule
owns, such as `torch._dynamo.graph_break()`'s GB0025, or an exception) stay in `HANDLED`, with what
the measurement gave, so a change of torch shows in both.

torch's public modules (`torch.nn.utils.rnn.pack_padded_sequence`, `torch.jit.isinstance`) stay out:
generated the same way (c19b2ca, 8836738) they added no break statement on either half of the wild
corpus and one executed false positive on the test half, so both were reverted (skipped_callees.py).
tests/test_skipped_torch_callees.py keeps the table in step with the pinned torch.
"""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
import tempfile
import types
import warnings
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))

from generated_table import write_or_check  # noqa: E402
from skipped_callees import SKIPPED_IDS, gb_ids_by_type, refusal, render_tables, skipped_by_trace_rules  # noqa: E402

TABLE = REPO / "graphmend_bot" / "vocabulary" / "skipped_torch_callees.py"
LOADED = "import json, sys, torch, torch._dynamo; print(json.dumps(sorted(sys.modules)))"


def private_skipped_modules() -> list[str]:
    """The torch modules with a private part (`torch._dynamo.utils`, `torch.utils._pytree`) that a fresh
    `import torch, torch._dynamo` loads and that lie under an entry of trace_rules.MOD_SKIPLIST."""
    from torch._dynamo import trace_rules

    loaded = json.loads(
        subprocess.run([sys.executable, "-c", LOADED], capture_output=True, text=True, check=True).stdout
    )
    return [
        name
        for name in loaded
        if name.startswith("torch.")
        and any(part.startswith("_") for part in name.split(".")[1:])
        and any(name == skipped or name.startswith(skipped + ".") for skipped in trace_rules.MOD_SKIPLIST)
    ]


def torch_functions(module_name: str) -> Iterator[tuple[str, object]]:
    """(dotted name, function) for each public function defined in torch that the module exposes,
    re-exports included: code calls them by the name it imported (`torch._dynamo.mark_static`)."""
    module = sys.modules.get(module_name)
    if module is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module = __import__(module_name, fromlist=["_"])
    for attribute in sorted(dir(module)):
        if attribute.startswith("_"):
            continue
        with warnings.catch_warnings():  # a deprecated alias warns when read
            warnings.simplefilter("ignore")
            value = getattr(module, attribute, None)
        defined_in = getattr(value, "__module__", None) or ""
        if isinstance(value, (types.FunctionType, types.BuiltinFunctionType)) and defined_in.startswith(
            "torch"
        ):
            yield f"{module_name}.{attribute}", value


def candidates() -> dict[str, object]:
    return {
        dotted: function
        for module_name in private_skipped_modules()
        for dotted, function in torch_functions(module_name)
        if skipped_by_trace_rules(function) or skipped_by_trace_rules(inspect.unwrap(function))  # type: ignore[arg-type]
    }


def build() -> tuple[str, dict[str, str], dict[str, str]]:
    import torch

    by_type = gb_ids_by_type()
    with tempfile.TemporaryDirectory() as scratch:
        here = os.getcwd()
        os.chdir(scratch)  # what a traced call writes lands here
        try:
            measured = {dotted: refusal(dotted, "module.{attribute}()", by_type) for dotted in candidates()}
        finally:
            os.chdir(here)
    skipped = {dotted: gb for dotted, gb in measured.items() if gb in SKIPPED_IDS}
    handled = {dotted: gb for dotted, gb in measured.items() if gb not in SKIPPED_IDS}
    return torch.__version__.split("+")[0], skipped, handled


def render(version: str, skipped: dict[str, str], handled: dict[str, str]) -> str:
    return render_tables(
        f"""Generated by benchmarks/skipped_torch_callees.py from torch {version}'s trace rules; do not edit.

Functions of torch's private modules under Dynamo's skip list (`torch._dynamo.utils.disable_cache_limit`)
a traced frame cannot call: each measured as `module.fn()` in a frame compiled with `fullgraph=True` and
refused as a skipped function, with the id given. `HANDLED` holds the other candidates (the ones
trace_rules.lookup marks skipped) with what the measurement gave: traced, folded, an exception, or
refused with an id another rule owns.
""",
        version,
        "SKIPPED_TORCH_CALLEES",
        skipped,
        handled,
    )


def main() -> int:
    return write_or_check(__doc__.splitlines()[0], TABLE, lambda: render(*build()))


if __name__ == "__main__":
    sys.exit(main())
