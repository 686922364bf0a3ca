"""Pull requests from forks, in two workflows (the fork-safe pattern).

1. `on: pull_request` (read-only token, no secrets): the action analyses the pull request and
   writes a review bundle (`review-bundle` input) that the workflow uploads as an artifact.
2. `on: workflow_run` (write token, runs the base repository's workflow, never the fork's code):
   the action reads the downloaded bundle and posts the review.

The bundle comes from a run the fork controls, so it is untrusted data: it carries findings,
never code to post (fix edits are neither written nor read), it is validated field by field, its
findings must name rules that exist and files the pull request changes, it must name this
repository and the pull request that GitHub ties to the run, its head commit must be the one the
first workflow ran on (`workflow_run.head_sha`, set by GitHub), and its text is rendered with
mentions and HTML comments neutralised. When the first workflow merged a census, findings carry
Dynamo's evidence (`dynamo`), validated the same way; a runtime finding (GM801, a break only Dynamo
saw) is accepted only with that evidence and a well-formed graph-break id of Dynamo's. Line placement and suggestions come from the file contents
fetched from GitHub at that commit, rewritten by trusted code (fork.py), never from the bundle.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphmend_bot.findings import CheckResult, Evidence, FileError, Finding, Location
from graphmend_bot.github.core.context import ActionContext
from graphmend_bot.github.core.outputs import Log
from graphmend_bot.report.json_report import finding_to_dict
from graphmend_bot.rules import ALL_RULES_BY_CODE, RUNTIME_RULES

VERSION = 1
MAX_FINDINGS = 5000
MAX_TEXT = 1000
RUNTIME_CODES = frozenset(rule.code for rule in RUNTIME_RULES)
_GB_ID = re.compile(r"GB\d{4}")
EVIDENCE_STATUSES = ("confirmed", "ran-without-break")


class BundleError(ValueError):
    """The bundle is missing, malformed or does not belong to this pull request."""


def write_bundle(ctx: ActionContext, number: int, head_sha: str, result: CheckResult, log: Log) -> None:
    findings = []
    for finding in result.findings:
        item = finding_to_dict(finding)
        item.pop("fix", None)  # code is never shipped: the posting side recomputes every rewrite
        item.update(filename=finding.path, source_line=finding.source_line, occurrence=finding.occurrence)
        findings.append(item)
    bundle = {
        "version": VERSION, "repository": ctx.repository, "pull_request": number, "head_sha": head_sha,
        "files_checked": result.files_checked, "findings": findings,
        "errors": [{"path": e.path, "message": e.message} for e in result.errors],
    }
    path = ctx.workspace / ctx.inputs.review_bundle
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(bundle, indent=1) + "\n", encoding="utf-8")
    except OSError as error:
        log.warning(f"cannot write the review bundle {ctx.inputs.review_bundle}: {error.strerror}")
        return
    log.info(f"review bundle for pull request #{number} written to {ctx.inputs.review_bundle}")


def _text(value: Any, name: str, limit: int = MAX_TEXT) -> str:
    if not isinstance(value, str):
        raise BundleError(f"{name} must be a string")
    return value[:limit]


def _int(value: Any, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 < value < 10_000_000:
        raise BundleError(f"{name} must be a positive whole number")
    return value


def _occurrence(value: Any, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 1_000_000:
        raise BundleError(f"{name} must be a whole number")
    return value


def _location(value: Any, name: str) -> Location:
    if not isinstance(value, dict):
        raise BundleError(f"{name} must be an object")
    return Location(_int(value.get("row"), f"{name}.row"), _int(value.get("column"), f"{name}.column"))


def neutralise(text: str) -> str:
    """Untrusted prose for a comment: no @mentions, no hidden HTML comments."""
    return text.replace("@", "@\u200b").replace("<!--", "&lt;!--")


def _finding(item: Any, index: int) -> Finding:
    name = f"findings[{index}]"
    if not isinstance(item, dict):
        raise BundleError(f"{name} must be an object")
    code = _text(item.get("code"), f"{name}.code", 10)
    rule = ALL_RULES_BY_CODE.get(code)
    if rule is None:
        raise BundleError(f"{name} names no known rule")
    evidence = _evidence(item.get("dynamo"), f"{name}.dynamo")
    if code in RUNTIME_CODES:
        # A runtime finding is Dynamo's word from a census: its id is Dynamo's, and it must carry it.
        gb_id = item.get("graph_break_id")
        if not isinstance(gb_id, str) or (gb_id and not _GB_ID.fullmatch(gb_id)):
            raise BundleError(f"{name} names no known rule")
        if evidence is None or evidence.status != "confirmed" or evidence.gb_id != gb_id:
            raise BundleError(f"{name} is a runtime finding without Dynamo's evidence")
    elif item.get("graph_break_id") != rule.gb_id:
        raise BundleError(f"{name} names no known rule")
    else:
        gb_id = rule.gb_id
    raw_fix = item.get("fix")
    if raw_fix is not None and (not isinstance(raw_fix, dict) or raw_fix.get("applicability") not in ("safe", "unsafe")):
        raise BundleError(f"{name}.fix is malformed")  # a bundle this malformed is not trusted for anything
    return Finding(
        code=code,
        message=neutralise(_text(item.get("message"), f"{name}.message")),
        path=_text(item.get("filename"), f"{name}.filename", 500),
        location=_location(item.get("location"), f"{name}.location"),
        end_location=_location(item.get("end_location"), f"{name}.end_location"),
        gb_id=gb_id,
        symbol=_text(item.get("symbol", ""), f"{name}.symbol", 500),
        source_line=_text(item.get("source_line", ""), f"{name}.source_line"),
        occurrence=_occurrence(item.get("occurrence", 0), f"{name}.occurrence"),
        fix=None,  # whatever the bundle says: fixes are recomputed from GitHub's copy of the files
        evidence=evidence,
    )


def _evidence(value: Any, name: str) -> Evidence | None:
    """What a census said about the finding (the first workflow merged it), validated like the rest."""
    if value is None:
        return None
    if not isinstance(value, dict) or value.get("status") not in EVIDENCE_STATUSES:
        raise BundleError(f"{name} is malformed")
    gb_id = _text(value.get("graph_break_id", ""), f"{name}.graph_break_id", 10)
    if gb_id and not _GB_ID.fullmatch(gb_id):
        raise BundleError(f"{name}.graph_break_id must look like GB0170")
    return Evidence(value["status"], neutralise(_printable(_text(value.get("test", ""), f"{name}.test", 500))),
                    neutralise(_printable(_text(value.get("reason", ""), f"{name}.reason", 500))), gb_id)


def _printable(text: str) -> str:
    return "".join(ch for ch in text if ch.isprintable())


@dataclass(frozen=True)
class Bundle:
    repository: str  # owner/name the first workflow ran in
    pull_request: int
    head_sha: str
    result: CheckResult  # findings without fixes


def read_bundle(path: Path) -> Bundle:
    """The bundle file's claims, validated; BundleError when unusable."""
    try:
        data = json.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        raise BundleError(f"no review bundle at {path.name}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise BundleError(f"the review bundle {path.name} is unreadable: {error}") from None
    if not isinstance(data, dict) or data.get("version") != VERSION:
        raise BundleError(f"{path.name} is not a version {VERSION} review bundle")
    repository = _text(data.get("repository"), "repository", 200)
    number = _int(data.get("pull_request"), "pull_request")
    head_sha = _text(data.get("head_sha"), "head_sha", 64)
    raw = data.get("findings")
    if not isinstance(raw, list) or len(raw) > MAX_FINDINGS:
        raise BundleError(f"findings must be a list of at most {MAX_FINDINGS}")
    findings = sorted((_finding(item, i) for i, item in enumerate(raw)), key=lambda f: f.sort_key)
    errors = [FileError(neutralise(_text(e.get("path"), "errors.path", 500)),
                        neutralise(_text(e.get("message"), "errors.message")))
              for e in data.get("errors") or [] if isinstance(e, dict)]
    checked = data.get("files_checked")
    return Bundle(repository, number, head_sha, CheckResult(findings, errors, checked if isinstance(checked, int) else 0))
