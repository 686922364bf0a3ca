"""Pull requests from forks, in two workflows (the fork-safe pattern).

1. `on: pull_request` (read-only token, no secrets): the action analyses the pull request and
   writes a review bundle (`review-bundle` input) that the workflow uploads as an artifact.
2. `on: workflow_run` (write token, runs the base repository's workflow, never the fork's code):
   the action reads the downloaded bundle and posts the review.

The bundle comes from a run the fork controls, so it is untrusted data: it carries findings,
never code to post (fix edits are neither written nor read), it is validated field by field, its
findings must name rules that exist and files the pull request changes, it must name this
repository and the pull request that GitHub ties to the run, its head commit must be the one the
first workflow ran on (`workflow_run.head_sha`, set by GitHub), and its text is rendered as
literal text (report/untrusted_text.py: no mention, link, image or HTML). When the first workflow merged a census, findings carry
Dynamo's evidence (`dynamo`), validated the same way; a runtime finding (GM801, a break only Dynamo
saw) is accepted only with that evidence and a well-formed graph-break id of Dynamo's. Line placement and suggestions come from the file contents
fetched from GitHub at that commit, rewritten by trusted code (fork.py), never from the bundle.
The census's table of graph breaks added and removed (`breaks`, the comparison, never Markdown) is
validated as a census file is and rendered again by the posting side, labelled untrusted.
What the base's solve said (`base`: which findings the base had too, and those the change removed)
labels findings new or pre-existing and lists the removed ones; it hides nothing.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from graphmend_bot.census.compare import Comparison, comparison_data, parse_comparison
from graphmend_bot.census.record import CensusError
from graphmend_bot.finding_records import RecordError, error_record, finding_record, read_error, read_finding
from graphmend_bot.findings import BaseFindings, CheckResult, Evidence, FileError, Finding
from graphmend_bot.github.core.context import ActionContext
from graphmend_bot.github.core.outputs import Log
from graphmend_bot.json_files import JsonFileError, read_json_file
from graphmend_bot.rules import ALL_RULES_BY_CODE, RUNTIME_RULES, carried_gb_ids

VERSION = 1
MAX_FINDINGS = 5000
MAX_BYTES = 64 * 1024 * 1024  # a census's cap: the bundle carries one's comparison
MAX_TEXT = 1000
RUNTIME_CODES = frozenset(rule.code for rule in RUNTIME_RULES)
_GB_ID = re.compile(r"GB[0-9]{4}")  # not \d, which is any Unicode digit
_FINGERPRINT = re.compile(r"[0-9a-f]{16}")  # Finding.fingerprint


class BundleError(ValueError):
    """The bundle is missing, malformed or does not belong to this pull request."""


def write_bundle(ctx: ActionContext, number: int, head_sha: str, result: CheckResult, log: Log,
                 breaks: Comparison | None = None) -> None:
    """`breaks`: the census comparison behind the summary's table of graph breaks added and removed."""
    # Code is never shipped (fix=False): the posting side recomputes every rewrite.
    findings = [finding_record(f, filename=f.path, fix=False, lossless=True) for f in result.findings]
    bundle = {
        "version": VERSION, "repository": ctx.repository, "pull_request": number, "head_sha": head_sha,
        "files_checked": result.files_checked, "baselined": result.baselined, "findings": findings,
        "errors": [error_record(e) for e in result.errors],
        "breaks": comparison_data(breaks) if breaks is not None else None,
        "base": _base_data(result),
    }
    path = ctx.workspace / ctx.inputs.review_bundle
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(bundle, indent=1) + "\n", encoding="utf-8")
    except OSError as error:
        log.warning(f"cannot write the review bundle {ctx.inputs.review_bundle}: {error.strerror}")
        return
    log.info(f"review bundle for pull request #{number} written to {ctx.inputs.review_bundle}")


def _base_data(result: CheckResult) -> dict[str, Any] | None:
    """What the base's solve said (CheckResult.base): which of these findings the base had too (not
    the whole tree's, which may be many thousands), and the base's findings the change removed."""
    if result.base is None:
        return None
    had = sorted({f.fingerprint for f in result.findings} & result.base.fingerprints)
    removed = [finding_record(f, filename=f.path, fix=False, lossless=True) for f in result.base.removed]
    return {"fingerprints": had, "removed": removed[:MAX_FINDINGS]}


