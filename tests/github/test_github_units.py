"""The GitHub layer's pure parts: diff lines, suggestions, the review plan, markers, inputs,
error messages, outputs and bundle validation. No network except the fake server's own test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_github import FakeGitHub
from github import GithubException

from graphmend_bot.findings import Edit, Finding, Fix, Location
from graphmend_bot.github.core.api import connect, describe
from graphmend_bot.github.core.context import ActionError, read_inputs
from graphmend_bot.github.core.markers import finding_marker, parse_finding_marker
from graphmend_bot.github.core.outputs import write_outputs
from graphmend_bot.github.review.bundle import BundleError, read_bundle
from graphmend_bot.github.review.diff import parse_patch
from graphmend_bot.github.review.plan import ExistingComment, finding_keys, fix_diff, plan_review
from graphmend_bot.github.review.suggestion import suggestion_for
from graphmend_bot.report.markdown import SummaryView, finding_comment, summary_markdown

SOURCE = """\
import torch


def f(x):
    y = x + 1
    print("value")
    return y
"""
# The patch GitHub would show for SOURCE after lines 5-6 were added.
PATCH = "\n".join([
    "@@ -2,4 +2,6 @@ import torch",
    " ",
    " ",
    " def f(x):",
    "+    y = x + 1",
    '+    print("value")',
    "     return y",
])


def finding(row: int, code: str = "GM401", line: str = '    print("value")', fix: Fix | None = None,
            path: str = "m.py") -> Finding:
    return Finding(code=code, message="`print` in traced code", path=path, location=Location(row, 5),
                   end_location=Location(row, len(line) + 1), gb_id="GB0059", symbol="m.f", source_line=line,
                   fix=fix)


GUARD = Fix("safe", "Guard `print(...)`", (
    Edit("if not torch.compiler.is_compiling():\n        ", Location(6, 5), Location(6, 5)),
))


def test_patch_lines_are_the_right_side_of_the_diff() -> None:
    diff = parse_patch("m.py", PATCH + "\n@@ -20,2 +22,3 @@\n a\n-b\n+c\n+d\n\\ No newline at end of file")
    assert sorted(diff.lines) == [2, 3, 4, 5, 6, 7, 22, 23, 24]
    assert diff.added == {5, 6, 23, 24}
    assert diff.lines[6] == (0, '    print("value")')
    assert diff.commentable(5, 7) and not diff.commentable(7, 22) and not diff.commentable(8, 8)
    assert parse_patch("big.py", None).lines == {}


def test_suggestion_replaces_whole_lines_with_the_fix_applied() -> None:
    suggestion = suggestion_for(finding(6, fix=GUARD), SOURCE)
    assert suggestion is not None
    assert (suggestion.first_line, suggestion.last_line) == (6, 6)
    assert suggestion.text == '    if not torch.compiler.is_compiling():\n        print("value")'


def test_suggestion_over_several_lines_and_none_for_unsafe_or_broken_fixes() -> None:
    two_lines = Fix("safe", "Merge", (Edit("z = x + 1\n    ", Location(5, 5), Location(6, 5)),))
    suggestion = suggestion_for(finding(5, fix=two_lines), SOURCE)
    assert suggestion is not None and (suggestion.first_line, suggestion.last_line) == (5, 6)
    assert suggestion.text == '    z = x + 1\n    print("value")'
    assert suggestion_for(finding(6, fix=Fix("unsafe", "m", GUARD.edits)), SOURCE) is None
    overlapping = Fix("safe", "m", (Edit("a", Location(5, 5), Location(5, 9)), Edit("b", Location(5, 6), Location(5, 7))))
    assert suggestion_for(finding(5, fix=overlapping), SOURCE) is None


def test_comment_uses_a_fence_longer_than_the_code_inside() -> None:
    body = finding_comment(finding(6, fix=GUARD), finding_marker("0" * 16), 'x = """```"""')
    assert "````suggestion\nx = \"\"\"```\"\"\"\n````" in body
    assert parse_finding_marker(body) == ("0" * 16, False)


def test_plan_comments_in_the_diff_and_annotates_the_rest() -> None:
    findings = [finding(6, fix=GUARD), finding(7, "GM301", "    return y")]
    diffs = {"m.py": parse_patch("m.py", PATCH.replace("+    y", " y").replace("     return y", "-    return y"))}
    plan = plan_review(findings, diffs, {"m.py": SOURCE}, [], "abc1234")
    [comment] = plan.new_comments
    assert comment.as_api() == {"path": "m.py", "line": 6, "side": "RIGHT", "body": comment.body}
    assert "```suggestion" in comment.body
    assert plan.outside_diff == [findings[1]]


