"""`fail-on: new-breaks` against the fake GitHub: the trusted base census and the budget, rule by rule.

The head's census is the `census-file` input (written by the pull request's own job: untrusted,
matched to the head commit). The base census the gate trusts is one the bot finds itself: the
artifact of a completed `push` or `schedule` run of the census workflow, on the default branch of
this repository, at the pull request's base commit or the merge-base (docs/security.md, "The base
census"). Each rule has a case below where only that rule is broken, and the gate must then fail
(an unknown base is never clean) and say which rule refused the run. The budget is read from the
base commit, never from the head.
"""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
from botworld import MEMBER, STRANGER, RemoteWorld
from fake_github import FakeGitHub, add_workflow_run
from test_github_e2e import BASE, HEAD
from world import NUMBER, REPO

from graphmend_bot.census.budget import budget_from
from graphmend_bot.census.record import BreakRecord, Census

CENSUS = "downloaded/graphmend-census.json"
WORKFLOW = "graphmend-census.yml"
KEPT = BreakRecord("pkg/model.py", 20, "Logger method not supported", "GB0291", ["tests/test_m.py::test_net"],
                   "Net.forward", "logger.info(\"forward\")")
ADDED = BreakRecord("pkg/model.py", 30, "Data-dependent branching", "GB0170", ["tests/test_m.py::test_net"],
                    "Net.forward", "if x.sum() > 0:")


@pytest.fixture
def world(tmp_path: Path, fake_github: FakeGitHub) -> RemoteWorld:
    return RemoteWorld(tmp_path, fake_github, BASE, HEAD)


def census_json(commit: str, *breaks: BreakRecord) -> str:
    return Census(commit=commit, breaks=list(breaks)).to_json()


