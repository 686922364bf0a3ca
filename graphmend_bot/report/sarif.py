"""SARIF 2.1.0 for GitHub code scanning: stable rule ids, partial fingerprints per finding."""

from __future__ import annotations

import json
from pathlib import PurePath
from typing import Any

from graphmend_bot import __version__
from graphmend_bot.findings import CheckResult
from graphmend_bot.rules import RULES, RUNTIME_RULES

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def render_sarif(result: CheckResult) -> dict[str, Any]:
    # The runtime rules (GM8xx, from a census) are described only when one of their findings is there.
    present = {finding.code for finding in result.findings}
    described = (*RULES, *(rule for rule in RUNTIME_RULES if rule.code in present))
    rules = [
        {
            "id": rule.code,
            "name": rule.name,
            "shortDescription": {"text": rule.summary.split(". ")[0].rstrip(".")},
            "fullDescription": {"text": rule.summary},
            "help": {"text": rule.documentation(), "markdown": rule.documentation()},
            "helpUri": rule.url,
            "defaultConfiguration": {"level": "warning"},
            "properties": {"tags": ["torch.compile", "graph-break", rule.family], "graph_break_id": rule.gb_id},
        }
        for rule in described
    ]
    index = {rule.code: i for i, rule in enumerate(described)}
    results = []
    for finding in result.findings:
        region: dict[str, int] = {
            "startLine": finding.location.row,
            "startColumn": finding.location.column,
            "endLine": finding.end_location.row,
            "endColumn": max(finding.end_location.column, 1),
        }
        region_snippet = {"snippet": {"text": finding.source_line}} if finding.source_line else {}
        results.append(
            {
                "ruleId": finding.code,
                "ruleIndex": index[finding.code],
                "level": "warning",
                "message": {"text": f"{finding.message} (PyTorch graph break {finding.gb_id})"
                            + (f"; {finding.evidence.describe()}" if finding.evidence else "")},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": {"uri": PurePath(finding.path).as_posix(), "uriBaseId": "%SRCROOT%"},
                            "region": {**region, **region_snippet},
                        }
                    }
                ],
                "partialFingerprints": {"graphmendFingerprint/v1": finding.fingerprint},
                "properties": {"frequency": finding.frequency},
            }
        )
    notifications = [
        {
            "level": error.label,
            "message": {"text": error.message},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": PurePath(error.path).as_posix()}}}],
        }
        for error in result.errors
    ]
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "graphmend",
                        "version": __version__,
                        "informationUri": "https://github.com/graphmend/action",
                        "rules": rules,
                    }
                },
                "results": results,
                "invocations": [
                    {"executionSuccessful": True, "toolExecutionNotifications": notifications}
                ],
            }
        ],
    }


def render_sarif_text(result: CheckResult) -> str:
    return json.dumps(render_sarif(result), indent=2) + "\n"