def test_plan_skips_lines_whose_text_differs_from_the_diff() -> None:
    """A checkout that is not the head commit (the merge commit, say) must not misplace comments."""
    moved = SOURCE.replace("def f(x):\n", "def f(x):\n    # a line the base branch added\n")
    plan = plan_review([finding(6)], {"m.py": parse_patch("m.py", PATCH)}, {"m.py": moved}, [], "abc1234")
    assert plan.new_comments == [] and len(plan.outside_diff) == 1


def test_plan_limits_comments_per_review_and_never_repeats_one() -> None:
    lines = [f"    print({i})" for i in range(35)]
    source = "def f(x):\n" + "\n".join(lines) + "\n"
    patch = "@@ -0,0 +1,36 @@\n+def f(x):\n" + "\n".join(f"+{line}" for line in lines)
    findings = [finding(i + 2, line=line) for i, line in enumerate(lines)]
    keys = finding_keys(findings)
    already = ExistingComment(1, f"old\n{finding_marker(keys[0])}", by_bot=True)
    plan = plan_review(findings, {"m.py": parse_patch("m.py", patch)}, {"m.py": source}, [already], "abc")
    assert plan.already_commented == [findings[0]]
    assert len(plan.new_comments) == 30 and len(plan.overflow) == 4
    assert plan.delete == [] and plan.resolve == []


def test_plan_ignores_fingerprints_in_comments_the_bot_did_not_write() -> None:
    """A stranger's comment carrying the bot's fingerprints neither suppresses a new comment nor is
    deleted or edited as a stale one of the bot's."""
    source, patch = "def f(x):\n    print(1)\n", "@@ -0,0 +1,2 @@\n+def f(x):\n+    print(1)"
    findings = [finding(2, line="    print(1)")]
    [key] = finding_keys(findings)
    spoofed = [ExistingComment(7, f"lgtm\n{finding_marker(key)}"), ExistingComment(8, finding_marker("d" * 16))]
    plan = plan_review(findings, {"m.py": parse_patch("m.py", patch)}, {"m.py": source}, spoofed, "abc")
    assert [c.key for c in plan.new_comments] == [key] and plan.already_commented == []
    assert plan.delete == [] and plan.resolve == []


def test_plan_removes_or_resolves_comments_whose_finding_is_gone() -> None:
    gone, replied = finding_marker("a" * 16), finding_marker("b" * 16)
    existing = [
        ExistingComment(1, f"**GM401** x\n{gone}", by_bot=True),
        ExistingComment(2, f"**GM301** y\n{replied}", by_bot=True),
        ExistingComment(3, "thanks, will fix", in_reply_to_id=2),
        ExistingComment(4, f"done\n{finding_marker('c' * 16, resolved=True)}", by_bot=True),
    ]
    plan = plan_review([], {}, {}, existing, "0123456789")
    assert plan.delete == [1]
    [(comment_id, body)] = plan.resolve
    assert comment_id == 2 and body.startswith("**Resolved** in 0123456")
    assert parse_finding_marker(body) == ("b" * 16, True)


def test_identical_lines_get_distinct_keys() -> None:
    twice = [finding(5), finding(9)]
    assert twice[0].fingerprint == twice[1].fingerprint
    keys = finding_keys(twice)
    assert keys == [twice[0].fingerprint, f"{twice[0].fingerprint}.2"]


def test_the_last_marker_in_a_body_is_the_bots() -> None:
    body = f"user text {finding_marker('1' * 16)}\n{finding_marker('2' * 16)}"
    assert parse_finding_marker(body) == ("2" * 16, False)
    assert parse_finding_marker("no marker") is None


def test_summary_shows_the_fix_diff_and_counts() -> None:
    findings = [finding(6, fix=GUARD)]
    view = SummaryView(findings, files_checked=3, changed_files=1, head_sha="abcdef123",
                       fix_diff=fix_diff(findings, {"m.py": SOURCE}))
    text = summary_markdown(view)
    assert "1 graph break(s) in the changed Python files at abcdef1" in text
    assert '+    if not torch.compiler.is_compiling():\n+        print("value")' in text
    assert "| **GM401** print-in-traced-code |" in text


