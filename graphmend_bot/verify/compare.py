"""Compare the two arms' saved outputs, seed by seed, eager and compiled.

The children save each output flattened to `{path: tensor}` (a torch.save file of plain tensors)
plus `{path: repr}` for the non-tensor leaves, so loading needs no class from the code under test.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Comparison:
    equal: bool
    detail: str  # the first difference, or what was compared
    max_abs_diff: float | None  # over all compared tensors of equal shape


def compare_outputs(
    original: dict[str, Any], rewritten: dict[str, Any], tolerances: tuple[float, float] | None
) -> Comparison:
    """`tolerances` is (rtol, atol) for torch.testing.assert_close; None = its dtype defaults."""
    import torch

    if set(original) != set(rewritten):
        return Comparison(False, f"seeds differ: {sorted(original)} vs {sorted(rewritten)}", None)
    worst: float | None = None
    compared = 0
    for seed in sorted(original, key=int):
        for kind in ("eager", "compiled"):
            where = f"seed {seed}, {kind}"
            left, right = original[seed][kind], rewritten[seed][kind]
            if left["leaves"] != right["leaves"]:
                return Comparison(
                    False, f"{where}: non-tensor outputs differ: {_leaf_difference(left, right)}", worst
                )
            left_tensors = torch.load(left["tensors"], weights_only=True)
            right_tensors = torch.load(right["tensors"], weights_only=True)
            if list(left_tensors) != list(right_tensors):
                missing = sorted(set(left_tensors) ^ set(right_tensors))
                return Comparison(
                    False, f"{where}: the outputs have different structure ({', '.join(missing)})", worst
                )
            for key, expected in left_tensors.items():
                actual = right_tensors[key]
                difference = _max_abs_diff(torch, expected, actual)
                if difference is not None:
                    worst = difference if worst is None else max(worst, difference)
                problem = _mismatch(torch, actual, expected, tolerances)
                if problem is not None:
                    return Comparison(False, f"{where}, {key}: {problem}", worst)
                compared += 1
    return Comparison(True, f"{compared} tensors across {len(original)} seed(s) match", worst)


def _mismatch(torch: Any, actual: Any, expected: Any, tolerances: tuple[float, float] | None) -> str | None:
    options: dict[str, Any] = {"equal_nan": True}
    if tolerances is not None:
        options["rtol"], options["atol"] = tolerances
    try:
        torch.testing.assert_close(actual, expected, **options)
    except AssertionError as error:
        lines = [line.strip() for line in str(error).splitlines() if line.strip()]
        return "; ".join(lines[:4])
    return None


def _max_abs_diff(torch: Any, expected: Any, actual: Any) -> float | None:
    if expected.shape != actual.shape or expected.numel() == 0:
        return None
    if expected.is_complex() or actual.is_complex():
        delta = (expected.to(torch.complex128) - actual.to(torch.complex128)).abs()
        delta = delta[~torch.isnan(delta)]
        return float(delta.max()) if delta.numel() else 0.0
    if expected.is_floating_point() or actual.is_floating_point():
        delta = (expected.to(torch.float64) - actual.to(torch.float64)).abs()
        delta = delta[~torch.isnan(delta)]  # nan == nan is equal here
        return float(delta.max()) if delta.numel() else 0.0
    if expected.dtype == torch.bool or actual.dtype == torch.bool:
        return float((expected != actual).any())
    return float((expected.to(torch.int64) - actual.to(torch.int64)).abs().max())


def _leaf_difference(left: dict[str, Any], right: dict[str, Any]) -> str:
    for key in sorted(set(left["leaves"]) | set(right["leaves"])):
        a, b = left["leaves"].get(key, "<missing>"), right["leaves"].get(key, "<missing>")
        if a != b:
            return f"{key}: {a} vs {b}"
    return ""
