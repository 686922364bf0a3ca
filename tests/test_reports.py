"""Renderers: every field a consumer (ruff-compatible tools, GitHub, code scanning) reads."""

import json

from graphmend_bot.findings import CheckResult, Edit, FileError, Finding, Fix, Location
from graphmend_bot.report import RENDERERS
from graphmend_bot.report.github import annotation
from graphmend_bot.report.sarif import render_sarif
from graphmend_bot.rules import RULES, RULES_BY_CODE, gb_url, select_codes


def make_finding(**overrides):
    values = dict(
        code="GM301",
        message="`.item()` copies a tensor value to Python",
        path="pkg/model.py",
        location=Location(12, 9),
        end_location=Location(12, 23),
        gb_id="GB0124",
        symbol="pkg.model.M.forward",
        source_line="        n = x.sum().item()",
    )
    values.update(overrides)
    return Finding(**values)


def test_every_rule_is_documented_and_linked():
    assert len({rule.code for rule in RULES}) == len(RULES)
    for rule in RULES:
        assert rule.code.startswith("GM") and len(rule.code) == 5
        assert rule.url == gb_url(rule.gb_id)
        # a registry id, or the compile reason Dynamo records instead (GM660's step_unsupported)
        assert rule.gb_id.startswith("GB") if rule.gb_id else rule.break_reason
        for text in (rule.summary, rule.why, rule.example, rule.use_instead, rule.fix_safety):
            assert text.strip()


def test_select_codes_by_prefix():
    assert select_codes(["GM3"], None) == {"GM301", "GM302", "GM303", "GM304", "GM305"}
    not_traceable = {rule.code for rule in RULES if rule.family == "not traceable"}
    assert select_codes(None, ["GM1", "GM2", "GM3", "GM4", "GM5", "GM7"]) == not_traceable


def test_text_shows_caret_under_the_span_and_the_fix():
    fix = Fix("safe", "Keep the value a tensor", (Edit("x.sum()", Location(12, 13), Location(12, 27)),))
    text = RENDERERS["text"](CheckResult([make_finding(fix=fix)], [], 1))
    lines = text.splitlines()
    assert lines[0] == "pkg/model.py:12:9: GM301 `.item()` copies a tensor value to Python [GB0124]"
    assert lines[2] == "12 |         n = x.sum().item()"
    assert lines[3] == "   |         ^^^^^^^^^^^^^^"
    assert "= fix (safe): Keep the value a tensor" in text
    assert text.rstrip().endswith("Found 1 graph break(s) in 1 file(s). 1 fixable with `--fix`.")


def test_fingerprint_is_stable_and_distinguishes_occurrences():
    a, b = make_finding(), make_finding(location=Location(40, 9), end_location=Location(40, 23))
    assert a.fingerprint == b.fingerprint  # moved lines keep their fingerprint
    assert make_finding(occurrence=1).fingerprint != a.fingerprint
    assert make_finding(code="GM302").fingerprint != a.fingerprint


def test_github_annotation_escapes_properties_and_data():
    finding = make_finding(path="dir,with:odd/model.py", message="50% done\nnext line")
    line = annotation(finding)
    assert line.startswith("::warning file=dir%2Cwith%3Aodd/model.py,line=12,col=9,endLine=12,endColumn=23,")
    assert line.endswith("::50%25 done%0Anext line")
    errors = RENDERERS["github"](CheckResult([], [FileError("bad.py", "syntax error, line 3: invalid syntax")], 1))
    assert errors == "::error file=bad.py::syntax error, line 3: invalid syntax\n"


def test_json_errors_are_entries_too():
    payload = json.loads(RENDERERS["json"](CheckResult([make_finding()], [FileError("bad.py", "binary")], 2)))
    assert [entry["code"] for entry in payload] == ["GM301", None]
    assert payload[1]["error"] is True and payload[1]["message"] == "binary"
    assert payload[0]["fix"] is None and payload[0]["noqa_row"] == 12


def test_sarif_is_valid_2_1_0_for_code_scanning():
    """The properties GitHub code scanning requires (SARIF 2.1.0, sections 3.13-3.28)."""
    result = CheckResult([make_finding(), make_finding(code="GM101", gb_id="GB0170")], [FileError("x.py", "binary")], 3)
    sarif = render_sarif(result)
    assert sarif["version"] == "2.1.0" and sarif["$schema"].endswith("sarif-2.1.0.json")
    (run,) = sarif["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "graphmend" and driver["version"]
    rule_ids = [rule["id"] for rule in driver["rules"]]
    assert rule_ids == [rule.code for rule in RULES]
    for rule in driver["rules"]:
        assert rule["shortDescription"]["text"] and rule["helpUri"].startswith("https://")
        assert rule["defaultConfiguration"]["level"] in ("none", "note", "warning", "error")
    for sarif_result, finding in zip(run["results"], result.findings):
        assert sarif_result["ruleId"] == finding.code
        assert rule_ids[sarif_result["ruleIndex"]] == finding.code
        assert sarif_result["message"]["text"]
        (location,) = sarif_result["locations"]
        physical = location["physicalLocation"]
        assert physical["artifactLocation"]["uri"] == "pkg/model.py"
        region = physical["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1
        assert region["endLine"] >= region["startLine"]
        assert sarif_result["partialFingerprints"]["graphmendFingerprint/v1"] == finding.fingerprint
    notifications = run["invocations"][0]["toolExecutionNotifications"]
    assert notifications[0]["message"]["text"] == "binary"
    json.dumps(sarif)  # serialisable as is


def test_rule_lookup():
    assert RULES_BY_CODE["GM402"].gb_id == "GB0291"


def test_readme_rule_table_matches_the_registry():
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    rows = [line.split("|")[1:3] for line in readme.splitlines() if line.startswith("| GM")]
    documented = [(r.code, r.gb_id or f"{r.break_reason} (a compile reason, no registry id)") for r in RULES]
    assert [(code.strip(), gb.strip()) for code, gb in rows] == documented