def test_inputs_follow_the_actions_naming() -> None:
    inputs = read_inputs({"INPUT_FAIL-ON": "fixable", "INPUT_PATHS": "src\ntests", "GITHUB_TOKEN": "t"})
    assert (inputs.fail_on, inputs.paths, inputs.token, inputs.comment) == ("fixable", ["src", "tests"], "t", True)
    assert read_inputs({"INPUT_MAX_COMMENTS": "5"}).max_comments == 5
    with pytest.raises(ActionError, match="fail-on"):
        read_inputs({"INPUT_FAIL-ON": "sometimes"})
    with pytest.raises(ActionError, match="comment"):
        read_inputs({"INPUT_COMMENT": "maybe"})


@pytest.mark.parametrize("status, data, expected", [
    (401, {"message": "Bad credentials"}, "401 'Bad credentials': the token was rejected"),
    (403, {"message": "Resource not accessible by integration"}, "pull-requests: write"),
    (403, {"message": "API rate limit exceeded for installation"}, "rate limit is exhausted"),
    (404, {"message": "Not Found"}, "check that the repository and pull request exist"),
    (422, {"message": "Validation Failed", "errors": [{"code": "custom", "message": "line must be part of the diff"}]},
     "422 'Validation Failed (line must be part of the diff)': GitHub rejected the request"),
])
def test_api_errors_read_as_sentences(status: int, data: dict[str, object], expected: str) -> None:
    assert expected in describe(GithubException(status, data, {}), "posting the review")


def test_multiline_outputs_use_a_delimiter(tmp_path: Path) -> None:
    out = tmp_path / "output"
    write_outputs(out, {"findings": "3", "list": "a\nb"})
    lines = out.read_text().splitlines()
    assert lines[0] == "findings=3" and lines[1].startswith("list<<ghadelimiter_")
    assert lines[2:4] == ["a", "b"] and lines[4] == lines[1].split("<<", 1)[1]


def test_bundle_is_validated_and_its_prose_rendered_inert(tmp_path: Path) -> None:
    item = {"code": "GM401", "graph_break_id": "GB0059", "message": "ping @octocat <!-- graphmend:summary -->",
            "filename": "m.py", "location": {"row": 6, "column": 5}, "end_location": {"row": 6, "column": 19},
            "fix": None}
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps({"version": 1, "repository": "o/r", "pull_request": 2, "head_sha": "abc",
                                "findings": [item]}))
    bundle = read_bundle(path)
    number, sha, result = bundle.pull_request, bundle.head_sha, bundle.result
    assert (number, sha) == (2, "abc")
    assert result.findings[0].message == "ping @octocat <!-- graphmend:summary -->"  # kept as data ...
    rendered = finding_comment(result.findings[0], "<!-- marker -->")  # ... and rendered as text
    assert "@octocat" not in rendered and "<!-- graphmend:summary" not in rendered, rendered  # no marker, even as text
    for broken in ({**item, "graph_break_id": "GB0001"}, {**item, "location": {"row": -1, "column": 1}},
                   {**item, "fix": {"applicability": "always", "edits": []}}):
        path.write_text(json.dumps({"version": 1, "repository": "o/r", "pull_request": 2, "head_sha": "abc",
                                    "findings": [broken]}))
        with pytest.raises(BundleError):
            read_bundle(path)
    with pytest.raises(BundleError, match="no review bundle"):
        read_bundle(tmp_path / "missing.json")


def test_bundle_keeps_a_python_bool_finding_and_its_graph_break_id(tmp_path: Path) -> None:
    """`if torch.equal(a, b)` is GM101 with Dynamo's Python-bool id GB0033: a bundle carrying it is
    posted, and only a rule's own ids pass."""
    item = {"code": "GM101", "graph_break_id": "GB0033", "message": "m", "filename": "m.py",
            "location": {"row": 3, "column": 5}, "end_location": {"row": 3, "column": 30}}
    path = tmp_path / "bundle.json"
    envelope = {"version": 1, "repository": "o/r", "pull_request": 2, "head_sha": "abc"}
    path.write_text(json.dumps({**envelope, "findings": [item]}))
    assert read_bundle(path).result.findings[0].gb_id == "GB0033"
    path.write_text(json.dumps({**envelope, "findings": [{**item, "code": "GM401"}]}))  # GM401 has no such id
    with pytest.raises(BundleError, match="names no known rule"):
        read_bundle(path)


