"""Issue 25.3 end to end: hostile strings in every untrusted field the bot shows, and everything it
posts rendered by cmark-gfm (GitHub's renderer): no link, image, mention, issue reference or HTML
that came from them. Each test failed before the one escaper (report/untrusted_text.py)."""

from __future__ import annotations

import json
from pathlib import Path

from approveworld import fix_pr_world, submit
from botworld import RemoteWorld
from fake_github import FakeGitHub
from rendered_markdown import HOSTILE_TEXT, rendered_text, untrusted_markup
from test_github_approve import BRANCH, GOOD, MODEL, entry, report
from test_github_commands import command
from test_github_e2e import BASE, HEAD, UNTOUCHED
from world import NUMBER, REPO, PullRequestWorld

from graphmend_bot.github.fixes.fix_pr import FileEdit, FixPlan, fix_body

# A file name (no `/` but the folder's, no newline) and code quoted by a fix message, each carrying
# what the old sanitiser let through: an entity that renders as a mention, an image, an issue reference.
HOSTILE_NAME = "pkg/x` &#64;octocat ![i](http:evil.example) #31337 www.evil.example <img src=x> y.py"
QUOTING_MODEL = '''\
import torch
from torch import nn


class Quoted(nn.Module):
    def forward(self, x):
        y = x * 2
        v = y["a` &#64;octocat ![i](http:evil.example) [ref] #31337 www.evil.example `"].sum().item()
        return y * v
'''


def everything_posted(fake: FakeGitHub) -> list[str]:
    """Every Markdown body the bot wrote on GitHub: comments, reviews, issues, pull requests."""
    bodies = [c["body"] or "" for c in fake.issue_comments + fake.review_comments]
    bodies += [r.get("body") or "" for r in fake.reviews]
    bodies += [i["body"] or "" for i in fake.issues.values()]
    bodies += [p.get("body") or "" for p in fake.pulls.values()]
    return [body for body in bodies if body]


def assert_inert(bodies: list[str], fake: FakeGitHub, shown: str = "octocat") -> None:
    assert any(shown in rendered_text(body) for body in bodies), bodies  # the hostile text is shown ...
    for body in bodies:  # ... as text
        assert untrusted_markup(body, repository_links=f"https://github.com/{REPO}/blob/",
                                own_commits=fake.commit_shas()) == [], body


def test_a_pull_requests_names_and_code_are_text_in_the_review_and_summary(tmp_path: Path,
                                                                           fake_github: FakeGitHub) -> None:
    world = RemoteWorld(tmp_path, fake_github, BASE, {**HEAD, HOSTILE_NAME: UNTOUCHED, "pkg/quoted.py": QUOTING_MODEL})
    run = world.run(world.event("pull_request.opened.json"), fail_on="never")
    assert run.returncode == 0, run.stdout + run.stderr
    assert any(c["path"] == "pkg/quoted.py" for c in fake_github.review_comments)
    assert_inert(everything_posted(fake_github), fake_github)


def test_a_forged_bundles_text_is_text_in_every_comment(tmp_path: Path, fake_github: FakeGitHub) -> None:
    from test_github_security import _first_workflow, _second_workflow

    world = PullRequestWorld(tmp_path, fake_github, BASE, HEAD)
    bundle = _first_workflow(world)
    bundle["errors"] = [{"path": "pkg/model.py", "message": HOSTILE_TEXT}]
    for item in bundle["findings"]:
        item["message"] = HOSTILE_TEXT
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    run = _second_workflow(world, downloads, bundle)
    assert run.returncode == 0, run.stdout + run.stderr
    assert_inert(everything_posted(fake_github), fake_github)


def test_a_configuration_error_in_a_command_reply_is_text(tmp_path: Path, fake_github: FakeGitHub) -> None:
    hostile_key = "[ref]: //evil.example &#64;octocat"
    config = f'"{hostile_key}": 1\n"<img src=x> ![i](http:evil.example) #31337": 2\n'
    world = RemoteWorld(tmp_path, fake_github, BASE, {**HEAD, ".graphmend.yml": config})
    run, _ = command(world, "/graphmend scan")
    assert run.returncode == 0, run.stdout + run.stderr
    replies = [c["body"] for c in fake_github.issue_comments if "invalid" in (c["body"] or "")]
    assert replies, everything_posted(fake_github)
    assert_inert(replies, fake_github)


def test_a_hostile_command_is_quoted_as_text(tmp_path: Path, fake_github: FakeGitHub) -> None:
    world = RemoteWorld(tmp_path, fake_github, BASE, HEAD)
    run, _ = command(world, "/graphmend &#64;octocat``[x](http:evil.example) --x=![i](http:evil.example)``")
    assert run.returncode == 0, run.stdout + run.stderr
    replies = [c["body"] for c in fake_github.issue_comments if "not a GraphMend command" in (c["body"] or "")]
    assert replies, everything_posted(fake_github)
    assert_inert(replies, fake_github, shown="#64;octocat")


def test_the_measured_reports_text_is_text_in_the_gpu_review_and_the_fix_pull_request(
        tmp_path: Path, fake_github: FakeGitHub) -> None:
    world = fix_pr_world(tmp_path, fake_github, {"tinynet.py": MODEL.format(body=BRANCH)},
                         {"tinynet.py": MODEL.format(body=GOOD)})
    world.pull["body"] = fix_body(FixPlan([FileEdit("tinynet.py", b"")]), "#1", world.base_sha)  # a fix PR
    report_file = tmp_path / "verify.json"  # written where the pull request's code ran: anything goes
    report_file.write_text(json.dumps(report(entry(name=HOSTILE_TEXT, verdict=HOSTILE_TEXT,
                                                   original={"ok": False, "error": HOSTILE_TEXT}))))
    done = submit(world, report_file)
    assert done.outputs["decision"] == "REQUEST_CHANGES", done.log
    [review] = fake_github.reviews_on(REPO, NUMBER)
    assert_inert([review["body"], world.pull["body"]], fake_github)
    assert "octocat" in rendered_text(world.pull["body"])  # the fix pull request's status quotes the reason
