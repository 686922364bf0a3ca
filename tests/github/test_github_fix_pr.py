"""End to end: the fix pull request for a pull request, created, updated, closed; never a loop."""

from __future__ import annotations

from pathlib import Path

import pytest
from botworld import APP_BOT, RemoteWorld, run_fixed_copy
from fake_github import MAX_BODY, FakeGitHub, body_too_long
from test_github_approve import entry, report
from test_github_e2e import BASE, HEAD, MODEL_BASE, MODEL_HEAD
from world import NUMBER, REPO

from graphmend_bot.fences import code_span
from graphmend_bot.github.approval.verdict import MAX_STATUS, Decision, review_body, verification_status
from graphmend_bot.github.core.body_budget import first_few
from graphmend_bot.github.core.markers import VERIFY_MARKER, is_fix_pr
from graphmend_bot.github.fixes.fix_body_fit import fitted
from graphmend_bot.github.fixes.fix_pr import (
    MAX_FIX_BODY,
    FileEdit,
    FixPlan,
    Rewrite,
    fix_body,
    plan_fix,
    valid_branch,
    with_verification,
)
from graphmend_bot.github.fixes.narrow_round import MAX_NAMED, NARROWED_VERIFICATION
from graphmend_bot.github.fixes.narrowing import MAX_EXCLUDED, exclusions_in, with_exclusions

BRANCH = "graphmend/fix/pr-2"


@pytest.fixture
def world(tmp_path: Path, fake_github: FakeGitHub) -> RemoteWorld:
    return RemoteWorld(tmp_path, fake_github, BASE, HEAD)


def test_fix_pull_request_created_updated_then_closed(world: RemoteWorld) -> None:
    first = world.run(world.pull_request_event("pull_request.opened.json"), fix_pr="true")
    assert first.returncode == 1, first.stdout + first.stderr  # findings fail the check, the fix is extra
    [fix] = world.fix_pulls()
    assert (fix["state"], fix["head"]["ref"], fix["base"]["ref"]) == ("open", BRANCH, "changes")
    assert fix["user"]["login"] == "github-actions[bot]"
    # The branch: one bot commit on top of the pull request's head, the same rewrite a user gets locally.
    tip = world.remote.branch(BRANCH)
    assert tip is not None
    assert world.remote.git("rev-parse", f"{tip}^") == world.head_sha
    assert world.remote.git("show", "-s", "--format=%an <%ae>%n%s", tip).splitlines() == [
        "graphmend[bot] <graphmend[bot]@users.noreply.github.com>", "GraphMend: fix 2 torch.compile graph break(s)"]
    changed = world.remote.git("diff", "--name-only", world.head_sha, tip).splitlines()
    assert changed == ["pkg/model.py"]  # not pkg/untouched.py: the pull request does not change it
    local = run_fixed_copy(world, world.head_sha)
    assert world.remote.show(tip, "pkg/model.py") == local["pkg/model.py"].rstrip("\n")
    # The body lists each rewrite with before and after, and the verification status.
    body = fix["body"]
    assert "| `pkg/model.py` | 12 | GM402 |" in body and "| `pkg/model.py` | 27 | GM401 |" in body
    assert 'Before:\n\n```python\n        print("forward done")\n```' in body
    assert "if not torch.compiler.is_compiling():" in body
    assert "### Verification" in body and "Not verified on a GPU yet" in body
    notes = [c["body"] for c in world.fake.issue_comments_on(REPO, NUMBER) if f"#{fix['number']}" in c["body"]]
    assert len(notes) == 1 and "opened" in notes[0]

    # Same commit again: nothing pushed, nothing duplicated.
    writes_before = len(world.fake.writes())
    again = world.run(world.pull_request_event("pull_request.synchronize.json"), fix_pr="true")
    assert again.returncode == 1
    assert world.remote.branch(BRANCH) == tip and len(world.fix_pulls()) == 1
    assert not [w for w in world.fake.writes()[writes_before:] if w[0] == "POST" and w[1].endswith(("/pulls", "/refs"))]
    assert "already holds these rewrites" in again.stdout

    # A new commit with one more break: the same pull request, regenerated from the new head.
    world.push({"pkg/model.py": MODEL_HEAD.replace("        return x\n", '        print("again")\n        return x\n')})
    world.run(world.pull_request_event("pull_request.synchronize.json"), fix_pr="true")
    [fix] = world.fix_pulls()
    tip = world.remote.branch(BRANCH)
    assert tip is not None and world.remote.git("rev-parse", f"{tip}^") == world.head_sha
    assert 'print("again")' in fix["body"] and fix["state"] == "open"
    assert world.remote.show(tip, "pkg/model.py") == run_fixed_copy(world, world.head_sha)["pkg/model.py"].rstrip()

    # The breaks are fixed in the pull request itself: the fix pull request is closed, its branch deleted.
    world.push({"pkg/model.py": MODEL_BASE.replace('        logger.info("activation shape %s", x.shape)\n',
                                                   "        pass\n")})
    closed = world.run(world.pull_request_event("pull_request.synchronize.json"), fix_pr="true")
    assert "closed fix pull request" in closed.stdout
    [fix] = world.fix_pulls()
    assert fix["state"] == "closed" and world.remote.branch(BRANCH) is None
    [goodbye] = [c["body"] for c in world.fake.issue_comments_on(REPO, fix["number"])]
    assert "Nothing left to fix in #2" in goodbye


