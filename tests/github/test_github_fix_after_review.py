"""End to end: the fix pull request made on `workflow_run` after the review (the default branch's
workflow, where the App key lives), closed on `pull_request_target`, and GPU verification dispatched.

The event is a hint: these tests forge it (another pull request, a moved head, a fork) and check
that the bot believes the API, not the payload."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from botworld import APP_BOT, MEMBER, RemoteWorld, run_fixed_copy
from fake_github import FakeGitHub
from test_github_e2e import BASE, HEAD
from world import NUMBER, REPO, BotRun, load_payload

BRANCH = "graphmend/fix/pr-2"
VERIFY = "graphmend-verify.yml"


@pytest.fixture
def world(tmp_path: Path, fake_github: FakeGitHub) -> RemoteWorld:
    fake_github.workflows = {VERIFY: {"pull-request"}, "graphmend.yml": None}
    return RemoteWorld(tmp_path, fake_github, BASE, HEAD)


def review_completed(world: RemoteWorld, **changes: Any) -> Path:
    """The real `workflow_run` payload of the review run of this world's pull request."""
    event = load_payload("workflow_run.completed.with-pull-requests.json")
    run = event["workflow_run"]
    run.update(event="pull_request", head_sha=world.head_sha, head_branch="changes", conclusion="failure",
               actor=MEMBER, triggering_actor=MEMBER)
    run["head_repository"] = {**run["head_repository"], "full_name": REPO}
    run["pull_requests"][0].update(number=NUMBER, head={**run["pull_requests"][0]["head"], "sha": world.head_sha})
    run.update(changes)
    path = world.tmp / f"workflow-run-{world.runs}.json"
    path.write_text(json.dumps(event), encoding="utf-8")
    return path


def run_fix(world: RemoteWorld, event: Path, **inputs: str) -> BotRun:
    empty = world.tmp / f"empty-{world.runs}"  # the workflow checks nothing out
    empty.mkdir()
    return world.run(event, event_name="workflow_run", workspace=empty, **{"fix_pr": "true", **inputs})


def test_fix_pull_request_after_the_review_then_gpu_verification(world: RemoteWorld) -> None:
    done = run_fix(world, review_completed(world))
    assert done.returncode == 0, done.stdout + done.stderr
    [fix] = world.fix_pulls()
    assert (fix["state"], fix["head"]["ref"], fix["base"]["ref"]) == ("open", BRANCH, "changes")
    tip = world.remote.branch(BRANCH)
    assert tip is not None and world.remote.git("rev-parse", f"{tip}^") == world.head_sha
    # The same rewrite a user gets with `graphmend check --fix`, computed from the head read as data.
    assert world.remote.show(tip, "pkg/model.py") == run_fixed_copy(world, world.head_sha)["pkg/model.py"].rstrip("\n")
    assert world.fake.dispatches == [{"workflow": VERIFY, "ref": "master", "inputs": {"pull-request": str(fix["number"])}}]

    # The same run again (a re-run): nothing pushed, so nothing to verify again.
    again = run_fix(world, review_completed(world))
    assert again.returncode == 0 and world.remote.branch(BRANCH) == tip
    assert len(world.fake.dispatches) == 1 and len(world.fix_pulls()) == 1


