"""Every entry of UNTRACEABLE_CALLS (vocabulary/known_names.py) is measured here with TorchDynamo:
a call of it between two tensor operations breaks the graph with the id the table records, and
the callees the table leaves out on purpose trace without a break."""

from __future__ import annotations

import bisect
import copy
import inspect
import io
import json
import os
import pickle
import random
import sys
import time
import types
import uuid
from pathlib import Path

import pytest

from graphmend_bot.vocabulary.known_names import (
    UNTRACEABLE_BUILTINS,
    UNTRACEABLE_CALLS,
    UNTRACEABLE_TENSOR_METHODS,
)

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")

# One call per table entry; `y` is a tensor, `tmp` a scratch folder.
SAMPLES = {
    "time.time": "time.time()", "time.perf_counter": "time.perf_counter()",
    "time.monotonic": "time.monotonic()", "time.process_time": "time.process_time()",
    "time.time_ns": "time.time_ns()", "time.perf_counter_ns": "time.perf_counter_ns()",
    "time.monotonic_ns": "time.monotonic_ns()", "time.sleep": "time.sleep(0)",
    "bisect.bisect": "bisect.bisect([0.0, 1.0], 0.5)",
    "bisect.bisect_left": "bisect.bisect_left([0.0, 1.0], 0.5)",
    "bisect.bisect_right": "bisect.bisect_right([0.0, 1.0], 0.5)",
    "bisect.insort": "bisect.insort([0.0, 1.0], 0.5)",
    "bisect.insort_left": "bisect.insort_left([0.0, 1.0], 0.5)",
    "bisect.insort_right": "bisect.insort_right([0.0, 1.0], 0.5)",
    "pickle.dumps": "pickle.dumps({'a': 1})",
    "pickle.loads": "pickle.loads(b'\\x80\\x04K\\x01.')",
    "pickle.dump": "pickle.dump(1, io.BytesIO())",
    "pickle.load": "pickle.load(io.BytesIO(b'\\x80\\x04K\\x01.'))",
    "copy.copy": "copy.copy([1, 2])",
    "copy.deepcopy": "copy.deepcopy(y)",
    "random.random": "random.random()", "random.shuffle": "random.shuffle([1, 2, 3])",
    "random.choice": "random.choice([1, 2, 3])", "random.seed": "random.seed(0)",
    "numpy.random.SeedSequence": "np.random.SeedSequence(3)",
    # built before the compiled function runs, as torchsde keeps it between calls
    "numpy.random.SeedSequence.generate_state": "seed_sequence.generate_state(4)",
    "numpy.random.default_rng": "np.random.default_rng(0)",
    "numpy.random.permutation": "np.random.permutation(4)",
    "numpy.random.choice": "np.random.choice(5, 2)",
    "numpy.load": "np.load(tmp + '/a.npy')",
    "numpy.save": "np.save(tmp + '/b.npy', np.zeros(2))",
    "numpy.savez": "np.savez(tmp + '/b.npz', a=np.zeros(2))",
    "numpy.loadtxt": "np.loadtxt(tmp + '/a.txt')",
    "numpy.savetxt": "np.savetxt(tmp + '/c.txt', np.zeros(2))",
    "torch.Generator": "torch.Generator()",
    "types.SimpleNamespace": "types.SimpleNamespace(step=1)",
    # built before the compiled function runs (a chained construction: tests/coverage_probes/gb7650_*)
    "torch.Generator.manual_seed": "generator.manual_seed(0)", "torch.Generator.seed": "generator.seed()",
    "torch.Generator.initial_seed": "generator.initial_seed()",
    "torch.Generator.get_state": "generator.get_state()",
    "torch.Generator.set_state": "generator.set_state(generator.get_state())",
    "torch.Generator.clone_state": "generator.clone_state()",
    "torch.default_generator.manual_seed": "torch.default_generator.manual_seed(0)",
    "torch.default_generator.initial_seed": "torch.default_generator.initial_seed()",
    "torch.default_generator.get_state": "torch.default_generator.get_state()",
    "torch.default_generator.set_state": "torch.default_generator.set_state(default_state)",
    "os.getpid": "os.getpid()", "uuid.uuid4": "uuid.uuid4()",
    "sys._getframe": "sys._getframe(0)", "inspect.currentframe": "inspect.currentframe()",
    "inspect.stack": "inspect.stack()",
    "torch.get_num_threads": "torch.get_num_threads()", "torch.get_num_interop_threads": "torch.get_num_interop_threads()",
    "torch.initial_seed": "torch.initial_seed()",
    "torch.get_float32_matmul_precision": "torch.get_float32_matmul_precision()",
    "torch.get_deterministic_debug_mode": "torch.get_deterministic_debug_mode()",
    "torch.is_deterministic_algorithms_warn_only_enabled": "torch.is_deterministic_algorithms_warn_only_enabled()",
    "torch.is_anomaly_enabled": "torch.is_anomaly_enabled()", "torch.is_warn_always_enabled": "torch.is_warn_always_enabled()",
    "torch.get_default_device": "torch.get_default_device()", "torch.result_type": "torch.result_type(y, y)",
    "torch.can_cast": "torch.can_cast(torch.float, torch.int)", "torch.is_conj": "torch.is_conj(y)",
    "torch.is_same_size": "torch.is_same_size(y, y)", "torch.is_signed": "torch.is_signed(y)",
    "torch.is_inference": "torch.is_inference(y)", "torch.get_device": "torch.get_device(y)",
    "torch.cuda.device_count": "torch.cuda.device_count()", "torch.cuda.is_bf16_supported": "torch.cuda.is_bf16_supported()",
    "torch.backends.cudnn.is_available": "torch.backends.cudnn.is_available()",
    "torch.backends.mps.is_available": "torch.backends.mps.is_available()", "torch.cpu.is_available": "torch.cpu.is_available()",
    "torch.set_num_threads": "torch.set_num_threads(threads)", "torch.manual_seed": "torch.manual_seed(0)",
    "torch.get_rng_state": "torch.get_rng_state()", "torch.typename": "torch.typename(y)",
    "torch.autograd.Variable": "torch.autograd.Variable(y)",
    "torch.utils.data.get_worker_info": "torch.utils.data.get_worker_info()", "torch.hub.get_dir": "torch.hub.get_dir()",
    "torch.backends.mkldnn.is_available": "torch.backends.mkldnn.is_available()",
    "torch.nn.utils.rnn.pack_padded_sequence": "torch.nn.utils.rnn.pack_padded_sequence(y.view(3, 1, 1), [3])",
    # its input built before the compiled function runs, as an encoder receives it
    "torch.nn.utils.rnn.pad_packed_sequence": "torch.nn.utils.rnn.pad_packed_sequence(packed)",
    "torch.jit.isinstance": "torch.jit.isinstance(y, torch.Tensor)",
    "torch.jit.fork": "torch.jit.fork(torch.sin, y)", "torch.jit.wait": "torch.jit.wait(future)",
    "torch.random.manual_seed": "torch.random.manual_seed(0)", "torch.random.get_rng_state": "torch.random.get_rng_state()",
    "torch.random.set_rng_state": "torch.random.set_rng_state(rng_state)", "torch.set_rng_state": "torch.set_rng_state(rng_state)",
    "torch.cuda.manual_seed": "torch.cuda.manual_seed(0)", "torch.cuda.manual_seed_all": "torch.cuda.manual_seed_all(0)",
}
# One call per untraceable builtin (GM604's `builtins`).
BUILTIN_SAMPLES = {
    "globals": "globals()", "dir": "dir(y)", "exec": "exec('a = 1')", "compile": "compile('1', 'f', 'eval')",
    "memoryview": "memoryview(b'ab')", "bytes": "bytes(3)", "bytearray": "bytearray(b'ab')",
}
# Measured to trace on torch 2.13, so deliberately not in the table.
TRACEABLE = [
    "random.randint(0, 3)", "random.uniform(0, 3)", "np.random.rand(3)", "np.random.randn(3)",
    "np.random.normal(0.0, 1.0, 3)", "np.random.uniform(0.0, 1.0, 3)", "np.random.random(3)",
    "np.random.randint(0, 10, 3)",  # a draw of one number breaks (tests/test_numpy_draws.py)
    "copy.deepcopy({'order': [1, 2]})", "copy.copy((1, 2))", "eval('1 + 1')", "vars(copy)", "id(y)", "str(y.shape)", "str(y.dtype)",
    "torch.get_default_dtype()", "torch.is_grad_enabled()", "torch.are_deterministic_algorithms_enabled()",
    "torch.cuda.is_available()", "torch.numel(y)", "torch.is_tensor(y)", "torch.is_floating_point(y)",
    "torch.promote_types(torch.float, torch.int)",
    "torch.nn.utils.rnn.pad_sequence([y, y])", "torch.jit.is_scripting()",
]