def test_fix_pull_request_closes_with_its_source(world: RemoteWorld) -> None:
    world.run(world.pull_request_event("pull_request.opened.json"), fix_pr="true")
    [fix] = world.fix_pulls("open")
    world.pull["state"] = "closed"
    done = world.run(world.pull_request_event("pull_request.closed.json"), fix_pr="true")
    assert done.returncode == 0, done.stdout
    [fix] = world.fix_pulls()
    assert fix["state"] == "closed" and world.remote.branch(BRANCH) is None
    [goodbye] = [c["body"] for c in world.fake.issue_comments_on(REPO, fix["number"])]
    assert "#2 was closed" in goodbye


def test_no_loops_and_no_fix_for_forks_or_fix_branches(world: RemoteWorld) -> None:
    # A push by the bot itself (`/graphmend fix --push`) never starts another fix.
    own = world.run(world.pull_request_event("pull_request.synchronize.json", sender=APP_BOT), fix_pr="true",
                    bot_login=APP_BOT["login"])
    assert "the push came from the bot itself" in own.stdout and not world.fix_pulls()
    # The bot's own fix pull request is reviewed, never fixed again.
    world.run(world.pull_request_event("pull_request.opened.json"), fix_pr="true")
    [fix] = world.fix_pulls()
    on_fix = world.run(world.pull_request_event("pull_request.opened.json", number=fix["number"]), fix_pr="true")
    assert "the bot does not fix its own fixes" in on_fix.stdout and len(world.fix_pulls()) == 1
    # Without `fix-pr: true` nothing is opened; from a fork nothing can be.
    world.fake.pulls[(REPO, NUMBER)]["head"]["repo"] = {**world.pull["head"]["repo"], "full_name": "fork/Hello-World"}
    fork = world.run(world.pull_request_event("pull_request.synchronize.json"), fix_pr="true")
    assert "comes from a fork" in fork.stdout


def test_workflow_files_are_never_changed(tmp_path: Path) -> None:
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    (tmp_path / ".github" / "workflows" / "helper.py").write_text("print(1)\n")
    (tmp_path / "model.py").write_text("print(1)\n")
    plan = plan_fix([(".github/workflows/helper.py", "print(1)\n", "pass\n"), ("model.py", "print(1)\n", "pass\n")],
                    [], tmp_path)
    assert [f.path for f in plan.files] == ["model.py"] and plan.skipped == [".github/workflows/helper.py"]
    assert "never edits workflows" in fix_body(plan, "#1", "0" * 40)


def test_branch_names_and_verification_section() -> None:
    assert valid_branch("graphmend/fix/pr-12") and valid_branch("feature/x_y.z")
    for bad in ("", "-x", "a..b", "a b", "a;rm -rf", "x.lock", "a//b", "/a", "a/", "$(id)", "a~1", "@"):
        assert not valid_branch(bad), bad
    body = fix_body(FixPlan([FileEdit("m.py", b"")]), "#1", "a" * 40)
    updated = with_verification(body, "Approved on a GPU.")
    assert "Approved on a GPU." in updated and "Not verified" not in updated
    assert with_verification(updated, "x").count("graphmend:verification") == 1 + 1  # start and end markers


# review17 #1: 50 rewrites of 20 long lines each made a 158,044-character body; GitHub refuses any
# description over 65,536 characters, so the fix pull request never opened or updated.
LONG_BEFORE = "if (x > 0).any():\n" + "    y = x * 2  # a comment that is long enough to matter here............\n" * 20
UNPROVEN = ["pkg/mod3.py:10-30", "pkg/mod7.py:10-30"]


def _plan(message: str = "Select `out` with torch.where") -> FixPlan:
    rewrites = [Rewrite(f"pkg/mod{i}.py", 10, "GM101", message, LONG_BEFORE, LONG_BEFORE.replace("if", "iff"),
                        assumptions=("x is a float tensor",) if i % 2 else ()) for i in range(50)]
    return FixPlan([FileEdit(f"pkg/mod{i}.py", b"") for i in range(50)], rewrites, verified=True, dropped=UNPROVEN)


def test_a_fix_body_with_many_long_rewrites_keeps_under_githubs_limit_and_readable() -> None:
    body = fix_body(_plan(), "main", "a" * 40)
    assert len(body) <= MAX_FIX_BODY < MAX_BODY
    assert all(f"| `pkg/mod{i}.py` | 10 | GM101 |" in body for i in range(50))  # the table is whole
    assert body.count("Before:") < 50 and "more rewrite(s) in the diff." in body  # snippets went first
    assert body.count("assumes x is a float tensor") == 25  # every assumption of an unsafe rewrite stays
    # What the bot and the approval read back is whole.
    assert is_fix_pr(body) and exclusions_in(body) == (UNPROVEN, "")
    verified = with_verification(body, "Verified on a GPU.")
    assert "Verified on a GPU." in verified and "Not verified" not in verified
    assert exclusions_in(verified) == (UNPROVEN, "") and is_fix_pr(verified)


