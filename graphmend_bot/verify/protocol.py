"""The parent <-> child protocol of `graphmend verify`: one request in, one result out, as JSON files.

The runner writes a `ChildRequest`; the child (child.py, in a fresh interpreter) reads it and
writes an `ArmResult`. Both directions are parsed strictly: an unknown key, a missing key or a
value of the wrong type is a `ProtocolError` naming it, never silently dropped or defaulted. The
result is written by a process that ran the pull request's model, so the parent treats it as
untrusted: whatever it says, it is checked before a field is used, and a bad one is an `error`
verdict for that entry point while the others are still measured.

Standard library only: the child loads this file by path before the code under test is
importable, and must import nothing of graphmend's (the code under test may have its own
`graphmend_bot`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, TypedDict

# What each seed of an arm may save (compare.py reads them): outputs and gradients, eagerly and
# compiled; the original arm also its float64 reference.
SAVED_KINDS = frozenset({"eager", "compiled", "grad-eager", "grad-compiled", "reference", "grad-reference"})


class ProtocolError(ValueError):
    """A request or result that does not have the protocol's shape; the message says where."""


class SavedOutput(TypedDict):
    tensors: str  # a torch.save file of {path: tensor}
    leaves: dict[str, str]  # {path: repr} of the non-tensor leaves


class BreakReason(TypedDict):
    reason: str
    location: str  # "path:line" under the arm's root, or "" when Dynamo gave no frame


# {seed: {kind: saved output}}, kinds from SAVED_KINDS
SavedOutputs = dict[str, dict[str, SavedOutput]]

Check = Callable[[Any], bool]


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _count(value: Any) -> bool:
    return _integer(value) and value >= 0


def _seconds(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value) and value >= 0


def _text(value: Any) -> bool:
    return isinstance(value, str)


def _flag(value: Any) -> bool:
    return isinstance(value, bool)


def _optional(check: Check) -> Check:
    return lambda value: value is None or check(value)


def _lines_by_file(value: Any) -> bool:
    return isinstance(value, dict) and all(
        isinstance(path, str) and isinstance(lines, list) and all(_count(n) for n in lines)
        for path, lines in value.items()
    )