def _break_ids(expression: str, tmp: Path) -> set[str]:
    registry = json.loads((Path(torch._dynamo.__file__).parent / "graph_break_registry.json").read_text())
    by_type = {entry["Gb_type"]: gb_id for gb_id, entries in registry.items() for entry in entries}
    source = f"def f(x):\n    y = x * 2\n    _value = {expression}\n    return y + 1\n"
    namespace = {
        "torch": torch, "np": np, "bisect": bisect, "pickle": pickle, "copy": copy, "random": random,
        "io": io, "os": os, "time": time, "uuid": uuid, "tmp": str(tmp), "sys": sys, "inspect": inspect, "types": types,
        "seed_sequence": np.random.SeedSequence(3), "generator": torch.Generator(),
        "default_state": torch.default_generator.get_state(),
        "packed": torch.nn.utils.rnn.pack_padded_sequence(torch.ones(3, 1, 1), [3]),
        "future": torch.jit.fork(torch.sin, torch.ones(3)),
        "rng_state": torch.get_rng_state(),  # restored to what it is: the other tests' draws stay
        "threads": torch.get_num_threads(),  # set to what it is: the other tests' thread count stays
    }
    exec(compile(source, "<sample>", "exec"), namespace)
    torch._dynamo.reset()
    explained = torch._dynamo.explain(namespace["f"])(torch.randn(3))
    return {by_type.get(r.reason.splitlines()[0].strip(), r.reason.splitlines()[0]) for r in explained.break_reasons}


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("skipped")
    np.save(folder / "a.npy", np.zeros(2))
    np.savetxt(folder / "a.txt", np.zeros(2))
    return folder