def test_a_fix_body_cuts_its_table_when_even_the_rows_are_too_long() -> None:
    body = fix_body(_plan("Select `out` with torch.where " + "because " * 200), "main", "a" * 40)
    assert len(body) <= MAX_FIX_BODY
    assert "Before:" not in body and "| ... | | |" in body and "more in the diff |" in body
    assert is_fix_pr(body) and exclusions_in(body) == (UNPROVEN, "")


CHATTY = ("import torch\nfrom torch import nn\n\n\nclass Chatty(nn.Module):\n    def forward(self, x):\n"
          + "".join(f'        print("step {i}: {"-" * 1400}")\n' for i in range(50)) + "        return x + 1\n")


def test_a_fix_pull_request_of_many_long_rewrites_opens(tmp_path: Path, fake_github: FakeGitHub) -> None:
    world = RemoteWorld(tmp_path, fake_github, BASE, {**HEAD, "pkg/chatty.py": CHATTY})
    run = world.run(world.pull_request_event("pull_request.opened.json"), fix_pr="true")
    [fix] = world.fix_pulls()  # the fake, like GitHub, refuses a description over 65,536 characters
    assert len(fix["body"]) <= MAX_FIX_BODY and is_fix_pr(fix["body"]), run.stdout
    assert "more rewrite(s) in the diff" in fix["body"]


def test_a_refused_fix_pull_request_says_what_github_said(world: RemoteWorld) -> None:
    """The warning names GitHub's reason; permissions only when GitHub refused them (403)."""
    world.fake.fail("POST", r"/repos/[^/]+/[^/]+/pulls", 422, body_too_long("PullRequest"))
    run = world.run(world.pull_request_event("pull_request.opened.json"), fix_pr="true")
    [warning] = [line for line in run.stdout.splitlines() if "updating the fix pull request" in line]
    assert "422" in warning and "body is too long" in warning and "contents: write" not in warning
    world.fake.fail("POST", r"/repos/[^/]+/[^/]+/pulls", 403, {"message": "Resource not accessible by integration"})
    run = world.run(world.pull_request_event("pull_request.synchronize.json"), fix_pr="true")
    [warning] = [line for line in run.stdout.splitlines() if "updating the fix pull request" in line]
    assert "403" in warning and "contents: write" in warning


# review18 #5: the approval and the narrowing round write into a body fix_body built to fit; what
# they write grows with the fixes and reasons, so each edit is fitted again, never losing the record.
def _names(count: int) -> list[str]:
    return [f"src/pkg/models/model_{i}/modeling_model_{i}.py:{j}-{j}" for i in range(count // 10 + 1)
            for j in range(10)][:count]


def test_a_fix_body_edited_with_many_unproven_fixes_stays_under_the_limit_with_its_record() -> None:
    body = fix_body(_plan(), "main", "a" * 40)
    unproven = _names(400)
    edited = with_exclusions(body, [*UNPROVEN, *unproven])
    edited = with_verification(edited, NARROWED_VERIFICATION.format(
        sha="abcdef1", names=first_few([code_span(name) for name in unproven], MAX_NAMED)))
    assert len(edited) > MAX_BODY  # what was sent to GitHub before
    fitted_body = fitted(edited)
    assert len(fitted_body) <= MAX_BODY and is_fix_pr(fitted_body)
    assert exclusions_in(fitted_body) == (sorted({*UNPROVEN, *unproven}), "")
    assert "and 380 more" in fitted_body and "Before:" not in fitted_body
    assert "| `pkg/mod0.py` | 10 | GM101 |" in fitted_body  # rows go only after every snippet


def test_the_record_written_is_one_the_next_run_can_read() -> None:
    """More unproven fixes than the reader accepts (MAX_EXCLUDED): the record holds the first ones,
    and the next round finds the rest, rather than a record read back as malformed."""
    body = with_exclusions(fix_body(_plan(), "main", "a" * 40), _names(MAX_EXCLUDED + 500))
    names, problem = exclusions_in(body)
    assert (len(names), problem) == (MAX_EXCLUDED, "")
    assert len(fitted(body)) <= MAX_BODY and exclusions_in(fitted(body)) == (names, "")


def test_a_verdict_of_many_long_reasons_fits_the_review_and_the_description() -> None:
    reasons = [f"entry point {i}: {'outputs differ in a long way. ' * 120}" for i in range(200)]
    decision = Decision("REQUEST_CHANGES", reasons)
    assert len(verification_status(decision, "b" * 40)) < 2 * MAX_STATUS
    entries = [entry(name=f"pkg.model_{i}", verdict="worse: " + "slower " * 560) for i in range(200)]
    review = review_body(report(*entries), decision, "b" * 40)
    assert len(review) <= MAX_BODY and review.rstrip().endswith(VERIFY_MARKER)
    assert "more entry point(s) in the job's log" in review
