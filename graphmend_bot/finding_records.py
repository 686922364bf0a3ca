"""Finding <-> JSON record: the one serialiser and the one strict reader of findings.

The record is ruff's JSON shape (`check --output-format json`); a lossless record adds the two
fields the fingerprint needs (`source_line`, `occurrence`) and what fixes attached later need
(`unproven_parameters`). The JSON report, the shard results and
the review bundle are envelopes around these records. Reading validates every field's type and
range and names the field that is wrong: shard results come from other jobs, and a review bundle
from a run that a fork controls.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from graphmend_bot.findings import SEVERITIES, Edit, Evidence, FileError, Finding, Fix, Location
from graphmend_bot.rules import gb_url

MAX_ROW = 10_000_000
MAX_OCCURRENCE = 1_000_000
APPLICABILITIES = ("safe", "unsafe")
EFFECTS = ("removes", "moves")
EVIDENCE_STATUSES = ("confirmed", "ran-without-break")
FREQUENCIES = ("every-call", "rare-branch")


class RecordError(ValueError):
    """A record that is not a well-formed finding; the message names the field."""


def location_record(location: Location) -> dict[str, int]:
    return {"row": location.row, "column": location.column}


def fix_record(fix: Fix) -> dict[str, Any]:
    return {
        "applicability": fix.applicability,
        "message": fix.message,
        "effect": fix.effect,
        "edits": [
            {"content": e.content, "location": location_record(e.location), "end_location": location_record(e.end_location)}
            for e in fix.edits
        ],
    }


def evidence_record(evidence: Evidence | None) -> dict[str, str] | None:
    """What Dynamo said about the finding's lines in the tests (`--census`), or None."""
    if evidence is None:
        return None
    return {"status": evidence.status, "test": evidence.test, "reason": evidence.reason,
            "graph_break_id": evidence.gb_id}


def finding_record(finding: Finding, *, filename: str | None = None, fix: bool = True,
                   lossless: bool = False) -> dict[str, Any]:
    """The finding as JSON. `filename`: the path to write (the report's is absolute); `fix=False`
    leaves the fix out (a bundle never ships code); `lossless` adds what the fingerprint needs."""
    record: dict[str, Any] = {
        "code": finding.code,
        "message": finding.message,
        "filename": os.path.abspath(finding.path) if filename is None else filename,
        "location": location_record(finding.location),
        "end_location": location_record(finding.end_location),
    }
    if fix:
        record["fix"] = None if finding.fix is None else fix_record(finding.fix)
    record.update({
        "url": gb_url(finding.gb_id),
        "noqa_row": finding.location.row,
        "graph_break_id": finding.gb_id,
        "symbol": finding.symbol,
        "fingerprint": finding.fingerprint,
        "dynamo": evidence_record(finding.evidence),
        "frequency": finding.frequency,
        "reached_through": finding.reached_through,
    })
    if finding.breaks_at:
        record["breaks_at"] = finding.breaks_at
    if lossless:
        record.update(source_line=finding.source_line, occurrence=finding.occurrence,
                      unproven_parameters=[list(pair) for pair in finding.unproven_parameters])
    return record


def error_record(error: FileError) -> dict[str, str]:
    return {"path": error.path, "message": error.message, "severity": error.severity}