def test_every_entry_has_a_sample() -> None:
    assert set(SAMPLES) == set(UNTRACEABLE_CALLS)


@pytest.mark.parametrize("name", sorted(UNTRACEABLE_CALLS))
def test_entry_breaks_with_its_recorded_id(name: str, scratch: Path) -> None:
    entry = UNTRACEABLE_CALLS[name]
    assert entry.torch == torch.__version__.split("+")[0], "re-measure the table on this torch version"
    assert _break_ids(SAMPLES[name], scratch) == {entry.gb_id}


@pytest.mark.parametrize("expression", TRACEABLE)
def test_left_out_callees_trace(expression: str, scratch: Path) -> None:
    assert _break_ids(expression, scratch) == set()


@pytest.mark.parametrize("name", sorted(UNTRACEABLE_BUILTINS))
def test_untraceable_builtin_breaks(name: str, scratch: Path) -> None:
    assert set(BUILTIN_SAMPLES) == UNTRACEABLE_BUILTINS
    assert _break_ids(BUILTIN_SAMPLES[name], scratch) == {"GB0059"}


# Every `is_*` tensor method and the other metadata methods, on a tensor the graph computed: those
# not in UNTRACEABLE_TENSOR_METHODS (or GM621's is_inference) trace. Attributes (`is_cuda`) are constants.
METADATA_METHODS = sorted(
    name for name in dir(torch.Tensor)
    if (name.startswith("is_") or name in {"storage_offset", "element_size", "get_device", "dim", "numel", "data_ptr"})
    and callable(getattr(torch.ones(1), name))
    and name not in {"is_coalesced", "is_nonzero", "is_same_size", "is_set_to"}  # refuse a dense tensor or want an argument
)


@pytest.mark.parametrize("name", METADATA_METHODS)
def test_tensor_metadata_method_breaks_as_the_table_says(name: str, scratch: Path) -> None:
    expected = UNTRACEABLE_TENSOR_METHODS.get(name)
    ids = _break_ids(f"y.{name}()", scratch)
    if name == "is_inference":
        assert ids == {"GB0045"}  # GM621
    else:
        assert ids == ({expected.gb_id} if expected else set())


# `str(t)` and `repr(t)` of a tensor, which GM622 reports with these ids.
TENSOR_TEXT_IDS = {"str": "GB0059", "repr": "GB0569"}


@pytest.mark.parametrize(("name", "gb_id"), sorted(TENSOR_TEXT_IDS.items()))
def test_text_of_a_tensor_breaks(name: str, gb_id: str, scratch: Path) -> None:
    assert _break_ids(f"{name}(y)", scratch) == {gb_id}


COPIES = """\
import copy

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.items = [1, 2]

    def forward(self, x):
        x = x + 1
        a = copy.copy([1, 2])
        x = x * 2
        b = copy.copy((1, 2))
        c = copy.copy(self.items)
        return x * a[0] * b[0] * c[0]
"""


def test_copy_copy_is_reported_but_on_a_tuple(tmp_path: Path) -> None:
    """`copy.copy` breaks on a list, a list attribute (GB0007) and traces on a tuple:
    a tuple display is never reported, anything else is (review6: silence on what is not provably a
    list lost four real breaks), and Dynamo breaks at exactly the lines reported."""
    sys.path.insert(0, str(Path(__file__).parent))
    from sample_modules import dynamo_breaks, graphmend_findings

    assert {line for line, _ in dynamo_breaks(COPIES, tmp_path)} == {14, 17}
    assert graphmend_findings(COPIES, tmp_path) == {(row, "GM604", "GB0007") for row in (14, 17)}
