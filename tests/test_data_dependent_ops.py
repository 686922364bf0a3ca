"""The data-dependent operator table (vocabulary/data_dependent_ops.py, GM105), generated from
torch's operator database by benchmarks/data_dependent_ops.py, measured here with TorchDynamo:
every entry called between two tensor operations breaks with "Data dependent operator" (GB0033)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphmend_bot.vocabulary.data_dependent_ops import (
    DATA_DEPENDENT_FUNCTIONS,
    DATA_DEPENDENT_METHODS,
    TORCH_VERSION,
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