def _object(value: Any, name: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise RecordError(f"{name} must be an object")
    return value


def _text(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise RecordError(f"{name} must be a string")
    return value


def _whole(value: Any, name: str, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value < high:
        raise RecordError(f"{name} must be a whole number from {low} to {high - 1}")
    return value


def _one_of(value: Any, name: str, options: tuple[str, ...]) -> Any:
    if value not in options:
        raise RecordError(f"{name} must be one of {', '.join(options)}")
    return value


def read_unproven(value: Any, name: str) -> tuple[tuple[str, str], ...]:
    """[[parameter, why], ...]: Finding.unproven_parameters."""
    if not isinstance(value, list) or not all(isinstance(pair, list) and len(pair) == 2 for pair in value):
        raise RecordError(f"{name} must be a list of [parameter, reason] pairs")
    return tuple((_text(parameter, name), _text(why, name)) for parameter, why in value)


def read_location(value: Any, name: str) -> Location:
    data = _object(value, name)
    return Location(_whole(data.get("row"), f"{name}.row", 1, MAX_ROW),
                    _whole(data.get("column"), f"{name}.column", 1, MAX_ROW))


def read_fix(value: Any, name: str) -> Fix | None:
    if value is None:
        return None
    data = _object(value, name)
    applicability = _one_of(data.get("applicability"), f"{name}.applicability", APPLICABILITIES)
    raw_edits = data.get("edits")
    if not isinstance(raw_edits, list):
        raise RecordError(f"{name}.edits must be a list")
    edits = []
    for index, raw in enumerate(raw_edits):
        where = f"{name}.edits[{index}]"
        edit = _object(raw, where)
        edits.append(Edit(_text(edit.get("content"), f"{where}.content"),
                          read_location(edit.get("location"), f"{where}.location"),
                          read_location(edit.get("end_location"), f"{where}.end_location")))
    # A record from before `effect` existed: every fix then counted as a removal.
    effect = _one_of(data.get("effect", "removes"), f"{name}.effect", EFFECTS)
    # The rendered message is all a record keeps of the title and assumptions.
    return Fix(applicability, _text(data.get("message"), f"{name}.message"), tuple(edits), effect=effect)


def read_evidence(value: Any, name: str) -> Evidence | None:
    if value is None:
        return None
    data = _object(value, name)
    return Evidence(_one_of(data.get("status"), f"{name}.status", EVIDENCE_STATUSES), _text(data.get("test"), f"{name}.test"), _text(data.get("reason"), f"{name}.reason"),
                    _text(data.get("graph_break_id"), f"{name}.graph_break_id"))


def read_finding(value: Any, name: str, *, fix: bool = True, evidence: bool = True) -> Finding:
    """The finding in a record, every field checked. `fix=False`: the fix is checked for shape but
    dropped (a bundle's fixes are recomputed from trusted copies); `evidence=False`: Dynamo's word
    is not taken from this record."""
    data = _object(value, name)
    raw_fix = data.get("fix")
    if not fix and raw_fix is not None and (not isinstance(raw_fix, dict) or raw_fix.get("applicability") not in
                                            APPLICABILITIES):
        raise RecordError(f"{name}.fix is malformed")  # a record this malformed is not trusted for anything
    return Finding(
        code=_text(data.get("code"), f"{name}.code"),
        message=_text(data.get("message"), f"{name}.message"),
        path=_text(data.get("filename"), f"{name}.filename"),
        location=read_location(data.get("location"), f"{name}.location"),
        end_location=read_location(data.get("end_location"), f"{name}.end_location"),
        gb_id=_text(data.get("graph_break_id"), f"{name}.graph_break_id"),
        symbol=_text(data.get("symbol", ""), f"{name}.symbol"),
        source_line=_text(data.get("source_line", ""), f"{name}.source_line"),
        occurrence=_whole(data.get("occurrence", 0), f"{name}.occurrence", 0, MAX_OCCURRENCE),
        fix=read_fix(raw_fix, f"{name}.fix") if fix else None,
        evidence=read_evidence(data.get("dynamo"), f"{name}.dynamo") if evidence else None,
        frequency=_one_of(data.get("frequency", "every-call"), f"{name}.frequency", FREQUENCIES),
        reached_through=_text(data.get("reached_through", ""), f"{name}.reached_through"),
        unproven_parameters=read_unproven(data.get("unproven_parameters", []), f"{name}.unproven_parameters"),
        breaks_at=_text(data.get("breaks_at", ""), f"{name}.breaks_at"),
    )


def read_error(value: Any, name: str) -> FileError:
    data = _object(value, name)
    return FileError(_text(data.get("path"), f"{name}.path"), _text(data.get("message"), f"{name}.message"),
                     _one_of(data.get("severity", "notice"), f"{name}.severity", SEVERITIES))