def _seeds(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(_integer(seed) for seed in value)


def _break_reasons(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(item, dict) and set(item) == {"reason", "location"} and all(map(_text, item.values()))
        for item in value
    )


def _saved_outputs(value: Any) -> bool:
    return isinstance(value, dict) and all(
        isinstance(seed, str) and isinstance(kinds, dict) and all(
            kind in SAVED_KINDS and isinstance(saved, dict) and set(saved) == {"tensors", "leaves"}
            and _text(saved["tensors"]) and isinstance(saved["leaves"], dict)
            and all(_text(key) and _text(leaf) for key, leaf in saved["leaves"].items())
            for kind, saved in kinds.items()
        )
        for seed, kinds in value.items()
    )  # fmt: skip


def _checked(data: Any, what: str, expected: Mapping[str, tuple[Check, str]]) -> dict[str, Any]:
    """`data` as a dict with exactly the keys of `expected`, each value passing its check; else a
    ProtocolError that names the first problem."""
    if not isinstance(data, dict):
        raise ProtocolError(f"{what}: expected a JSON object, got {type(data).__name__}")
    unknown = sorted(str(key) for key in data if key not in expected)
    if unknown:
        raise ProtocolError(f"{what}: unknown key(s) {', '.join(map(repr, unknown))}")
    missing = [key for key in expected if key not in data]
    if missing:
        raise ProtocolError(f"{what}: missing key(s) {', '.join(map(repr, missing))}")
    for key, value in data.items():
        check, description = expected[key]
        if not check(value):
            raise ProtocolError(f"{what}: `{key}` must be {description}, got {_shown(value)}")
    return dict(data)


def _shown(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 60 else text[:57] + '...'}"


@dataclass(frozen=True)
class ChildRequest:
    """What one child measures: one entry point of one arm."""

    root: str  # the arm's root: the child imports the factory from here
    factory: str  # "package.module:callable"
    device: str  # auto, cpu or cuda
    dtype: str | None  # a torch dtype name, or None to keep what the factory built
    seeds: tuple[int, ...]
    backend: str
    mode: str | None
    warmup: int
    repeat: int
    no_grad: bool
    backward: bool
    reference: bool  # also compute the float64 reference (the original arm)
    coverage: dict[str, list[int]]  # {path: [line, ...]} to record, relative to root
    output_dir: str  # where the saved outputs go

    def to_json(self) -> dict[str, Any]:
        return {item.name: getattr(self, item.name) for item in fields(self)} | {"seeds": list(self.seeds)}

    @classmethod
    def from_json(cls, data: Any) -> ChildRequest:
        values = _checked(data, "the verify request", REQUEST_FIELDS)
        return cls(**(values | {"seeds": tuple(values["seeds"])}))


REQUEST_FIELDS: dict[str, tuple[Check, str]] = {
    "root": (_text, "a path"),
    "factory": (_text, "'module:callable'"),
    "device": (lambda v: v in ("auto", "cpu", "cuda"), "auto, cpu or cuda"),
    "dtype": (_optional(_text), "a dtype name or null"),
    "seeds": (_seeds, "a non-empty list of integers"),
    "backend": (_text, "a backend name"),
    "mode": (_optional(_text), "a mode name or null"),
    "warmup": (_count, "an integer >= 0"),
    "repeat": (lambda v: _count(v) and v >= 1, "an integer >= 1"),
    "no_grad": (_flag, "true or false"),
    "backward": (_flag, "true or false"),
    "reference": (_flag, "true or false"),
    "coverage": (_lines_by_file, "{path: [line, ...]}"),
    "output_dir": (_text, "a path"),
}


@dataclass
class ArmResult:
    """One arm of one entry point, measured (ok) or not (error_kind and error say why)."""

    ok: bool
    error: str | None = None
    error_kind: str | None = None
    device: str | None = None
    torch_version: str | None = None
    graph_count: int | None = None
    graph_break_count: int | None = None
    break_reasons: list[BreakReason] = field(default_factory=list)
    cold_start_s: float | None = None
    steady_state_s: float | None = None  # the median of `repeat` calls
    steady_state_min_s: float | None = None  # their spread: "within noise" when the arms' overlap
    steady_state_max_s: float | None = None
    cuda_graph_launches: int | None = None
    cuda_kernel_launches: int | None = None
    outputs: SavedOutputs = field(default_factory=dict)
    reference_error: str | None = None  # why the float64 reference could not be computed
    covered: dict[str, list[int]] = field(default_factory=dict)  # rewritten lines that ran

    @classmethod
    def failed(cls, kind: str, message: str) -> ArmResult:
        return cls(ok=False, error_kind=kind, error=message)

    def to_json(self) -> dict[str, Any]:
        """What the child writes: a failure carries only its kind and message."""
        if not self.ok:
            return {"ok": False, "error_kind": self.error_kind, "error": self.error}
        return {name: getattr(self, name) for name in ("ok", *MEASURED_FIELDS)}

    @classmethod
    def from_child(cls, data: Any, output_dir: str | None = None) -> ArmResult:
        """Parse what a child wrote, strictly. With `output_dir`, every saved output must lie in it:
        the parent loads those files, and the child ran code it does not trust."""
        if not isinstance(data, dict) or not isinstance(data.get("ok"), bool):
            raise ProtocolError("the measurement result: expected an object with a boolean `ok`")
        if not data["ok"]:
            values = _checked(data, "the failed measurement result", {"ok": OK_FIELD, **FAILURE_FIELDS})
            return cls(**values)
        values = _checked(data, "the measurement result", {"ok": OK_FIELD, **MEASURED_FIELDS})
        if output_dir is not None:
            _check_saved_paths(values["outputs"], output_dir)
        return cls(**values)


OK_FIELD: tuple[Check, str] = (_flag, "true or false")
FAILURE_FIELDS: dict[str, tuple[Check, str]] = {
    "error_kind": (_text, "an error kind"),
    "error": (_text, "a message"),
}
MEASURED_FIELDS: dict[str, tuple[Check, str]] = {
    "device": (_text, "a device name"),
    "torch_version": (_text, "a version"),
    "graph_count": (_count, "an integer >= 0"),
    # explain() reports graph_count - 1 breaks, so -1 when it captured no graph at all.
    "graph_break_count": (lambda v: _integer(v) and v >= -1, "an integer >= -1"),
    "break_reasons": (_break_reasons, "a list of {reason, location}"),
    "cold_start_s": (_seconds, "a finite number of seconds"),
    "steady_state_s": (_seconds, "a finite number of seconds"),
    "steady_state_min_s": (_optional(_seconds), "a finite number of seconds or null"),
    "steady_state_max_s": (_optional(_seconds), "a finite number of seconds or null"),
    "cuda_graph_launches": (_optional(_count), "an integer >= 0 or null"),
    "cuda_kernel_launches": (_optional(_count), "an integer >= 0 or null"),
    "outputs": (_saved_outputs, "{seed: {kind: {tensors, leaves}}}"),
    "reference_error": (_optional(_text), "a message or null"),
    "covered": (_lines_by_file, "{path: [line, ...]}"),
}


def _check_saved_paths(outputs: SavedOutputs, output_dir: str) -> None:
    folder = os.path.realpath(output_dir)
    for seed, kinds in outputs.items():
        for kind, saved in kinds.items():
            if os.path.dirname(os.path.realpath(saved["tensors"])) != folder:
                raise ProtocolError(
                    f"the measurement result: seed {seed}, {kind}: `tensors` {saved['tensors']!r} "
                    "is not in the arm's output folder"
                )
