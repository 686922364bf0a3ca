"""The data-dependent operator tables (vocabulary/data_dependent_ops.py: GM105, GM501), generated
from torch's operator database by benchmarks/data_dependent_ops.py, measured here with TorchDynamo:
every entry called between two tensor operations breaks with "Data dependent operator" (GB0033)
or "Dynamic shape operator" (GB0036); an operator that breaks for some arguments only breaks with
them and traces without them, and a rule reads those arguments."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from graphmend_bot.engine import check
from graphmend_bot.rules import RULES
from graphmend_bot.vocabulary.data_dependent_ops import (
    DATA_DEPENDENT_ATEN_CALLS,
    DATA_DEPENDENT_FUNCTIONS,
    DATA_DEPENDENT_METHODS,
    DYNAMIC_SHAPE_ATEN_CALLS,
    DYNAMIC_SHAPE_FUNCTIONS,
    DYNAMIC_SHAPE_METHODS,
    SHAPE_FROM_DATA_FOR_SOME_ARGUMENTS,
    TORCH_VERSION,
    VALUE_READ_FOR_SOME_ARGUMENTS,
)

torch = pytest.importorskip("torch")
F = torch.nn.functional

# One call per entry, on `y` (a 3x4 float tensor).
FUNCTION_SAMPLES = {
    "allclose": lambda y: torch.allclose(y, y),
    "corrcoef": lambda y: torch.corrcoef(y),
    "cov": lambda y: torch.cov(y),
    "equal": lambda y: torch.equal(y, y),
    "nn.functional.gaussian_nll_loss": lambda y: F.gaussian_nll_loss(y, y.flip(0), y.abs() + 1),
}
METHOD_SAMPLES = {
    "allclose": lambda y: y.allclose(y),
    "corrcoef": lambda y: y.corrcoef(),
    "cov": lambda y: y.cov(),
    "equal": lambda y: y.equal(y),
}

SHAPE_FUNCTION_SAMPLES = {
    "argwhere": lambda y: torch.argwhere(y),
    "bincount": lambda y: torch.bincount(y.long().abs().flatten()),
    "combinations": lambda y: torch.combinations(y[0]),
    "linalg.lstsq": lambda y: torch.linalg.lstsq(y, y),
    "masked_select": lambda y: torch.masked_select(y, y > 0),
    "nn.functional.ctc_loss": lambda y: F.ctc_loss(y.log_softmax(-1).unsqueeze(1), torch.tensor([[1, 2]]), (3,), (2,)),
    "nonzero": lambda y: torch.nonzero(y),
    "unique": lambda y: torch.unique(y),
    "unique_consecutive": lambda y: torch.unique_consecutive(y),
}
SHAPE_METHOD_SAMPLES = {
    "argwhere": lambda y: y.argwhere(),
    "bincount": lambda y: y.long().abs().flatten().bincount(),
    "masked_select": lambda y: y.masked_select(y > 0),
    "nonzero": lambda y: y.nonzero(),
    "unique": lambda y: y.unique(),
    "unique_consecutive": lambda y: y.unique_consecutive(),
}
# The operators that break for some arguments only: (the rule reading the arguments, the id, a call
# on `y` that breaks with it, the same call with arguments that trace). Dynamo and graphmend both
# read the calls' text.
SOME_ARGUMENTS = {
    "narrow": ("GM305", "GB0033", "torch.narrow(y, 1, y.argmax(1)[0], 1)", "torch.narrow(y, 1, 0, 1)"),
    "nn.functional.one_hot": ("GM305", "GB0246", "F.one_hot(y.long().abs())", "F.one_hot(y.long().abs(), 8)"),
    "tensor_split": (
        "GM305", "GB0033", "torch.tensor_split(y, torch.tensor([1, 2]), dim=1)", "torch.tensor_split(y, [1, 2], dim=1)",
    ),
    "__getitem__": ("GM502", "GB0036", "y[y > 0]", "y[y.argmax(0)]"),
    "repeat_interleave": (
        "GM503", "GB0036", "y.repeat_interleave(y.long().abs().flatten()[:3], dim=0)", "y.repeat_interleave(2, dim=0)",
    ),
}
# The aten operators called by their own names: the arguments of each operator, on `y`.
ATEN_ARGUMENTS = {
    "aten._local_scalar_dense.default": "y.sum()",
    "aten.item.default": "y.sum()",
    "aten.allclose.default": "y, y",
    "aten.equal.default": "y, y",
    "aten._ctc_loss.Tensor": "y.log_softmax(-1).unsqueeze(1), torch.tensor([[1, 2]]), torch.tensor([3]), torch.tensor([2])",
    "aten._unique2.default": "y",
    "aten.bincount.default": "y.long().abs().flatten()",
    "aten.linalg_lstsq.default": "y, y",
    "aten.masked_select.default": "y, y > 0",
    "aten.nonzero.default": "y",
    "aten.unique_consecutive.default": "y",
}
ATEN_CALLS = {
    **{name: ("GM105", "GB0033", operator) for name, operator in DATA_DEPENDENT_ATEN_CALLS.items()},
    **{name: ("GM501", "GB0036", operator) for name, operator in DYNAMIC_SHAPE_ATEN_CALLS.items()},
}
MODULE = """import torch
import torch.nn.functional as F


