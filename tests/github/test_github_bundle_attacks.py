"""An attacker's review of the fork review bundle's table of graph breaks (issue 28's comparison as
data): each test is an attack that worked before its fix (docs/security.md, "The review that led
here"). The attacker owns the fork, so the whole bundle is theirs; the posting run must still say
nothing in the bot's voice that they wrote as Markdown, and must not crash on it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_github import BOT_USER, FakeGitHub
from rendered_markdown import untrusted_markup
from test_github_e2e import BASE, HEAD
from test_github_security import _first_workflow, _second_workflow
from world import REPO, PullRequestWorld

from graphmend_bot.census.record import FORMAT, VERSION
from graphmend_bot.github.review.bundle import MAX_BYTES, MAX_FINDINGS, BundleError, read_bundle
from graphmend_bot.report.markdown import MAX_BODY

# A link, a mention and HTML, repeated: a cut anywhere inside a code span holding it leaves some whole.
HOSTILE = "[w](https://evil.example/) @octocat <img src=x> " * 10


def test_the_summarys_size_limit_never_cuts_a_code_span_open(tmp_path: Path, fake_github: FakeGitHub) -> None:
    """The summary was cut at exactly MAX_BODY characters: inside a code span, the opening backtick
    lost its closing one, and the rest of the span (code a forged finding's message quotes) rendered
    as Markdown: a link, an @mention and an <img> in the bot's comment. The attacker sizes the
    bundle's text to choose where the cut falls (here a problem line of the table of graph breaks
    before the findings); two paddings 250 characters apart put it inside a hostile span whatever
    the rest of the summary's length (the spans are 1,000 of each row's ~1,100 characters)."""
    world = PullRequestWorld(tmp_path, fake_github, BASE, HEAD)
    bundle = _first_workflow(world)
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    bundle["findings"] = [{**bundle["findings"][0], "message": f"`{HOSTILE[:996]}`"}] * 100  # the table's most
    for pad in (0, 250):
        bundle["breaks"] = {"base_commit": "", "head_commit": bundle["head_sha"], "problems": ["p" * pad]}
        run = _second_workflow(world, downloads, bundle)
        assert run.returncode == 0, run.stdout + run.stderr
        [body] = [c["body"] for c in fake_github.issue_comments
                  if c["user"]["login"] == BOT_USER["login"] and "graphmend:summary" in c["body"]]
        assert "(truncated; the SARIF report has every finding)" in body and len(body) <= MAX_BODY + 100
        assert untrusted_markup(body, repository_links=f"https://github.com/{REPO}/blob/",
                                own_commits=fake_github.commit_shas()) == [], pad


def test_a_bundle_that_json_cannot_hold_is_refused_in_one_line(tmp_path: Path, fake_github: FakeGitHub) -> None:
    """A number of 5,000 digits (past Python's limit for int conversion) or arrays nested 100,000
    deep raised ValueError and RecursionError out of the posting run (an internal error that failed
    it); a bundle of any size was read whole."""
    world = PullRequestWorld(tmp_path, fake_github, BASE, HEAD)
    bundle = _first_workflow(world)
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    valid = json.dumps(bundle)
    for hostile in (valid.replace('"files_checked": ', '"files_checked": ' + "9" * 5000 + ", \"x\": "),
                    valid.replace('"breaks": null', '"breaks": ' + "[" * 100_000 + "]" * 100_000)):
        assert hostile != valid
        (downloads / "bundle.json").write_text(hostile, "utf-8")
        run = world.run(world.event("workflow_run.completed.with-pull-requests.json"), event_name="workflow_run",
                        workspace=downloads, review_bundle="bundle.json", fail_on="never")
        assert run.returncode == 0 and "Traceback" not in run.stdout + run.stderr, run.stdout + run.stderr
        assert "nothing to post: the review bundle bundle.json is unreadable" in run.stdout
    with (downloads / "bundle.json").open("wb") as sparse:  # read whole before: now refused by its size
        sparse.truncate(MAX_BYTES + 1)
    run = world.run(world.event("workflow_run.completed.with-pull-requests.json"), event_name="workflow_run",
                    workspace=downloads, review_bundle="bundle.json", fail_on="never")
    assert run.returncode == 0 and "nothing to post: the review bundle bundle.json is larger than 64 MiB" in run.stdout
    assert [c for c in fake_github.issue_comments if c["user"]["login"] == BOT_USER["login"]] == []


def test_a_pull_requests_census_cannot_push_the_gates_verdict_out_of_the_summary(
        tmp_path: Path, fake_github: FakeGitHub) -> None:
    """The pull request's tests write its census: a thousand targets that fail to compile (each one
    a note, with no cap) and fifty rows of 500-character text made the table longer than the whole
    summary, and the cut took the findings and `fail-on: new-breaks`'s reason with it."""
    world = PullRequestWorld(tmp_path, fake_github, BASE, HEAD)
    row = {"path": "pkg/model.py", "line": 5, "reason": "r" * 500, "gb_id": "GB0170", "tests": ["t" * 500],
           "function": "f" * 500}
    calls = [{"target": f"pkg.T{number}" + "x" * 400, "test": "t", "error": "e" * 500} for number in range(1000)]
    census = {"format": FORMAT, "version": VERSION, "commit": world.head_sha, "calls": calls,
              "breaks": [{**row, "line": line} for line in range(1, 51)]}
    (world.git.root / "census").mkdir()
    (world.git.root / "census" / "head.json").write_text(json.dumps(census), "utf-8")
    (world.git.root / "census" / "base.json").write_text(json.dumps({**census, "commit": "b" * 40, "breaks": []}))
    run = world.run(world.event("pull_request.opened.json"), fail_on="new-breaks", census_file="census/head.json",
                    census_base="census/base.json")
    assert run.returncode == 1, run.stdout + run.stderr  # no trusted base: the gate fails ...
    [body] = [c["body"] for c in fake_github.issue_comments
              if c["user"]["login"] == BOT_USER["login"] and "graphmend:summary" in c["body"]]
    assert "**`fail-on: new-breaks` fails this check**: no trusted base" in body  # ... and the summary says why
    assert "### Findings" in body
    assert "more target(s) failed to compile on the head" in body