def test_the_payload_is_checked_against_the_api(world: RemoteWorld) -> None:
    # A run for a commit the pull request has moved on from.
    stale = run_fix(world, review_completed(world, head_sha="0" * 40))
    assert "has moved on" in stale.stdout
    # The run says "same repository", the API says the pull request comes from a fork.
    world.pull["head"]["repo"] = {**world.pull["head"]["repo"], "full_name": "drive-by/Hello-World"}
    forked = run_fix(world, review_completed(world))
    assert "not a pull request between branches" in forked.stdout
    # A run from a fork, by the payload.
    world.pull["head"]["repo"] = {**world.pull["head"]["repo"], "full_name": REPO}
    fork_run = review_completed(world)
    event = json.loads(fork_run.read_text())
    event["workflow_run"]["head_repository"]["full_name"] = "drive-by/Hello-World"
    fork_run.write_text(json.dumps(event))
    assert "comes from a fork" in run_fix(world, fork_run).stdout
    # The bot's own push, a run that is not a pull request's, a run that names no pull request.
    assert "no loops" in run_fix(world, review_completed(world, triggering_actor=APP_BOT),
                                 bot_login=APP_BOT["login"]).stdout
    assert "not for a pull request" in run_fix(world, review_completed(world, event="push")).stdout
    assert "names no pull request" in run_fix(world, review_completed(world, pull_requests=[])).stdout
    assert not world.fix_pulls() and not world.fake.dispatches and world.remote.branch(BRANCH) is None


def test_a_draft_waits_and_the_fix_pull_request_is_not_fixed_again(world: RemoteWorld) -> None:
    world.pull["draft"] = True
    assert "is a draft" in run_fix(world, review_completed(world)).stdout
    world.pull["draft"] = False
    run_fix(world, review_completed(world))
    [fix] = world.fix_pulls()
    # The review of the fix pull request itself completes: the bot does not fix its own fix.
    fix_run = review_completed(world, head_sha=fix["head"]["sha"], head_branch=BRANCH)
    event = json.loads(fix_run.read_text())
    event["workflow_run"]["pull_requests"][0]["number"] = fix["number"]
    fix_run.write_text(json.dumps(event))
    own = run_fix(world, fix_run)
    assert "GraphMend's own fix pull request" in own.stdout
    assert not any(path.endswith(f"/tarball/{fix['head']['sha']}") for _, path, _ in world.fake.log)  # not even read
    assert len(world.fix_pulls()) == 1 and len(world.fake.dispatches) == 1


def test_verification_not_dispatched_when_the_workflow_is_missing_or_refused(world: RemoteWorld) -> None:
    world.fake.workflows = {}
    done = run_fix(world, review_completed(world))
    assert done.returncode == 0 and len(world.fix_pulls()) == 1
    assert f"::notice title=GraphMend::starting `{VERIFY}`" in done.stdout and "404" in done.stdout
    world.push({"pkg/extra.py": "x = 1\n"})  # the fix branch moves with the new head
    world.fake.workflows = {VERIFY: set()}  # a workflow that declares no `pull-request` input
    moved = run_fix(world, review_completed(world))
    assert "422" in moved.stdout and "Unexpected inputs" in moved.stdout
    assert not world.fake.dispatches and len(world.fix_pulls()) == 1
    world.push({"pkg/extra.py": "x = 2\n"})
    unnamed = run_fix(world, review_completed(world), verify_workflow=" ")
    assert unnamed.returncode == 0 and not world.fake.dispatches


def test_review_bundle_input_still_means_posting_the_fork_review(world: RemoteWorld) -> None:
    done = run_fix(world, review_completed(world), review_bundle="missing.json")
    assert done.returncode == 0 and "nothing to post" in done.stdout
    assert not world.fix_pulls()


def test_pull_request_target_closes_the_fix_and_does_nothing_else(world: RemoteWorld) -> None:
    run_fix(world, review_completed(world))
    [fix] = world.fix_pulls("open")
    empty = world.tmp / "empty-close"
    empty.mkdir()
    opened = world.run(world.pull_request_event("pull_request.opened.json"), event_name="pull_request_target",
                       workspace=empty)
    assert opened.returncode == 0 and "only `closed` is handled" in opened.stdout
    assert not world.fake.reviews and world.fix_pulls("open")
    world.pull["state"] = "closed"
    closed = world.run(world.pull_request_event("pull_request.closed.json"), event_name="pull_request_target",
                       workspace=empty)
    assert closed.returncode == 0, closed.stdout + closed.stderr
    [fix] = world.fix_pulls()
    assert fix["state"] == "closed" and world.remote.branch(BRANCH) is None
    assert not world.fake.reviews  # no review is posted with the base's token
