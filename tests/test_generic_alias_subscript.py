"""GM685: `NDArray[...]` (a `types.GenericAlias` read from a module) evaluated in traced code breaks
with GB4880 (missing_mp_subscript), measured with Dynamo beside what graphmend reports, for each
spelling and for the near misses that trace (typing constructs, PEP 585 builtins, strings, a
local's annotation)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.sample_modules import dynamo_breaks, graphmend_findings, line_of

HEAD = """import typing
from typing import List, Optional, cast

import numpy as np
import numpy.typing as npt
import torch
from numpy.typing import NDArray
from numpy.typing import NDArray as ND


def approximation():
    from numpy.typing import NDArray

    def step_sizes(x):
        return cast(NDArray[np.float64], x)

    return step_sizes


class Model(torch.nn.Module):
    def forward(self, x):
        x = x * 2
"""

BREAKING = [
    "y = cast(NDArray[np.float64], x)",
    "y = npt.NDArray[typing.Any]",
    "y = np.typing.NDArray[np.float32]",
    "y = cast(ND[np.float64], x)",
    "y = approximation()(x)",
]
TRACED = [
    'y = cast("NDArray[np.float64]", x)',
    "y: NDArray[np.float64] = x",
    "y = cast(List[int], x)",
    "y = cast(list[int], x)",
    "y = cast(Optional[npt.ArrayLike], x)",
    "y = cast(np.ndarray[typing.Any, np.dtype[np.float64]], x)",
    "y = NDArray",
]


def _module(statement: str) -> str:
    return HEAD + f"        {statement}\n        return x + 1\n"


@pytest.mark.parametrize("statement", BREAKING)
def test_a_subscripted_ndarray_alias_breaks_and_is_reported(statement: str, tmp_path: Path) -> None:
    source = _module(statement)
    breaks = dynamo_breaks(source, tmp_path)
    assert breaks and {gb for _, gb in breaks} == {"GB4880"}, breaks
    found = {(line, gb) for line, code, gb in graphmend_findings(source, tmp_path) if code == "GM685"}
    assert found == breaks
    if "approximation" in statement:  # reported inside the helper, where Dynamo breaks
        assert found == {(line_of(source, "return cast(NDArray"), "GB4880")}


@pytest.mark.parametrize("statement", TRACED)
def test_near_misses_trace_and_are_not_reported(statement: str, tmp_path: Path) -> None:
    source = _module(statement)
    assert dynamo_breaks(source, tmp_path) == set()
    assert graphmend_findings(source, tmp_path) == set()


def test_a_local_named_like_the_alias_is_not_it(tmp_path: Path) -> None:
    source = _module("NDArray = {np.float64: x}\n        y = NDArray[np.float64]")
    assert dynamo_breaks(source, tmp_path) == set()
    assert graphmend_findings(source, tmp_path) == set()
