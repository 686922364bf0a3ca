"""finding_records.py: the one Finding serialiser and strict reader behind the JSON report, the
shard results and the review bundle."""

from __future__ import annotations

import json
from typing import Any

import pytest

from graphmend_bot.finding_records import RecordError, finding_record, read_finding
from graphmend_bot.findings import Edit, Evidence, Finding, Fix, Location


def _finding() -> Finding:
    fix = Fix.of("use torch.where", (Edit("y = torch.where(c, a, b)", Location(3, 5), Location(6, 1)),),
                 ("c is 0-d",))
    return Finding("GM101", "`if` condition depends on tensor values", "pkg/m.py", Location(3, 5), Location(3, 20),
                   "GB0170", symbol="pkg.m.f", source_line="    if c > 0:", occurrence=2, fix=fix,
                   evidence=Evidence("confirmed", "tests/test_m.py::test_f", "data-dependent branch", "GB0170"))


def test_a_lossless_record_reads_back_to_the_same_finding() -> None:
    finding = _finding()
    record = json.loads(json.dumps(finding_record(finding, filename=finding.path, lossless=True)))
    read = read_finding(record, "findings[0]")
    assert read == finding and read.fingerprint == finding.fingerprint
    assert read.evidence == finding.evidence
    assert read.fix is not None and finding.fix is not None
    assert (read.fix.applicability, read.fix.message, read.fix.edits) == \
        (finding.fix.applicability, finding.fix.message, finding.fix.edits)


def test_the_report_record_is_ruffs_shape_with_an_absolute_filename() -> None:
    record = finding_record(_finding())
    assert list(record)[:6] == ["code", "message", "filename", "location", "end_location", "fix"]
    assert record["filename"].endswith("/pkg/m.py") and record["filename"].startswith("/")
    assert "source_line" not in record and "occurrence" not in record
    assert "fix" not in finding_record(_finding(), fix=False)


def _broken(**change: Any) -> dict[str, Any]:
    record = finding_record(_finding(), filename="pkg/m.py", lossless=True)
    record.update(change)
    return record


@pytest.mark.parametrize(
    ("record", "field"),
    [
        ("not an object", "findings[0] must be an object"),
        (_broken(code=7), "findings[0].code must be a string"),
        (_broken(location={"row": 0, "column": 1}), "findings[0].location.row"),
        (_broken(end_location={"row": True, "column": 1}), "findings[0].end_location.row"),
        (_broken(occurrence=-1), "findings[0].occurrence"),
        (_broken(fix={"applicability": "always", "message": "m", "edits": []}), "findings[0].fix.applicability"),
        (_broken(fix={"applicability": "safe", "message": "m", "edits": [{"content": 1}]}),
         "findings[0].fix.edits[0].content"),
        (_broken(dynamo={"status": "trust me", "test": "", "reason": "", "graph_break_id": ""}),
         "findings[0].dynamo.status"),
    ],
)
def test_a_malformed_record_is_refused_naming_the_field(record: Any, field: str) -> None:
    with pytest.raises(RecordError, match=field.replace("[", r"\[").replace("]", r"\]")):
        read_finding(record, "findings[0]")


def test_a_reader_that_takes_no_fix_or_evidence_drops_them() -> None:
    read = read_finding(_broken(), "findings[0]", fix=False, evidence=False)
    assert read.fix is None and read.evidence is None
    with pytest.raises(RecordError, match="fix is malformed"):
        read_finding(_broken(fix="rm -rf /"), "findings[0]", fix=False)