class Probe(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x * 2
        value = {call}
        return y + 1
"""
CALL_ROW = 8


def _sample(call: str) -> Callable[[Any], object]:
    return eval(f"lambda y: {call}", {"torch": torch, "F": F})


def _reported(tmp_path: Path, call: str) -> set[tuple[int, str]]:
    path = tmp_path / "probe.py"
    path.write_text(MODULE.format(call=call))
    return {(f.location.row, f.code) for f in check([str(path)], None, jobs=1).findings}


def _break_ids(sample) -> set[str]:
    registry = json.loads((Path(torch._dynamo.__file__).parent / "graph_break_registry.json").read_text())
    by_type = {entry["Gb_type"]: gb_id for gb_id, entries in registry.items() for entry in entries}

    def f(x):
        y = x * 2
        _value = sample(y)
        return y + 1

    torch._dynamo.reset()
    explained = torch._dynamo.explain(f)(torch.randn(3, 4))
    return {by_type.get(r.reason.splitlines()[0].strip(), r.reason.splitlines()[0]) for r in explained.break_reasons}


def test_table_is_for_the_pinned_torch() -> None:
    assert torch.__version__.split("+")[0] == TORCH_VERSION, "run benchmarks/data_dependent_ops.py"


def test_every_entry_has_a_sample() -> None:
    assert set(FUNCTION_SAMPLES) == set(DATA_DEPENDENT_FUNCTIONS)
    assert set(METHOD_SAMPLES) == set(DATA_DEPENDENT_METHODS)


@pytest.mark.parametrize("name", sorted(FUNCTION_SAMPLES))
def test_function_breaks_as_data_dependent(name: str) -> None:
    assert _break_ids(FUNCTION_SAMPLES[name]) == {"GB0033"}


@pytest.mark.parametrize("name", sorted(METHOD_SAMPLES))
def test_method_breaks_as_data_dependent(name: str) -> None:
    assert _break_ids(METHOD_SAMPLES[name]) == {"GB0033"}


def test_an_op_that_reads_values_only_for_some_arguments_is_left_out() -> None:
    """`narrow` reads its start only when given a tensor (GM305's): with an int it traces."""
    assert "narrow" not in DATA_DEPENDENT_FUNCTIONS
    assert _break_ids(lambda y: torch.narrow(y, 1, 0, 2)) == set()


def test_every_dynamic_shape_entry_has_a_sample() -> None:
    assert set(SHAPE_FUNCTION_SAMPLES) == set(DYNAMIC_SHAPE_FUNCTIONS)
    assert set(SHAPE_METHOD_SAMPLES) == set(DYNAMIC_SHAPE_METHODS)


@pytest.mark.parametrize("name", sorted(SHAPE_FUNCTION_SAMPLES))
def test_function_breaks_as_dynamic_shape(name: str) -> None:
    assert _break_ids(SHAPE_FUNCTION_SAMPLES[name]) == {"GB0036"}


@pytest.mark.parametrize("name", sorted(SHAPE_METHOD_SAMPLES))
def test_method_breaks_as_dynamic_shape(name: str) -> None:
    assert _break_ids(SHAPE_METHOD_SAMPLES[name]) == {"GB0036"}


def test_a_fixed_size_selection_is_not_in_the_table() -> None:
    """`nonzero_static` gives the size up front (aten does not tag it): it traces."""
    assert "nonzero_static" not in DYNAMIC_SHAPE_FUNCTIONS
    assert _break_ids(lambda y: torch.nonzero_static(y, size=2)) == set()


def test_every_argument_dependent_operator_has_a_rule_and_both_calls() -> None:
    assert set(SOME_ARGUMENTS) == set(VALUE_READ_FOR_SOME_ARGUMENTS) | set(SHAPE_FROM_DATA_FOR_SOME_ARGUMENTS)
    codes = {rule.code for rule in RULES}
    assert {code for code, *_ in SOME_ARGUMENTS.values()} <= codes


@pytest.mark.parametrize("name", sorted(SOME_ARGUMENTS))
def test_argument_dependent_operator_breaks_only_with_its_arguments(name: str, tmp_path: Path) -> None:
    code, gb_id, breaks, traces = SOME_ARGUMENTS[name]
    assert _break_ids(_sample(breaks)) == {gb_id}
    assert _reported(tmp_path, breaks) == {(CALL_ROW, code)}
    assert _break_ids(_sample(traces)) == set()
    assert _reported(tmp_path, traces) == set()


def test_every_aten_operator_has_arguments() -> None:
    assert {operator for *_, operator in ATEN_CALLS.values()} == set(ATEN_ARGUMENTS)


@pytest.mark.parametrize("name", sorted(ATEN_CALLS))
def test_aten_operator_called_by_name_breaks_and_is_reported(name: str, tmp_path: Path) -> None:
    """`torch.ops.aten.nonzero.default(y)` breaks as `torch.nonzero(y)` does, and is reported."""
    code, gb_id, operator = ATEN_CALLS[name]
    call = f"{name}({ATEN_ARGUMENTS[operator]})"
    assert _break_ids(_sample(call)) == {gb_id}
    assert _reported(tmp_path, call) == {(CALL_ROW, code)}


def test_aten_packet_of_an_operator_with_other_overloads_is_left_out() -> None:
    """`torch.ops.aten._ctc_loss(...)` dispatches by its arguments to `.Tensor` or `.default`, and
    only `.Tensor` raised on the samples: the packet is not claimed (it breaks too, measured: a
    miss, not a false finding)."""
    assert "torch.ops.aten._ctc_loss.Tensor" in DYNAMIC_SHAPE_ATEN_CALLS
    assert "torch.ops.aten._ctc_loss" not in DYNAMIC_SHAPE_ATEN_CALLS


# One OpInfo in SAMPLE_EVERY (by a fixed hash of its name) is re-derived here besides every one
# that can write a listed entry; `python benchmarks/data_dependent_ops.py --check` re-derives all
# of them (a few minutes on two cores).
SAMPLE_EVERY = 8


def _generator() -> Any:
    import importlib.util

    path = Path(__file__).resolve().parent.parent / "benchmarks" / "data_dependent_ops.py"
    spec = importlib.util.spec_from_file_location("data_dependent_ops_generator", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_listed_entries_and_a_sample_of_the_rest_are_what_the_generator_derives() -> None:
    """Every entry of the tables, and the verdict on a fixed eighth of op_db's other operators, is
    what the generator derives from torch's operator database now: a stale entry, a missing one
    among the sample, or a changed reader fails (the full re-derivation: `--check`)."""
    import zlib

    generator = _generator()
    version, functions, methods, some_arguments = (
        TORCH_VERSION,
        {"value": DATA_DEPENDENT_FUNCTIONS, "shape": DYNAMIC_SHAPE_FUNCTIONS},
        {"value": DATA_DEPENDENT_METHODS, "shape": DYNAMIC_SHAPE_METHODS},
        {"value": VALUE_READ_FOR_SOME_ARGUMENTS, "shape": SHAPE_FROM_DATA_FOR_SOME_ARGUMENTS},
    )
    listed = {name for table in (functions, methods, some_arguments) for entries in table.values() for name in entries}
    sampled = {op.name for op in generator._op_db() if zlib.crc32(op.name.encode()) % SAMPLE_EVERY == 0}
    sampled_keys = {key for op in generator.ops_deciding(sampled) if op.name in sampled for key in generator.table_keys(op)}
    keys = listed | sampled_keys
    derived_version, *derived = generator.build(generator.ops_deciding(keys))
    assert derived_version == version
    for committed, fresh in zip((functions, methods, some_arguments), derived, strict=True):
        for kind in ("value", "shape"):
            derived_entries = {name: reader for name, reader in fresh[kind].items() if name in keys}
            assert {name: reader for name, reader in committed[kind].items() if name in keys} == derived_entries
    # the aten spellings follow from the committed tables and aten's tags alone
    aten = generator.aten_spellings(functions, methods)
    assert aten == {"value": DATA_DEPENDENT_ATEN_CALLS, "shape": DYNAMIC_SHAPE_ATEN_CALLS}