def census_zip(text: str, extra: dict[str, str] | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("graphmend-census.json", text)
        for name, data in (extra or {}).items():
            archive.writestr(name, data)
    return buffer.getvalue()


def head_census(world: RemoteWorld, *breaks: BreakRecord) -> None:
    path = world.git.root / CENSUS
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(census_json(world.head_sha, *breaks), encoding="utf-8")


def gate(world: RemoteWorld, **inputs: str) -> Any:
    run = world.run(world.event("pull_request.opened.json"), fail_on="new-breaks", census_file=CENSUS,
                    census_base_workflow=WORKFLOW, **inputs)
    assert "Traceback" not in run.stdout + run.stderr, run.stdout + run.stderr
    return run


def summary(fake: FakeGitHub) -> str:
    [body] = [c["body"] for c in fake.issue_comments_on(REPO, NUMBER) if "graphmend:summary" in c["body"]]
    return body.replace("\u200b", "")  # read as GitHub shows it: the escaper breaks hex runs (commit SHAs)


def test_a_trusted_base_gates_the_added_break_and_the_summary_lists_it(world: RemoteWorld) -> None:
    add_workflow_run(world.fake, REPO, world.base_sha, artifacts={"graphmend-census": census_zip(
        census_json(world.base_sha, KEPT))})
    head_census(world, KEPT, ADDED)
    run = gate(world)
    assert run.returncode == 1, run.stdout + run.stderr
    body = summary(world.fake)
    assert "### Graph breaks in this PR (Dynamo census): +1 / -0" in body
    assert f"| + | [`pkg/model.py:30`](https://github.com/{REPO}/blob/{world.head_sha}/pkg/model.py#L30) | " \
           "Data-dependent branching | [GB0170](" in body
    assert f"of {WORKFLOW} on master at {world.base_sha[:12]}" in body
    assert "**`fail-on: new-breaks` fails this check**: 1 graph break(s) added" in body

    head_census(world, KEPT)  # the same head census without the added break: the gate passes
    assert gate(world).returncode == 0


def test_the_merge_base_run_is_trusted_when_the_base_moved_on(world: RemoteWorld) -> None:
    """The default branch moved on after the pull request branched and its census has not run on the new
    tip yet: the run at the merge-base (where the pull request started) is the base."""
    add_workflow_run(world.fake, REPO, world.base_sha, event="schedule",
                     artifacts={"graphmend-census": census_zip(census_json(world.base_sha, KEPT))})
    world.git.git("checkout", "-q", "master")
    moved = world.git.commit({"README.md": "# Hello, again\n"}, "the default branch moves on")
    world.git.git("push", "-q", str(world.remote.path), "master")
    world.git.git("checkout", "-q", "changes")
    world.pull["base"]["sha"] = moved
    head_census(world, KEPT, ADDED)
    run = gate(world)
    assert run.returncode == 1, run.stdout + run.stderr
    assert f"on master at {world.base_sha[:12]}" in summary(world.fake) and "+1 / -0" in summary(world.fake)


RULES: dict[str, tuple[dict[str, Any], str]] = {
    # rule 1: the named census workflow of this repository
    "another-workflow": ({"workflow": "ci.yml"}, "is of '.github/workflows/ci.yml', not .github/workflows/"),
    "a-fork's-run": ({"head_repo": "attacker/Hello-World"}, "ran on attacker/Hello-World, not Codertocat/Hello-World"),
    # rule 2: push or schedule, on the default branch
    "pull_request-event": ({"event": "pull_request"}, "was triggered by 'pull_request', not by a push or a schedule"),
    "pull_request_target-event": ({"event": "pull_request_target"}, "was triggered by 'pull_request_target'"),
    "another-branch": ({"branch": "changes"}, "ran on the branch 'changes', not the default branch 'master'"),
    # rule 3: pinned to the base commit, by the run and by the artifact's own record
    "artifact-of-another-commit": ({"artifact_sha": "f" * 40}, "does not name run"),
    # rule 4: completed, not expired
    "expired-artifact": ({"expired": True}, "has no unexpired artifact 'graphmend-census'"),
}


@pytest.mark.parametrize("case", sorted(RULES))
def test_a_run_that_breaks_one_rule_is_not_a_trusted_base_and_the_gate_fails(world: RemoteWorld, case: str) -> None:
    changes, refusal = RULES[case]
    add_workflow_run(world.fake, REPO, world.base_sha, artifacts={"graphmend-census": census_zip(
        census_json(world.base_sha, KEPT))}, **changes)
    head_census(world, KEPT)  # nothing added: only the missing trusted base can fail the gate
    run = gate(world)
    assert run.returncode == 1, run.stdout + run.stderr
    assert refusal in run.stdout + run.stderr
    assert "no trusted base to compare the head" in summary(world.fake)


def test_a_run_on_another_commit_is_never_looked_at(world: RemoteWorld) -> None:
    """Rule 3 by the run's own record: the API filter is by head_sha, and the record is checked again."""
    add_workflow_run(world.fake, REPO, "e" * 40, artifacts={"graphmend-census": census_zip(
        census_json("e" * 40, KEPT))})
    head_census(world, KEPT)
    run = gate(world)
    assert run.returncode == 1
    assert "no completed push or schedule run of graphmend-census.yml on master at the base" in run.stdout + run.stderr


@pytest.mark.parametrize("archive, refusal", [
    (lambda sha: census_zip(census_json(sha, KEPT), {"evil.sh": "rm -rf /"}), "must hold graphmend-census.json alone"),
    (lambda sha: census_zip(census_json("d" * 40, KEPT)), "the census was recorded on commit dddddddddddd"),
    (lambda sha: b"not a zip", "is not a readable zip"),
], ids=["extra-member", "census-of-another-commit", "corrupt"])
def test_rule_5_the_artifact_holds_one_census_of_that_commit(world: RemoteWorld, archive: Any, refusal: str) -> None:
    add_workflow_run(world.fake, REPO, world.base_sha, artifacts={"graphmend-census": archive(world.base_sha)})
    head_census(world, KEPT)
    run = gate(world)
    assert run.returncode == 1 and refusal in run.stdout + run.stderr


def test_a_base_census_file_from_the_pull_request_never_passes_the_gate(world: RemoteWorld) -> None:
    """`census-base` is a file in the workspace, which the pull request's job can write: it informs the
    table and the gate still has no trusted base."""
    head_census(world, KEPT, ADDED)
    forged = world.git.root / "downloaded" / "base.json"
    forged.write_text(census_json("b" * 40, KEPT, ADDED))
    run = world.run(world.event("pull_request.opened.json"), fail_on="new-breaks", census_file=CENSUS,
                    census_base="downloaded/base.json")
    assert run.returncode == 1, run.stdout + run.stderr
    body = summary(world.fake)
    assert "+0 / -0" in body and "untrusted, it informs this table and never the gate" in body
    assert "no trusted base to compare the head" in body


def test_the_budget_is_read_from_the_base_never_from_the_head(world: RemoteWorld) -> None:
    add_workflow_run(world.fake, REPO, world.base_sha, artifacts={"graphmend-census": census_zip(
        census_json(world.base_sha, KEPT))})
    # The pull request adds a break and a budget that expects it: its own budget does not count.
    world.push({"graphmend-breaks.json": budget_from([KEPT, ADDED])})
    head_census(world, KEPT, ADDED)
    run = gate(world)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "+1 / -0" in summary(world.fake)


def test_a_budget_at_the_base_accepts_the_break_it_expects(tmp_path: Path, fake_github: FakeGitHub) -> None:
    world = RemoteWorld(tmp_path, fake_github, {**BASE, "graphmend-breaks.json": budget_from([KEPT, ADDED])}, HEAD)
    head_census(world, KEPT, ADDED)
    # no base census at all: the budget alone judges, as PyTorch's expected-breaks check
    run = world.run(world.event("pull_request.opened.json"), fail_on="new-breaks", census_file=CENSUS)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "2 new break(s) are in the budget" in summary(fake_github)  # no base: every break is "new"

    budget = json.loads(budget_from([KEPT]))
    assert [entry["kind"] for entry in budget["breaks"]] == ["GB0291"] and "line" in budget["breaks"][0]
    assert asdict(KEPT)["line"] == budget["breaks"][0]["line"]


def accept_command(world: RemoteWorld, user: dict[str, object] = MEMBER) -> Any:
    event = world.comment_event("/graphmend accept-breaks", user, "MEMBER", True)
    empty = world.tmp / f"empty-{world.runs}"  # no checkout: the bot reads everything through the API
    empty.mkdir()
    return world.run(event, event_name="issue_comment", workspace=empty)


def test_accept_breaks_commits_the_head_census_as_the_budget_on_the_branch(world: RemoteWorld) -> None:
    add_workflow_run(world.fake, REPO, world.head_sha, event="pull_request", branch="changes", workflow="graphmend.yml",
                     artifacts={"graphmend-census": census_zip(census_json(world.head_sha, KEPT, ADDED))})
    before = world.remote.branch("changes")
    run = accept_command(world)
    assert run.returncode == 0, run.stdout + run.stderr
    after = world.remote.branch("changes")
    assert after != before and world.remote.git("rev-parse", f"{after}^") == before  # fast-forward
    assert world.remote.show(after, "graphmend-breaks.json") == budget_from([KEPT, ADDED]).rstrip("\n")
    assert any("Committed `graphmend-breaks.json` with 2 expected graph break(s)" in r for r in world.replies())


def test_accept_breaks_without_a_census_of_the_head_commits_nothing(world: RemoteWorld) -> None:
    # a census of another commit (an older push of the branch) is not the head's
    add_workflow_run(world.fake, REPO, "e" * 40, event="pull_request", branch="changes",
                     artifacts={"graphmend-census": census_zip(census_json("e" * 40, KEPT, ADDED))})
    before = world.remote.branch("changes")
    run = accept_command(world)
    assert run.returncode == 0, run.stdout + run.stderr
    assert world.remote.branch("changes") == before
    assert any(f"No census of `{world.head_sha[:7]}` to accept" in r for r in world.replies())


def test_accept_breaks_from_a_user_without_write_access_commits_nothing(world: RemoteWorld) -> None:
    add_workflow_run(world.fake, REPO, world.head_sha, event="pull_request", branch="changes",
                     artifacts={"graphmend-census": census_zip(census_json(world.head_sha, KEPT, ADDED))})
    before = world.remote.branch("changes")
    run = accept_command(world, STRANGER)  # the payload says MEMBER: only the permission API counts
    assert run.returncode == 0 and world.remote.branch("changes") == before
    assert any("only users with write access" in r for r in world.replies())


def test_a_pull_request_without_python_changes_is_still_gated(tmp_path: Path, fake_github: FakeGitHub) -> None:
    """Data or configuration can add graph breaks too: the census table and the gate do not depend on
    the pull request changing a Python file."""
    world = RemoteWorld(tmp_path, fake_github, BASE, {"README.md": "# Hello, data\n"})
    add_workflow_run(fake_github, REPO, world.base_sha, artifacts={"graphmend-census": census_zip(
        census_json(world.base_sha, KEPT))})
    head_census(world, KEPT, ADDED)
    run = gate(world)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "changes no Python files" in run.stdout and "+1 / -0" in summary(fake_github)