BIDI = "\u202e\u2066\u200f\u061c"  # right-to-left override, isolate, mark: text that reads other than it is


def test_bidi_controls_from_a_bundle_never_reach_the_bots_comments(tmp_path: Path, fake_github: FakeGitHub) -> None:
    """A forged finding's message (text and the code it quotes) carried right-to-left overrides into
    the summary and the inline comments: the bot's comment then displays text reordered ("Trojan
    Source"), e.g. a verdict that reads as approval. The census's text was already made printable;
    the one escaper now drops them everywhere."""
    world = PullRequestWorld(tmp_path, fake_github, BASE, HEAD)
    bundle = _first_workflow(world)
    for item in bundle["findings"]:
        item["message"] = f"Fine {BIDI[0]}MTGL{BIDI[1]} `x {BIDI[0]}y` {BIDI[2:]}"
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    run = _second_workflow(world, downloads, bundle)
    assert run.returncode == 0, run.stdout + run.stderr
    posted = [c["body"] for c in fake_github.issue_comments if c["user"]["login"] == BOT_USER["login"]]
    posted += [c["body"] for c in fake_github.review_comments]
    assert any("MTGL" in body for body in posted) and any("`x y`" in body for body in posted)
    assert [body for body in posted if any(char in body for char in BIDI)] == []


def test_a_bundles_counts_and_ids_are_what_they_claim_to_be(tmp_path: Path) -> None:
    """Type confusion and sizes the reader let through: `true` or a 101-digit number as the count of
    files checked (shown in the summary), errors without a cap (each a warning in the posting run's
    log), and graph-break ids in other digits (`\\d` is Unicode: Arabic-Indic digits passed as GB0170,
    linked to a page that does not exist)."""
    path = tmp_path / "bundle.json"
    valid = {"version": 1, "repository": "o/r", "pull_request": 2, "head_sha": "abc", "findings": [],
             "files_checked": 3}
    path.write_text(json.dumps(valid))
    assert read_bundle(path).result.files_checked == 3
    row = {"path": "m.py", "line": 1, "reason": "r", "gb_id": "GB\u0660\u0661\u0667\u0660"}
    runtime = {"code": "GM801", "graph_break_id": "GB\u0660\u0661\u0667\u0660", "message": "m", "filename": "m.py",
               "location": {"row": 1, "column": 1}, "end_location": {"row": 1, "column": 2},
               "dynamo": {"status": "confirmed", "test": "t", "reason": "r",
                          "graph_break_id": "GB\u0660\u0661\u0667\u0660"}}
    for change, message in (({"files_checked": True}, "files_checked must be"),
                            ({"files_checked": 10 ** 100}, "files_checked must be"),
                            ({"baselined": -1}, "baselined must be"), ({"baselined": "3"}, "baselined must be"),
                            ({"errors": [{"path": "m.py", "message": "m"}] * (MAX_FINDINGS + 1)}, "errors must be"),
                            ({"breaks": {"added": [row]}}, "gb_id must look like GB0170"),
                            ({"findings": [runtime]}, "graph_break_id must look like GB0170")):
        path.write_text(json.dumps({**valid, **change}))
        with pytest.raises(BundleError, match=message):
            read_bundle(path)