def _base(value: Any) -> BaseFindings | None:
    """The base's comparison a bundle carries: untrusted as all of it, it labels findings new or
    pre-existing and lists removed ones, validated as findings are; it hides no finding."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise BundleError("base must be an object")
    fingerprints, removed = value.get("fingerprints"), value.get("removed")
    if not isinstance(fingerprints, list) or len(fingerprints) > MAX_FINDINGS or not all(
            isinstance(item, str) and _FINGERPRINT.fullmatch(item) for item in fingerprints):
        raise BundleError(f"base.fingerprints must be a list of at most {MAX_FINDINGS} fingerprints")
    if not isinstance(removed, list) or len(removed) > MAX_FINDINGS:
        raise BundleError(f"base.removed must be a list of at most {MAX_FINDINGS}")
    return BaseFindings(frozenset(fingerprints), [_finding(item, i, "base.removed") for i, item in enumerate(removed)])


def _text(value: Any, name: str, limit: int = MAX_TEXT) -> str:
    if not isinstance(value, str):
        raise BundleError(f"{name} must be a string")
    return value[:limit]


def _int(value: Any, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 < value < 10_000_000:
        raise BundleError(f"{name} must be a positive whole number")
    return value


def _finding(item: Any, index: int, field_name: str = "findings") -> Finding:
    name = f"{field_name}[{index}]"
    try:
        # Fixes are not taken from a bundle: they are recomputed from GitHub's copy of the files.
        finding = read_finding(item, name, fix=False)
    except RecordError as error:
        raise BundleError(str(error)) from None
    rule = ALL_RULES_BY_CODE.get(finding.code)
    if rule is None:
        raise BundleError(f"{name} names no known rule")
    evidence = _evidence(finding.evidence, f"{name}.dynamo")
    if finding.code in RUNTIME_CODES:
        # A runtime finding is Dynamo's word from a census: its id is Dynamo's, and it must carry it.
        if finding.gb_id and not _GB_ID.fullmatch(finding.gb_id):
            raise BundleError(f"{name} names no known rule")
        if evidence is None or evidence.status != "confirmed" or evidence.gb_id != finding.gb_id:
            raise BundleError(f"{name} is a runtime finding without Dynamo's evidence")
    # A rule's finding carries one of its graph-break ids (Rule.gb_ids: the Python-bool one of
    # `if torch.equal(a, b)`, GM604's callee's own), or GM608's the break inside the dependency.
    elif finding.gb_id not in carried_gb_ids(rule):
        raise BundleError(f"{name} names no known rule")
    return replace(
        finding,
        message=finding.message[:MAX_TEXT],
        path=finding.path[:500],
        symbol=finding.symbol[:500],
        source_line=finding.source_line[:MAX_TEXT],
        breaks_at=finding.breaks_at[:500],
        evidence=evidence,
    )


def _error(item: dict[str, Any], index: int) -> FileError:
    try:
        error = read_error(item, f"errors[{index}]")
    except RecordError as problem:
        raise BundleError(str(problem)) from None
    return FileError(error.path[:500], error.message[:MAX_TEXT], error.severity)


def _evidence(evidence: Evidence | None, name: str) -> Evidence | None:
    """What a census said about the finding (the first workflow merged it): its id must look like
    Dynamo's, and its prose is shown in comments, so it is cut and made printable (the renderers
    escape it: report/untrusted_text.py)."""
    if evidence is None:
        return None
    if evidence.gb_id and not _GB_ID.fullmatch(evidence.gb_id):
        raise BundleError(f"{name}.graph_break_id must look like GB0170")
    return Evidence(evidence.status, _printable(evidence.test[:500]), _printable(evidence.reason[:500]), evidence.gb_id)


def _printable(text: str) -> str:
    return "".join(ch for ch in text if ch.isprintable())


@dataclass(frozen=True)
class Bundle:
    repository: str  # owner/name the first workflow ran in
    pull_request: int
    head_sha: str
    result: CheckResult  # findings without fixes
    breaks: Comparison | None = None  # the census comparison for the summary's table, if the run made one


def read_bundle(path: Path) -> Bundle:
    """The bundle file's claims, validated; BundleError when unusable."""
    try:
        data = read_json_file(path, MAX_BYTES)
    except JsonFileError as error:
        raise BundleError(f"no review bundle at {path.name}" if error.missing
                          else f"the review bundle {path.name} is {error}") from None
    if not isinstance(data, dict) or data.get("version") != VERSION:
        raise BundleError(f"{path.name} is not a version {VERSION} review bundle")
    repository = _text(data.get("repository"), "repository", 200)
    number = _int(data.get("pull_request"), "pull_request")
    head_sha = _text(data.get("head_sha"), "head_sha", 64)
    raw = data.get("findings")
    if not isinstance(raw, list) or len(raw) > MAX_FINDINGS:
        raise BundleError(f"findings must be a list of at most {MAX_FINDINGS}")
    findings = sorted((_finding(item, i) for i, item in enumerate(raw)), key=lambda f: f.sort_key)
    raw_errors = data.get("errors") or []
    if not isinstance(raw_errors, list) or len(raw_errors) > MAX_FINDINGS:
        raise BundleError(f"errors must be a list of at most {MAX_FINDINGS}")
    errors = [_error(e, i) for i, e in enumerate(raw_errors) if isinstance(e, dict)]
    checked, baselined = _count(data, "files_checked"), _count(data, "baselined")
    return Bundle(repository, number, head_sha, CheckResult(findings, errors, checked, baselined, _base(data.get("base"))),
                  _breaks(data.get("breaks")))


def _count(data: dict[str, Any], name: str) -> int:
    """A count the first workflow reported (0 when absent): the summary shows it, nothing else."""
    value = data.get(name, 0)
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 10_000_000:
        raise BundleError(f"{name} must be a whole number")
    return value


def _breaks(value: Any) -> Comparison | None:
    """The census comparison, validated as a census file is (compare.parse_comparison); its text is
    rendered by report/break_table.py, which escapes it as any census text."""
    if value is None:
        return None
    try:
        return parse_comparison(value)
    except CensusError as error:
        raise BundleError(f"breaks: {error}") from None