def test_bundle_keeps_the_ids_a_rule_measures_per_finding(tmp_path: Path) -> None:
    """GM604 carries its callee's id (`np.load`: GB0294), GM701 each call's (`torch.autograd.grad`:
    GB9186) and GM608 the id of the break inside the dependency: a bundle carrying them is posted
    (it was refused as naming no known rule), and an id no static rule carries is still refused."""
    envelope = {"version": 1, "repository": "o/r", "pull_request": 2, "head_sha": "abc"}
    path = tmp_path / "bundle.json"
    for code, gb_id in (("GM604", "GB0294"), ("GM701", "GB9186"), ("GM608", "GB0170"), ("GM608", "GB0207")):
        item = {"code": code, "graph_break_id": gb_id, "message": "m", "filename": "m.py",
                "location": {"row": 3, "column": 5}, "end_location": {"row": 3, "column": 30}}
        path.write_text(json.dumps({**envelope, "findings": [item]}))
        assert read_bundle(path).result.findings[0].gb_id == gb_id
    path.write_text(json.dumps({**envelope, "findings": [{**item, "graph_break_id": "GB0093"}]}))
    with pytest.raises(BundleError, match="names no known rule"):
        read_bundle(path)


def test_fake_server_paginates_like_github(fake_github: FakeGitHub) -> None:
    """PyGithub follows the fake's Link headers under a GitHub Enterprise style base URL."""
    repo_name = "Codertocat/Hello-World"
    fake_github.add_repository({"full_name": repo_name, "name": "Hello-World", "default_branch": "master",
                                "url": f"https://api.github.com/repos/{repo_name}"})
    fake_github.pulls[(repo_name, 2)] = {"number": 2}
    fake_github.issue_comments += [{"_repo": repo_name, "_pull": 2, "id": i, "body": str(i)} for i in range(75)]
    repo = connect(fake_github.base_url, fake_github.token).get_repo(repo_name)
    comments = list(repo.get_issue(2).get_comments())
    assert [c.body for c in comments] == [str(i) for i in range(75)]
    assert sum(1 for method, path, _ in fake_github.log if path.endswith("/comments")) == 3


def test_payload_copies_are_the_shared_real_payloads() -> None:
    """tests/github/fixtures holds unchanged copies, so a clean checkout runs the same tests."""
    here = Path(__file__).resolve().parent / "fixtures"
    shared = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures" / "github-events"
    copies = sorted(here.glob("*.json"))
    assert copies and (here / "LICENSE.octokit-webhooks").is_file()
    if not shared.is_dir():
        pytest.skip("no ../shared checkout next to this repository")
    for copy in copies:
        assert copy.read_bytes() == (shared / copy.name).read_bytes(), copy.name


def test_bot_outside_actions_or_with_a_bad_config_says_why(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from graphmend_bot.github import run_bot

    assert run_bot({}) == 2
    assert "GITHUB_EVENT_NAME is not set" in capsys.readouterr().out
    (tmp_path / ".graphmend.yml").write_text("select: [XX9]\n")
    (tmp_path / "event.json").write_text("{}")
    env = {"GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": str(tmp_path / "event.json"),
           "GITHUB_WORKSPACE": str(tmp_path)}
    assert run_bot(env) == 2
    out = capsys.readouterr().out
    assert out.startswith("::error title=GraphMend::graphmend bot: ") and "matches no rule" in out
    (tmp_path / "event.json").write_text("[not json")
    assert run_bot({**env, "INPUT_CONFIG": "missing.yml"}) == 2
    assert "not valid JSON" in capsys.readouterr().out


def test_fake_server_reactions_and_read_only_writes(fake_github: FakeGitHub) -> None:
    """Reactions (acknowledging /graphmend commands) round-trip through PyGithub; a read-only token's
    write gets GitHub's 403."""
    repo_name = "Codertocat/Hello-World"
    fake_github.add_repository({"full_name": repo_name, "name": "Hello-World", "default_branch": "master",
                                "url": f"https://api.github.com/repos/{repo_name}"})
    fake_github.pulls[(repo_name, 2)] = {"number": 2, "url": f"https://api.github.com/repos/{repo_name}/pulls/2"}
    issue = connect(fake_github.base_url, fake_github.token).get_repo(repo_name).get_issue(2)
    comment = issue.create_comment("/graphmend fix")
    comment.create_reaction("eyes")
    comment.create_reaction("eyes")  # idempotent, as on GitHub
    assert [r.content for r in comment.get_reactions()] == ["eyes"]
    fake_github.read_only = True
    with pytest.raises(GithubException) as refused:
        comment.create_reaction("rocket")
    assert refused.value.status == 403
