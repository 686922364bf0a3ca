"""End to end: `graphmend bot` as GitHub Actions runs it, against the fake GitHub over HTTP.

Assertions are on what a user sees: the review and its comments, the summary comment, the
annotations in the log, the job summary, the step outputs and the SARIF file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_github import READ_ONLY_MESSAGE, FakeGitHub
from world import NUMBER, REPO, PullRequestWorld

MODEL_BASE = '''\
import logging

import torch
from torch import nn

from pkg.layers import scale

logger = logging.getLogger(__name__)


def report(x):
    logger.info("activation shape %s", x.shape)
    return x


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 4)

    def forward(self, x):
        x = self.linear(x)
        x = report(x)
        x = scale(x)
        return x
'''

MODEL_HEAD = MODEL_BASE.replace(
    "        x = scale(x)\n        return x\n",
    "        x = scale(x)\n"
    "        if x.sum() > 0:\n"
    "            x = x * 2\n"
    '        print("forward done")\n'
    "        return x\n",
)

LAYERS_BASE = "import torch\n\n\ndef scale(x):\n    return x * 2\n"
LAYERS_HEAD = "import torch\n\n\ndef scale(x):\n    factor = x.abs().max().item()\n    return x * 2 / factor\n"

# Has a graph break, but the pull request does not touch it: never reported.
UNTOUCHED = '''\
import torch
from torch import nn


class Other(nn.Module):
    def forward(self, x):
        print("untouched")
        return x
'''

BASE = {"pkg/__init__.py": "", "pkg/model.py": MODEL_BASE, "pkg/layers.py": LAYERS_BASE,
        "pkg/untouched.py": UNTOUCHED, "README.md": "# Hello\n"}
HEAD = {"pkg/model.py": MODEL_HEAD, "pkg/layers.py": LAYERS_HEAD, "README.md": "# Hello, World\n"}


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


@pytest.fixture
def world(tmp_path: Path, fake_github: FakeGitHub) -> PullRequestWorld:
    return PullRequestWorld(tmp_path, fake_github, BASE, HEAD)


def summary_comments(fake: FakeGitHub) -> list[str]:
    return [c["body"] for c in fake.issue_comments_on(REPO, NUMBER) if "graphmend:summary" in c["body"]]


def test_first_run_reviews_the_diff_and_summarises(world: PullRequestWorld) -> None:
    run = world.run(world.event("pull_request.opened.json"), fail_on="findings")
    fake = world.fake

    assert run.returncode == 1, run.stdout + run.stderr  # findings, and fail-on: findings
    assert "Traceback" not in run.stderr + run.stdout
    reviews = fake.reviews_on(REPO, NUMBER)
    assert len(reviews) == 1
    assert reviews[0]["state"] == "COMMENTED" and reviews[0]["commit_id"] == world.head_sha
    comments = {(c["path"], c["line"]): c["body"] for c in fake.comments_on(REPO, NUMBER)}
    # One comment per finding on a changed line, including layers.py, in scope only because the
    # unchanged model.py calls it from forward (the whole tree is context).
    assert set(comments) == {
        ("pkg/model.py", line_of(MODEL_HEAD, "if x.sum() > 0")),
        ("pkg/model.py", line_of(MODEL_HEAD, 'print("forward done")')),
        ("pkg/layers.py", line_of(LAYERS_HEAD, ".item()")),
    }
    branch = comments[("pkg/model.py", line_of(MODEL_HEAD, "if x.sum() > 0"))]
    assert branch.startswith("**GM101**") and "GB0170" in branch
    assert "<!-- graphmend:finding " in branch
    # The print has a safe fix: a one-click suggestion replacing exactly the changed line.
    printed = comments[("pkg/model.py", line_of(MODEL_HEAD, 'print("forward done")'))]
    assert printed.startswith("**GM401**")
    suggestion = printed.split("```suggestion\n", 1)[1].split("\n```", 1)[0]
    assert suggestion == '        if not torch.compiler.is_compiling():\n            print("forward done")'
    # The logger call is in a changed file but not in the diff: an annotation, not a comment.
    logger_row = line_of(MODEL_HEAD, "logger.info(")
    assert [a for a in run.annotations if f"file=pkg/model.py,line={logger_row}," in a]
    assert len(run.annotations) == 1
    assert "untouched" not in run.stdout + run.summary + str(fake.issue_comments)
    # The summary comment: a table of the four findings, counts per rule.
    [summary] = summary_comments(fake)
    assert "4 graph break(s)" in summary
    for code in ("GM101", "GM301", "GM401", "GM402"):
        assert f"| **{code}**" in summary
    assert f"/blob/{world.head_sha}/pkg/layers.py#L5" in summary
    # What stays behind in the job: summary, outputs, SARIF.
    assert "4 graph break(s)" in run.summary
    assert run.outputs["findings"] == "4" and run.outputs["sarif-file"] == "graphmend-1.sarif"
    assert run.sarif is not None
    results = run.sarif["runs"][0]["results"]
    assert sorted(r["ruleId"] for r in results) == ["GM101", "GM301", "GM401", "GM402"]


def test_second_run_duplicates_nothing(world: PullRequestWorld) -> None:
    world.run(world.event("pull_request.opened.json"))
    comments_before = [c["id"] for c in world.fake.comments_on(REPO, NUMBER)]
    summary_before = world.fake.issue_comments_on(REPO, NUMBER)[0]["id"]
    writes_before = len(world.fake.writes())

    run = world.run(world.event("pull_request.reopened.json"), fail_on="never")

    assert run.returncode == 0, run.stdout + run.stderr
    assert len(world.fake.reviews_on(REPO, NUMBER)) == 1
    assert [c["id"] for c in world.fake.comments_on(REPO, NUMBER)] == comments_before
    assert [c["id"] for c in world.fake.issue_comments_on(REPO, NUMBER)] == [summary_before]
    assert world.fake.writes()[writes_before:] == []  # nothing changed, so nothing was written
    assert "3 commented on the pull request, 1 as annotations" in run.stdout


def test_push_that_fixes_breaks_removes_or_resolves_their_comments(world: PullRequestWorld) -> None:
    world.run(world.event("pull_request.opened.json"))
    fake = world.fake
    branch_comment = next(c for c in fake.comments_on(REPO, NUMBER) if c["body"].startswith("**GM101**"))
    # A reviewer answered the branch comment: that thread is kept and marked resolved.
    status = fake.handle("POST", f"/api/v3/repos/{REPO}/pulls/{NUMBER}/comments/{branch_comment['id']}/replies",
                         b'{"body": "good catch"}', {"Authorization": f"token {fake.token}"})[0]
    assert status == 201

    fixed = MODEL_BASE.replace("        return x\n", "        return x.relu()\n")
    world.push({"pkg/model.py": fixed})
    run = world.run(world.event("pull_request.synchronize.json"), fail_on="never")

    assert run.returncode == 0, run.stdout + run.stderr
    bodies = [c["body"] for c in fake.comments_on(REPO, NUMBER)]
    assert not any(b.startswith("**GM401**") for b in bodies)  # the print is gone: comment deleted
    resolved = next(c for c in fake.comments_on(REPO, NUMBER) if c["id"] == branch_comment["id"])
    assert resolved["body"].startswith(f"**Resolved** in {world.head_sha[:7]}")
    assert resolved["_resolved"] is True  # and its conversation resolved (GraphQL)
    assert "good catch" in bodies
    assert any(b.startswith("**GM301**") for b in bodies)  # still there, still commented once
    assert len(fake.reviews_on(REPO, NUMBER)) == 1
    [summary] = summary_comments(fake)
    assert "2 graph break(s)" in summary and world.head_sha[:7] in summary


def test_fork_with_read_only_token_falls_back_to_annotations(world: PullRequestWorld) -> None:
    world.fake.read_only = True

    run = world.run(world.event("pull_request.opened.json"), fail_on="never")

    assert run.returncode == 0, run.stdout + run.stderr
    assert "Traceback" not in run.stdout + run.stderr
    assert world.fake.comments_on(REPO, NUMBER) == [] and world.fake.issue_comments_on(REPO, NUMBER) == []
    assert READ_ONLY_MESSAGE in run.stdout and "forks" in run.stdout
    assert len(run.annotations) == 4
    assert "4 graph break(s)" in run.summary
    assert "Not everything was posted" in run.summary and "4 finding(s) are reported as annotations" in run.summary
    assert run.sarif is not None and len(run.sarif["runs"][0]["results"]) == 4
    assert [status for method, _, status in world.fake.log if method == "POST"] == [403]


def test_server_errors_and_rate_limits_are_retried(world: PullRequestWorld) -> None:
    fake = world.fake
    fake.fail("GET", rf"/repos/{REPO}/pulls/{NUMBER}", 502, {"message": "Server Error"})
    fake.fail("POST", rf"/repos/{REPO}/pulls/{NUMBER}/reviews", 403,
              {"message": "You have exceeded a secondary rate limit."}, {"Retry-After": "1"})
    fake.fail("GET", rf"/repos/{REPO}/issues/{NUMBER}/comments", 429, {"message": "API rate limit exceeded"},
              {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1"})

    run = world.run(world.event("pull_request.opened.json"), fail_on="never")

    assert run.returncode == 0, run.stdout + run.stderr
    assert "answered 502" in run.stdout and "rate limit" in run.stdout
    assert len(fake.reviews_on(REPO, NUMBER)) == 1 and len(fake.comments_on(REPO, NUMBER)) == 3
    assert len(summary_comments(fake)) == 1


def test_bad_token_says_so_and_keeps_the_findings(world: PullRequestWorld) -> None:
    run = world.run(world.event("pull_request.opened.json"), token="wrong", fail_on="never")

    assert run.returncode == 2
    assert "Traceback" not in run.stdout + run.stderr
    assert "GitHub answered 401 'Bad credentials'" in run.stdout and "github-token" in run.stdout
    # Findings are not lost: the whole tree is checked into the summary and SARIF.
    assert run.sarif is not None and run.sarif["runs"][0]["results"]
    assert "graph break(s)" in run.summary


def test_draft_closed_and_non_python_pull_requests_are_quiet(world: PullRequestWorld) -> None:
    fake = world.fake
    fake.pulls[(REPO, NUMBER)]["draft"] = True
    draft = world.run(world.event("pull_request.opened.json", draft=True), fail_on="never")
    assert draft.returncode == 0 and "draft" in draft.stdout
    assert fake.writes() == [] and len(draft.annotations) == 4

    closed = world.run(world.event("pull_request.closed.json"))
    assert closed.returncode == 0 and "closed" in closed.stdout and closed.sarif is None

    fake.pulls[(REPO, NUMBER)]["draft"] = False
    fake.set_files(REPO, NUMBER, [f for f in fake.files[(REPO, NUMBER)] if not f["filename"].endswith(".py")])
    docs_only = world.run(world.event("pull_request.synchronize.json"))
    assert docs_only.returncode == 0 and "changes no Python files" in docs_only.stdout
    assert docs_only.outputs["findings"] == "0"
    assert fake.writes() == []


def test_files_past_githubs_list_cap_fail_the_review_closed(world: PullRequestWorld) -> None:
    """GitHub lists at most 3000 files of a pull request: padding one past that must not hide a break."""
    fake = world.fake
    listed = fake.files[(REPO, NUMBER)]
    padding = [{**listed[-1], "filename": f"docs/page{i}.md", "status": "added"} for i in range(3000)]
    fake.set_files(REPO, NUMBER, padding + listed)  # the Python files come last: past the cap
    fake.pulls[(REPO, NUMBER)]["changed_files"] = len(padding) + len(listed)

    run = world.run(world.event("pull_request.synchronize.json"), fail_on="never")

    assert run.returncode == 2, run.stdout + run.stderr  # fails closed, whatever fail-on says
    assert "Traceback" not in run.stderr + run.stdout
    note = f"this one changes {len(padding) + len(listed)}: {len(listed)} changed file(s) were not reviewed"
    assert note in run.stdout and note in run.summary


def test_push_event_checks_the_whole_tree(world: PullRequestWorld, tmp_path: Path) -> None:
    run = world.run(Path(__file__).parent / "fixtures" / "push.payload.json", event_name="push", fail_on="never")

    assert run.returncode == 0, run.stdout + run.stderr
    assert run.outputs["findings"] == "5"  # the four of the pull request and pkg/untouched.py's print
    assert any("file=pkg/untouched.py" in a for a in run.annotations)
    assert world.fake.log == []


def test_fork_two_workflow_pattern_posts_from_the_bundle(world: PullRequestWorld, tmp_path: Path) -> None:
    fake = world.fake
    # Workflow 1, `pull_request` from a fork: read-only token; the bundle is the artifact.
    fake.read_only = True
    first = world.run(world.event("pull_request.opened.json"), fail_on="never",
                      review_bundle="artifact/graphmend-review.json")
    assert first.returncode == 0 and fake.comments_on(REPO, NUMBER) == []
    bundle = world.git.root / "artifact" / "graphmend-review.json"
    assert bundle.is_file()

    # Workflow 2, `workflow_run`: base repository's workflow, write token, no checkout of the fork.
    fake.read_only = False
    downloads = tmp_path / "base-checkout"
    downloads.mkdir()
    (downloads / "graphmend-review.json").write_bytes(bundle.read_bytes())
    second = world.run(world.event("workflow_run.completed.with-pull-requests.json"), event_name="workflow_run",
                       workspace=downloads, review_bundle="graphmend-review.json", fail_on="never")

    assert second.returncode == 0, second.stdout + second.stderr
    comments = fake.comments_on(REPO, NUMBER)
    assert len(comments) == 3 and len(fake.reviews_on(REPO, NUMBER)) == 1
    printed = next(c["body"] for c in comments if c["body"].startswith("**GM401**"))
    assert "```suggestion\n" in printed  # placed from the contents API at the head commit
    assert len(summary_comments(fake)) == 1
    assert len(second.annotations) == 1  # the logger call outside the diff

    # Run again (a re-run of workflow 2): nothing is duplicated.
    writes = len(fake.writes())
    world.run(world.event("workflow_run.completed.with-pull-requests.json"), event_name="workflow_run",
              workspace=downloads, review_bundle="graphmend-review.json", fail_on="never")
    assert fake.writes()[writes:] == []


def test_a_tampered_bundle_is_not_posted(world: PullRequestWorld, tmp_path: Path) -> None:
    world.fake.read_only = True
    world.run(world.event("pull_request.opened.json"), review_bundle="bundle.json", fail_on="never")
    world.fake.read_only = False
    data = json.loads((world.git.root / "bundle.json").read_text("utf-8"))
    downloads = tmp_path / "downloads"
    downloads.mkdir()

    # A bundle for another commit than the one the first workflow ran on.
    (downloads / "bundle.json").write_text(json.dumps({**data, "head_sha": world.base_sha}), "utf-8")
    other = world.run(world.event("workflow_run.completed.with-pull-requests.json"), event_name="workflow_run",
                      workspace=downloads, review_bundle="bundle.json")
    assert other.returncode == 0 and "not posting it" in other.stdout

    # A finding that names no rule.
    data["findings"][0]["code"] = "XX999"
    (downloads / "bundle.json").write_text(json.dumps(data), "utf-8")
    forged = world.run(world.event("workflow_run.completed.with-pull-requests.json"), event_name="workflow_run",
                       workspace=downloads, review_bundle="bundle.json")
    assert forged.returncode == 0 and "names no known rule" in forged.stdout
    assert world.fake.writes() == [w for w in world.fake.writes() if w[2] == 403]  # only workflow 1's refusal
    assert world.fake.comments_on(REPO, NUMBER) == []


def test_a_rejected_review_still_leaves_the_summary_and_annotations(world: PullRequestWorld) -> None:
    world.fake.fail("POST", rf"/repos/{REPO}/pulls/{NUMBER}/reviews", 422,
                    {"message": "Unprocessable Entity", "errors": ["Line could not be resolved"]})

    run = world.run(world.event("pull_request.opened.json"), fail_on="never")

    assert run.returncode == 0, run.stdout + run.stderr
    assert "posting the review failed: GitHub answered 422" in run.stdout
    assert "Line could not be resolved" in run.stdout
    assert world.fake.comments_on(REPO, NUMBER) == []
    assert len(run.annotations) == 4  # every finding is still visible
    [summary] = summary_comments(world.fake)
    assert "0 finding(s) commented inline" in summary


def test_direct_review_and_bundle_post_together_post_once(world: PullRequestWorld, tmp_path: Path) -> None:
    """A same-repository pull request with both patterns installed: the fingerprints agree."""
    first = world.run(world.event("pull_request.opened.json"), fail_on="never", review_bundle="b/review.json")
    assert first.returncode == 0 and len(world.fake.comments_on(REPO, NUMBER)) == 3
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    (downloads / "review.json").write_bytes((world.git.root / "b" / "review.json").read_bytes())
    writes = len(world.fake.writes())

    second = world.run(world.event("workflow_run.completed.with-pull-requests.json"), event_name="workflow_run",
                       workspace=downloads, review_bundle="review.json", fail_on="never")

    assert second.returncode == 0, second.stdout + second.stderr
    assert world.fake.writes()[writes:] == []
    assert "3 commented on the pull request" in second.stdout


def test_reverting_the_python_changes_clears_the_review(world: PullRequestWorld) -> None:
    world.run(world.event("pull_request.opened.json"))
    world.push({"pkg/model.py": MODEL_BASE, "pkg/layers.py": LAYERS_BASE})  # only README.md still differs

    run = world.run(world.event("pull_request.synchronize.json"), fail_on="findings")

    assert run.returncode == 0, run.stdout + run.stderr
    assert "changes no Python files" in run.stdout
    assert world.fake.comments_on(REPO, NUMBER) == []
    [summary] = summary_comments(world.fake)
    assert "no graph breaks in the changed Python files" in summary


def test_duplicate_summary_comments_are_merged_into_one(world: PullRequestWorld) -> None:
    """Two runs racing once left two summaries: the next run keeps the first, removes the other."""
    fake = world.fake
    for body in ("old summary\n\n<!-- graphmend:summary -->", "racing copy\n\n<!-- graphmend:summary -->"):
        fake.handle("POST", f"/api/v3/repos/{REPO}/issues/{NUMBER}/comments", json.dumps({"body": body}).encode(),
                    {"Authorization": f"token {fake.token}"})
    first_id = fake.issue_comments_on(REPO, NUMBER)[0]["id"]

    world.run(world.event("pull_request.opened.json"), fail_on="never")

    [summary] = fake.issue_comments_on(REPO, NUMBER)
    assert summary["id"] == first_id and "4 graph break(s)" in summary["body"]
