"""ruff-compatible JSON: code, message, filename, location, end_location, fix, url (+ extras)."""

from __future__ import annotations

import json
import os
from typing import Any

from graphmend_bot.findings import CheckResult, Finding, Location
from graphmend_bot.rules import gb_url


def _loc(location: Location) -> dict[str, int]:
    return {"row": location.row, "column": location.column}


def finding_to_dict(finding: Finding) -> dict[str, Any]:
    fix = None
    if finding.fix is not None:
        fix = {
            "applicability": finding.fix.applicability,
            "message": finding.fix.message,
            "edits": [
                {"content": e.content, "location": _loc(e.location), "end_location": _loc(e.end_location)}
                for e in finding.fix.edits
            ],
        }
    return {
        "code": finding.code,
        "message": finding.message,
        "filename": os.path.abspath(finding.path),
        "location": _loc(finding.location),
        "end_location": _loc(finding.end_location),
        "fix": fix,
        "url": gb_url(finding.gb_id),
        "noqa_row": finding.location.row,
        "graph_break_id": finding.gb_id,
        "symbol": finding.symbol,
        "fingerprint": finding.fingerprint,
        "dynamo": _evidence(finding),
        "frequency": finding.frequency,
    }


def _evidence(finding: Finding) -> dict[str, str] | None:
    """What Dynamo said about the finding's lines in the tests (`--census`), or None."""
    evidence = finding.evidence
    if evidence is None:
        return None
    return {"status": evidence.status, "test": evidence.test, "reason": evidence.reason,
            "graph_break_id": evidence.gb_id}


def render_json(result: CheckResult) -> str:
    payload: list[dict[str, Any]] = [finding_to_dict(f) for f in result.findings]
    payload += [
        {
            "code": None,
            "message": error.message,
            "filename": os.path.abspath(error.path),
            "location": None,
            "end_location": None,
            "fix": None,
            "url": None,
            "error": True,
        }
        for error in result.errors
    ]
    return json.dumps(payload, indent=2) + "\n"
