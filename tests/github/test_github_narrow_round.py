"""The narrowing round runs by itself (issue 11, github/fixes/narrow_round.py).

Against the fake GitHub, each job in its own process as Actions runs it: the bot (App token) opens
the fix pull request; the approval (another identity) finds a fix whose lines never ran, records it
and dispatches the bot's fix workflow; that dispatch narrows the fix pull request at once and asks
for verification again, which then approves. A head that moved is not overwritten, a pull request
not opened by the bot is never touched, a round with nothing new to leave out ends the loop, and a
fix pull request narrowed to nothing is closed with a message.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from approveworld import StepRun, _environment, _run
from botworld import APP_BOT, MEMBER, RemoteWorld
from fake_github import MAX_BODY, FakeGitHub
from test_github_approve import FULL_COVERAGE, entry, report
from test_github_narrowing import BASE, BROKEN, EVERY_CALL, FIXED, SLOW, _slow_fix, _slow_line
from world import REPO, BotRun

from graphmend_bot.github.fixes.fix_pr import with_verification
from graphmend_bot.github.fixes.narrowing import exclusions_in, fixes_of

APP_TOKEN = "ghs_app_token"
FIX_BRANCH = "graphmend/fix/pr-2"
FIX_WORKFLOW = "graphmend-fix.yml"
VERIFY_WORKFLOW = "graphmend-verify.yml"


def _world(tmp: Path, fake: FakeGitHub, executable: bool = False) -> tuple[RemoteWorld, dict[str, Any]]:
    """A source pull request and the fix pull request the App opened for it (both fixes)."""
    fake.users[APP_TOKEN] = dict(APP_BOT)  # the App writes; the approval acts as github-actions[bot]
    fake.workflows = {FIX_WORKFLOW: {"narrow-fix-pull-request", "head-sha"}, VERIFY_WORKFLOW: {"pull-request"}}
    world = RemoteWorld(tmp, fake, BASE, {"pkg/model.py": BROKEN})
    if executable:  # pkg/model.py is also a script
        world.make_executable("pkg/model.py")
    world.run(world.pull_request_event("pull_request.opened.json"), token=APP_TOKEN, fix_pr="true", fixes="verified")
    [fix] = world.fix_pulls()
    assert fix["user"]["login"] == APP_BOT["login"]
    return world, fix


def _submit(world: RemoteWorld, fix: dict[str, Any], covered: bool, head_sha: str | None = None) -> StepRun:
    coverage = FULL_COVERAGE if covered else {
        "rewritten_lines": 2, "covered": FULL_COVERAGE["covered"],
        "uncovered": [{"path": "pkg/model.py", "line": _slow_line(), "text": SLOW}]}
    report_file = world.tmp / f"report-{len(world.fake.reviews)}.json"
    report_file.write_text(json.dumps(report(entry(), coverage=coverage)))
    return _run(world, "submit", ["--pull-request", str(fix["number"]), "--head-sha", head_sha or fix["head"]["sha"],
                                  "--report", str(report_file), "--fixes", "verified",
                                  "--narrow-workflow", FIX_WORKFLOW],
                _environment(world, "submit", world.fake.token), world.tmp)


def _narrow(world: RemoteWorld, inputs: dict[str, str]) -> BotRun:
    """The fix workflow's narrowing job: the App token, the dispatch's inputs, nothing checked out."""
    event = world.tmp / f"dispatch-{world.runs}.json"
    event.write_text(json.dumps({"inputs": inputs, "ref": "refs/heads/master"}))
    empty = world.tmp / f"empty-{world.runs}"
    empty.mkdir()
    return world.run(event, event_name="workflow_dispatch", token=APP_TOKEN, workspace=empty, fixes="verified")


def _dispatches(fake: FakeGitHub, workflow: str) -> list[dict[str, str]]:
    return [d["inputs"] for d in fake.dispatches if d["workflow"] == workflow]


def test_the_narrowed_fix_pull_request_appears_and_is_approved_without_another_event(
        tmp_path: Path, fake_github: FakeGitHub) -> None:
    world, fix = _world(tmp_path, fake_github)
    measured = fix["head"]["sha"]
    done = _submit(world, fix, covered=False)
    assert (fake_github.reviews[-1]["state"], done.returncode) == ("COMMENTED", 1), done.stdout + done.stderr
    # The approval asked the bot's fix workflow to narrow exactly this pull request at the measured head.
    [dispatch] = _dispatches(fake_github, FIX_WORKFLOW)
    assert dispatch == {"narrow-fix-pull-request": str(fix["number"]), "head-sha": measured}
    verifications = len(_dispatches(fake_github, VERIFY_WORKFLOW))
    run = _narrow(world, dispatch)
    assert run.returncode == 0, (run.stdout + run.stderr)
    tip = world.remote.branch(FIX_BRANCH)
    assert tip is not None and tip != measured and fix["head"]["sha"] == tip
    narrowed = world.remote.show(tip, "pkg/model.py")
    assert EVERY_CALL in narrowed and SLOW not in narrowed, (run.stdout + run.stderr)
    assert world.remote.git("rev-parse", f"{tip}^").strip() == measured  # a fast-forward of the measured head
    assert _dispatches(fake_github, VERIFY_WORKFLOW)[verifications:] == [{"pull-request": str(fix["number"])}]
    assert exclusions_in(fix["body"]) == ([_slow_fix()], "")
    assert f"Narrowed to the fixes verification can prove (commit `{tip[:7]}`): no verify entry point executed " \
        f"`{_slow_fix()}`" in fix["body"]
    # The verification of the narrowed head: every remaining line ran; the recompute matches; approved.
    done = _submit(world, fix, covered=True)
    assert (fake_github.reviews[-1]["state"], done.returncode) == ("APPROVED", 0), done.stdout + done.stderr
    assert len(_dispatches(fake_github, FIX_WORKFLOW)) == 1  # nothing new unproven: no further round


def test_a_round_with_nothing_new_to_leave_out_ends_the_loop(tmp_path: Path, fake_github: FakeGitHub) -> None:
    world, fix = _world(tmp_path, fake_github)
    _submit(world, fix, covered=False)
    [dispatch] = _dispatches(fake_github, FIX_WORKFLOW)
    _narrow(world, dispatch)
    tip = world.remote.branch(FIX_BRANCH)
    verifications = len(_dispatches(fake_github, VERIFY_WORKFLOW))
    # A second dispatch for the narrowed head (a retry, or a hand-made one): the tree is already narrowed.
    again = _narrow(world, {"narrow-fix-pull-request": str(fix["number"]), "head-sha": str(tip)})
    assert "nothing new to leave out" in (again.stdout + again.stderr), (again.stdout + again.stderr)
    assert world.remote.branch(FIX_BRANCH) == tip
    assert len(_dispatches(fake_github, VERIFY_WORKFLOW)) == verifications  # no verification for nothing
    # A measurement of the narrowed head that still finds a line unexecuted, but in no fix that is
    # not recorded already, records nothing new and starts no new round.
    done = _submit(world, fix, covered=False)
    assert (fake_github.reviews[-1]["state"], done.returncode) == ("COMMENTED", 1), done.stdout + done.stderr
    assert "unproven-fixes" not in done.outputs and exclusions_in(fix["body"]) == ([_slow_fix()], "")
    assert len(_dispatches(fake_github, FIX_WORKFLOW)) == 1


def test_a_head_that_moved_since_the_measurement_is_not_overwritten(tmp_path: Path, fake_github: FakeGitHub) -> None:
    world, fix = _world(tmp_path, fake_github)
    measured = fix["head"]["sha"]
    _submit(world, fix, covered=False)
    [dispatch] = _dispatches(fake_github, FIX_WORKFLOW)
    # The race inside the round: someone with write access pushes to the fix branch after the round
    # checked the head, before its ref update; GitHub's fast-forward check refuses the update.
    pushed: list[str] = []
    fake_github.after_request.append(("POST", rf"/repos/{REPO}/git/commits",
                                      lambda: pushed.append(_push_to(world, FIX_BRANCH, measured))))
    run = _narrow(world, dispatch)
    assert pushed and world.remote.branch(FIX_BRANCH) == pushed[0], (run.stdout + run.stderr)
    assert "moved during the round: not overwritten" in (run.stdout + run.stderr)
    # The same dispatch again: the head is no longer the measured commit, so the round stops at once.
    run = _narrow(world, dispatch)
    assert "not overwritten, the run for the new head decides" in (run.stdout + run.stderr)
    assert world.remote.branch(FIX_BRANCH) == pushed[0]
    # A dispatch naming the new head (anyone with write access can dispatch): it is not GraphMend's
    # rewrite, so nothing is narrowed there either.
    run = _narrow(world, {"narrow-fix-pull-request": str(fix["number"]), "head-sha": pushed[0]})
    assert "not GraphMend's rewrite" in (run.stdout + run.stderr), (run.stdout + run.stderr)
    assert world.remote.branch(FIX_BRANCH) == pushed[0]


def _push_to(world: RemoteWorld, branch: str, parent: str, who: str = "someone") -> str:
    """A commit by someone else on top of `parent`, pushed to `branch` (the fake's pull follows it)."""
    from fake_github import _branch_moved  # the fake's own bookkeeping of a push

    clone = world.tmp / who
    world.git.git("clone", "-q", str(world.remote.path), str(clone))
    run = world.git.git
    run("-C", str(clone), "checkout", "-q", parent)
    (clone / "pkg" / "extra.py").write_text("x = 1\n")
    run("-C", str(clone), "add", "pkg/extra.py")
    run("-C", str(clone), "-c", "user.name=someone", "-c", "user.email=s@example.com", "commit", "-q", "-m", "extra")
    run("-C", str(clone), "push", "-q", "origin", f"HEAD:refs/heads/{branch}")
    sha = world.remote.branch(branch)
    assert sha is not None
    _branch_moved(world.fake, REPO, branch, sha)
    return sha


def test_a_fix_pull_request_not_opened_by_the_bot_is_never_touched(tmp_path: Path, fake_github: FakeGitHub) -> None:
    world, fix = _world(tmp_path, fake_github)
    _submit(world, fix, covered=False)
    [dispatch] = _dispatches(fake_github, FIX_WORKFLOW)
    before = world.remote.branch(FIX_BRANCH)
    fix["user"] = dict(MEMBER)  # a look-alike: same branch, same body, another author
    body = fix["body"]
    run = _narrow(world, dispatch)
    assert "refused" in (run.stdout + run.stderr) and "not by the bot's App" in (run.stdout + run.stderr), (run.stdout + run.stderr)
    assert world.remote.branch(FIX_BRANCH) == before and fix["body"] == body and fix["state"] == "open"
    for bad in ({"narrow-fix-pull-request": "1; rm -rf /", "head-sha": str(before)},
                {"narrow-fix-pull-request": str(fix["number"]), "head-sha": "main"}):
        run = _narrow(world, bad)
        assert run.returncode == 2 and "must be a pull request number" in (run.stdout + run.stderr), (run.stdout + run.stderr)
    assert world.remote.branch(FIX_BRANCH) == before


def test_a_fix_pull_request_narrowed_to_nothing_is_closed_with_a_message(
        tmp_path: Path, fake_github: FakeGitHub) -> None:
    world, fix = _world(tmp_path, fake_github)
    names = [f.name for f in fixes_of([("pkg/model.py", BROKEN, FIXED)])]
    uncovered = [{"path": "pkg/model.py", "line": n, "text": ""} for f in fixes_of([("pkg/model.py", BROKEN, FIXED)])
                 for n in f.proof_lines]
    report_file = world.tmp / "none-ran.json"
    report_file.write_text(json.dumps(report(entry(), coverage={
        "rewritten_lines": len(uncovered), "covered": [], "uncovered": uncovered})))
    done = _run(world, "submit", ["--pull-request", str(fix["number"]), "--head-sha", fix["head"]["sha"],
                                  "--report", str(report_file), "--fixes", "verified", "--narrow-workflow", FIX_WORKFLOW],
                _environment(world, "submit", fake_github.token), world.tmp)
    assert sorted(json.loads(done.outputs["unproven-fixes"])) == sorted(names), done.stdout + done.stderr
    [dispatch] = _dispatches(fake_github, FIX_WORKFLOW)
    run = _narrow(world, dispatch)
    assert fix["state"] == "closed", (run.stdout + run.stderr)
    closing = fake_github.issue_comments_on(REPO, fix["number"])[-1]["body"]
    assert "no verify entry point executes any of these fixes" in closing and names[0] in closing
    assert world.remote.branch(FIX_BRANCH) is None


def _mode(world: RemoteWorld, commit: str, path: str) -> str:
    return world.remote.git("ls-tree", commit, path).split()[0]


def test_the_narrowed_commit_keeps_an_executable_file_executable(tmp_path: Path, fake_github: FakeGitHub) -> None:
    world, fix = _world(tmp_path, fake_github, executable=True)
    assert _mode(world, fix["head"]["sha"], "pkg/model.py") == "100755"  # the bot's fix commit kept it
    _submit(world, fix, covered=False)
    [dispatch] = _dispatches(fake_github, FIX_WORKFLOW)
    run = _narrow(world, dispatch)
    tip = world.remote.branch(FIX_BRANCH)
    assert tip is not None and tip != dispatch["head-sha"], (run.stdout + run.stderr)
    assert SLOW not in world.remote.show(tip, "pkg/model.py")
    assert _mode(world, tip, "pkg/model.py") == "100755"


def test_a_push_while_closing_a_fix_narrowed_to_nothing_keeps_the_branch(
        tmp_path: Path, fake_github: FakeGitHub) -> None:
    world, fix = _world(tmp_path, fake_github)
    uncovered = [{"path": "pkg/model.py", "line": n, "text": ""} for f in fixes_of([("pkg/model.py", BROKEN, FIXED)])
                 for n in f.proof_lines]
    report_file = world.tmp / "none-ran.json"
    report_file.write_text(json.dumps(report(entry(), coverage={
        "rewritten_lines": len(uncovered), "covered": [], "uncovered": uncovered})))
    _run(world, "submit", ["--pull-request", str(fix["number"]), "--head-sha", fix["head"]["sha"],
                           "--report", str(report_file), "--fixes", "verified", "--narrow-workflow", FIX_WORKFLOW],
         _environment(world, "submit", fake_github.token), world.tmp)
    [dispatch] = _dispatches(fake_github, FIX_WORKFLOW)
    # Someone pushes to the fix branch after the round checked its head, while it closes the pull request.
    pushed: list[str] = []
    fake_github.after_request.append(("PATCH", rf"/repos/{REPO}/pulls/{fix['number']}",
                                      lambda: pushed.append(_push_to(world, FIX_BRANCH, dispatch["head-sha"]))))
    run = _narrow(world, dispatch)
    assert fix["state"] == "closed" and pushed, (run.stdout + run.stderr)
    assert world.remote.branch(FIX_BRANCH) == pushed[0]  # their commit is not deleted with the branch
    assert "the branch is kept" in (run.stdout + run.stderr)


def test_a_fix_pull_request_near_githubs_limit_still_records_its_unproven_fixes(
        tmp_path: Path, fake_github: FakeGitHub) -> None:
    """review18 #5: the approval writes its verdict and the record of unproven fixes into a body
    built near GitHub's 65,536 characters; GitHub refused the edit and the record was lost, so the
    narrowing never started. The description now gives up its snippets, never the record."""
    world, fix = _world(tmp_path, fake_github)
    start = "<details><summary>Before and after</summary>"
    assert start in fix["body"]
    padding = "\n".join(f"line {i} of a long snippet {'.' * 60}" for i in range(1200))
    fix["body"] = with_verification(fix["body"], "Pending.")  # the verdict then writes a longer line
    fix["body"] = fix["body"].replace(start, f"{start}\n\n```python\n{padding[:MAX_BODY - len(fix['body']) - 30]}\n```\n")
    assert MAX_BODY - 30 < len(fix["body"]) <= MAX_BODY
    done = _submit(world, fix, covered=False)
    assert done.returncode == 1, done.stdout + done.stderr
    assert len(fix["body"]) <= MAX_BODY and exclusions_in(fix["body"]) == ([_slow_fix()], ""), done.stdout
    assert "Before and after of every rewrite are in the diff." in fix["body"]
    assert len(_dispatches(fake_github, FIX_WORKFLOW)) == 1  # the narrowing round was asked for
