"""ruff-compatible JSON: code, message, filename, location, end_location, fix, url (+ extras).

Each finding is its record (finding_records.py); this module adds the list and the file errors.
"""

from __future__ import annotations

import json
import os
from typing import Any

from graphmend_bot.finding_records import finding_record
from graphmend_bot.findings import CheckResult


def render_json(result: CheckResult) -> str:
    payload: list[dict[str, Any]] = [finding_record(f) for f in result.findings]
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
