"""The context-manager table (vocabulary/context_managers.py, GM612) against the pinned torch.

benchmarks/context_managers.py generates it from the installed torch, measuring each candidate
as `with module.name():` under `fullgraph=True`. Here every entry is checked to still be a
context manager, one entry per module family is measured again, and real `with` statements (with
their arguments) are run through `torch._dynamo.explain` mapped as the census maps them and
through `graphmend check`: each breaks at its line with GB0142 and is reported; the context
managers Dynamo enters are not.
"""

from __future__ import annotations

import importlib
import sys
import textwrap
from pathlib import Path

import pytest

from graphmend_bot.vocabulary.context_managers import NOT_REFUSED, TORCH_VERSION, UNENTERABLE_CONTEXT_MANAGERS

torch = pytest.importorskip("torch")

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from context_managers import is_context_manager, measure  # noqa: E402
from sample_modules import dynamo_breaks, graphmend_findings  # noqa: E402
from skipped_callees import gb_ids_by_type  # noqa: E402

# `with` statements as code writes them, one per family of the table.
REFUSED_SAMPLES = {
    "torch.autograd.set_detect_anomaly": "torch.autograd.set_detect_anomaly(True)",
    "torch.autograd.set_multithreading_enabled": "torch.autograd.set_multithreading_enabled(False)",
    "torch.backends.mkl.verbose": "torch.backends.mkl.verbose(0)",
    "torch.backends.nnpack.flags": "torch.backends.nnpack.flags(False)",
    # behind torch.backends' wrapper modules, whose dir() does not list them
    "torch.backends.mkldnn.flags": "torch.backends.mkldnn.flags(enabled=False)",
    "torch.backends.opt_einsum.flags": "torch.backends.opt_einsum.flags(enabled=False)",
    "torch.jit.fuser": "torch.jit.fuser('fuser0')",
    "torch.jit.optimized_execution": "torch.jit.optimized_execution(False)",
    "torch.cuda.device_of": "torch.cuda.device_of(x)",
    "torch.serialization.safe_globals": "torch.serialization.safe_globals([])",
    "torch.utils.checkpoint.set_checkpoint_debug_enabled": "torch.utils.checkpoint.set_checkpoint_debug_enabled(True)",
    "torch.profiler.itt.range": "torch.profiler.itt.range('a')",
    "threading.Semaphore": "threading.Semaphore(2)",
    # refused with another id when built with no argument (its construction breaks): GB0142 at the `with`
    "tempfile.TemporaryDirectory": "tempfile.TemporaryDirectory()",
    "threading.Condition": "threading.Condition()",
    "socket.socket": "socket.socket()",
    "io.BytesIO": "io.BytesIO(b'a')",  # named by its module, not by `cgi`, which re-exports it
    "torch.backends.cuda.sdp_kernel": "torch.backends.cuda.sdp_kernel(enable_math=False)",
}
# Context managers Dynamo enters on torch 2.13: none is in the table, graphmend reports none.
ENTERED_SAMPLES = [
    "torch.no_grad()", "torch.enable_grad()", "torch.inference_mode()", "torch.set_grad_enabled(False)",
    "torch.autocast('cpu')", "warnings.catch_warnings()", "contextlib.suppress(ValueError)",
    "contextlib.nullcontext()", "torch.autograd.profiler.record_function('step')",
]
IMPORTS = "import contextlib, io, socket, tempfile, threading, warnings\nimport torch\n\n\n"


def _module_with(statement: str) -> str:
    return IMPORTS + textwrap.dedent(f"""\
        class Model(torch.nn.Module):
            def forward(self, x):
                x = x * 2
                with {statement}:
                    x = x + 1
                return x + 1
        """)


def _named(dotted: str) -> object:
    module_name, _, attribute = dotted.rpartition(".")
    return getattr(importlib.import_module(module_name), attribute)


def test_table_is_for_the_pinned_torch() -> None:
    assert torch.__version__.split("+")[0] == TORCH_VERSION, "run benchmarks/context_managers.py"


def test_every_entry_is_still_a_context_manager() -> None:
    assert all(is_context_manager(_named(name)) for name in (*UNENTERABLE_CONTEXT_MANAGERS, *NOT_REFUSED))


def test_one_entry_per_module_is_refused_with_its_recorded_id() -> None:
    by_type = gb_ids_by_type()
    firsts: dict[str, str] = {}
    for name in sorted(UNENTERABLE_CONTEXT_MANAGERS):
        firsts.setdefault(name.rpartition(".")[0], name)
    wrong = {
        name: got for name in firsts.values() if (got := measure(name, by_type)) != UNENTERABLE_CONTEXT_MANAGERS[name]
    }
    assert not wrong


@pytest.mark.parametrize("name", sorted(REFUSED_SAMPLES))
def test_refused_context_manager_breaks_and_is_reported(name: str, tmp_path: Path) -> None:
    assert name in UNENTERABLE_CONTEXT_MANAGERS
    source = _module_with(REFUSED_SAMPLES[name])
    line = source.splitlines().index(f"        with {REFUSED_SAMPLES[name]}:") + 1
    assert dynamo_breaks(source, tmp_path) == {(line, "GB0142")}
    assert (line, "GM612", "GB0142") in graphmend_findings(source, tmp_path)


@pytest.mark.parametrize("statement", ENTERED_SAMPLES)
def test_entered_context_manager_is_not_reported(statement: str, tmp_path: Path) -> None:
    source = _module_with(statement)
    assert dynamo_breaks(source, tmp_path) == set()
    assert graphmend_findings(source, tmp_path) == set()


def test_a_refused_context_manager_called_outside_a_with_is_not_reported(tmp_path: Path) -> None:
    """Measured only as what a `with` enters: `flags = torch.backends.nnpack.flags` is a value."""
    source = IMPORTS + "class Model(torch.nn.Module):\n    def forward(self, x):\n        manager = torch.jit.fuser\n        return x + 1\n"
    assert graphmend_findings(source, tmp_path) == set()
