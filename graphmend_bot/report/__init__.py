"""Renderers: findings in, text out. None of them analyses anything."""

from __future__ import annotations

from collections.abc import Callable

from graphmend_bot.findings import CheckResult
from graphmend_bot.report.github import render_github
from graphmend_bot.report.json_report import render_json
from graphmend_bot.report.sarif import render_sarif_text
from graphmend_bot.report.text import render_text

RENDERERS: dict[str, Callable[[CheckResult], str]] = {
    "text": render_text,
    "json": render_json,
    "github": render_github,
    "sarif": render_sarif_text,
}
