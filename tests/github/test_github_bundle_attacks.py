"""An attacker's review of the fork review bundle's table of graph breaks (issue 28's comparison as
data): each test is an attack that worked before its fix (docs/security.md, "The review that led
here"). The attacker owns the fork, so the whole bundle is theirs; the posting run must still say
nothing in the bot's voice that they wrote as Markdown, and must not crash on it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fake_github import BOT_USER, FakeGitHub
from rendered_markdown import untrusted_markup
from test_github_e2e import BASE, HEAD
from test_github_security import _first_workflow, _second_workflow
from world import REPO, PullRequestWorld

from graphmend_bot.report.markdown import MAX_BODY

# A link, a mention and HTML, repeated: a cut anywhere inside a code span holding it leaves some whole.
HOSTILE = "[w](https://evil.example/) @octocat <img src=x> " * 10


def _rows(reason_pad: int) -> list[dict[str, Any]]:
    """Fifty rows (the table's most) whose test id and function are hostile code spans, enough to
    pass the summary's size limit; `reason_pad` moves where that limit falls within a row."""
    row = {"path": "pkg/model.py", "line": 5, "reason": "", "gb_id": "", "tests": [HOSTILE[:500]],
           "function": HOSTILE[:500]}
    return [{**row, "reason": "r" * reason_pad}, *([row] * 49)]


def test_the_summarys_size_limit_never_cuts_a_code_span_open(tmp_path: Path, fake_github: FakeGitHub) -> None:
    """The summary was cut at exactly MAX_BODY characters: inside a code span, the opening backtick
    lost its closing one, and the rest of the span (a forged test id) rendered as Markdown: a link,
    an @mention and an <img> in the bot's comment. The attacker sizes the bundle's text to choose
    where the cut falls; two paddings 250 characters apart put it inside a hostile span whatever the
    rest of the summary's length (the spans are 1,000 of each row's ~1,150 characters)."""
    world = PullRequestWorld(tmp_path, fake_github, BASE, HEAD)
    bundle = _first_workflow(world)
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    for reason_pad in (0, 250):
        bundle["breaks"] = {"base_commit": "", "head_commit": bundle["head_sha"], "added": _rows(reason_pad),
                            "problems": ["p" * 500] * 20}  # before the rows: past the limit
        run = _second_workflow(world, downloads, bundle)
        assert run.returncode == 0, run.stdout + run.stderr
        [body] = [c["body"] for c in fake_github.issue_comments
                  if c["user"]["login"] == BOT_USER["login"] and "graphmend:summary" in c["body"]]
        assert "(truncated; the SARIF report has every finding)" in body and len(body) <= MAX_BODY + 100
        assert untrusted_markup(body, repository_links=f"https://github.com/{REPO}/blob/") == [], reason_pad


def test_a_bundle_that_json_cannot_hold_is_refused_in_one_line(tmp_path: Path, fake_github: FakeGitHub) -> None:
    """A number of 5,000 digits (past Python's limit for int conversion) or arrays nested 100,000
    deep raised ValueError and RecursionError out of the posting run: a traceback, no message."""
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
    assert [c for c in fake_github.issue_comments if c["user"]["login"] == BOT_USER["login"]] == []
