"""End to end: `/graphmend` commands in pull-request comments, from allowed and disallowed users."""

from __future__ import annotations

from pathlib import Path

import pytest
from botworld import APP_BOT, MEMBER, MY_APP, STRANGER, RemoteWorld
from fake_github import BOT_USER, FakeGitHub
from rendered_markdown import rendered_text, untrusted_markup
from test_github_e2e import BASE, HEAD
from world import NUMBER, REPO, BotRun

from graphmend_bot.github.commands import parse_command


@pytest.fixture
def world(tmp_path: Path, fake_github: FakeGitHub) -> RemoteWorld:
    return RemoteWorld(tmp_path, fake_github, BASE, HEAD)


def command(world: RemoteWorld, body: str, user: dict[str, object] = MEMBER,
            association: str = "MEMBER", on_pull: bool = True, **inputs: str) -> tuple[BotRun, int]:
    event = world.comment_event(body, user, association, on_pull)
    comment_id = world.fake.issue_comments[-1]["id"]
    empty = world.tmp / f"empty-{world.runs}"  # no checkout: the bot reads the head through the API
    empty.mkdir()
    return world.run(event, event_name="issue_comment", workspace=empty, **inputs), comment_id


@pytest.mark.parametrize("body", ["/graphmend fix", "/graphmend fix --push", "/graphmend scan",
                                  "/graphmend verify", "/graphmend accept-breaks", "/graphmend help"])
def test_disallowed_users_are_refused(world: RemoteWorld, body: str) -> None:
    head = world.remote.branch("changes")
    run, comment_id = command(world, body, STRANGER, "CONTRIBUTOR")
    assert run.returncode == 0, run.stdout + run.stderr
    assert world.reactions_on(comment_id) == ["-1"]
    [reply] = world.replies()
    assert "only users with write access" in reply and "@drive-by" in reply
    assert not world.fix_pulls() and not world.fake.dispatches and not world.fake.reviews
    assert world.remote.branch("changes") == head


def test_fix_opens_the_fix_pull_request(world: RemoteWorld) -> None:
    run, comment_id = command(world, "Thanks!\n/graphmend fix\n")
    assert run.returncode == 0, run.stdout + run.stderr
    [fix] = world.fix_pulls()
    assert fix["head"]["ref"] == "graphmend/fix/pr-2" and fix["base"]["ref"] == "changes"
    assert world.reactions_on(comment_id) == ["eyes", "+1"]
    assert any(f"Opened #{fix['number']}" in reply for reply in world.replies())
    mentions = [c for c in world.fake.issue_comments_on(REPO, NUMBER) if f"#{fix['number']}" in c["body"]]
    assert len(mentions) == 1  # the reply says it; no second announcement


def test_fix_push_commits_to_the_pull_request_branch(world: RemoteWorld) -> None:
    before = world.remote.branch("changes")
    run, comment_id = command(world, "/graphmend fix --push", MEMBER, "COLLABORATOR")
    assert run.returncode == 0, run.stdout + run.stderr
    after = world.remote.branch("changes")
    assert after != before and world.remote.git("rev-parse", f"{after}^") == before
    assert world.remote.git("show", "-s", "--format=%an", str(after)) == "graphmend[bot]"
    assert "torch.compiler.is_compiling()" in world.remote.show(str(after), "pkg/model.py")
    assert world.pull["head"]["sha"] == after and not world.fix_pulls()
    assert world.reactions_on(comment_id) == ["eyes", "+1"]
    assert any("Committed 2 safe rewrite(s) to `changes`" in reply for reply in world.replies())
    # The push it made comes back as a synchronize event from the bot: no new fix, no loop.
    again = world.run(world.pull_request_event("pull_request.synchronize.json", sender=APP_BOT), fix_pr="true",
                      bot_login=APP_BOT["login"])
    assert "the push came from the bot itself" in again.stdout and not world.fix_pulls()


def test_fix_push_is_refused_for_forks(world: RemoteWorld) -> None:
    world.pull["head"]["repo"] = {**world.pull["head"]["repo"], "full_name": "fork/Hello-World"}
    before = world.remote.branch("changes")
    _run, comment_id = command(world, "/graphmend fix --push", MEMBER, "OWNER")
    assert world.remote.branch("changes") == before
    assert world.reactions_on(comment_id) == ["eyes", "confused"]
    assert any("comes from a fork" in reply for reply in world.replies())


def test_scan_reviews_the_pull_request(world: RemoteWorld) -> None:
    run, comment_id = command(world, "/graphmend scan", MEMBER, "OWNER")
    assert run.returncode == 0, run.stdout + run.stderr
    [review] = world.fake.reviews_on(REPO, NUMBER)
    assert review["commit_id"] == world.head_sha and world.fake.comments_on(REPO, NUMBER)
    assert any("graphmend:summary" in c["body"] for c in world.fake.issue_comments_on(REPO, NUMBER))
    assert any("Checked 2 changed Python file(s)" in reply and "4 graph break(s)" in reply
               for reply in world.replies()), world.replies()
    assert world.reactions_on(comment_id) == ["eyes", "+1"]


def test_verify_on_a_contributors_pull_request_says_why_it_is_not_verified(world: RemoteWorld) -> None:
    # The verify workflow's preflight refuses every pull request but the App's own fix: the reply
    # says so, and nothing is dispatched to be refused there.
    run, comment_id = command(world, "/graphmend verify", bot_login=MY_APP["login"])
    assert run.returncode == 0, run.stdout + run.stderr
    assert world.fake.dispatches == [] and world.reactions_on(comment_id) == ["eyes", "confused"]
    [reply] = world.replies()
    assert "GPU verification was not started" in reply and "Started" not in reply
    seen = rendered_text(reply).replace("\u200b", "")  # as a reader sees it (the escaper's zero-width spaces)
    assert f"was opened by Codertocat, not by the bot's App {MY_APP['login']}" in seen
    assert untrusted_markup(reply) == []
    assert "`/graphmend fix` opens the one for this pull request" in reply
    world.pull["head"]["repo"] = {**world.pull["head"]["repo"], "full_name": "fork/Hello-World"}
    command(world, "/graphmend verify", bot_login=MY_APP["login"])
    assert world.fake.dispatches == [] and "never for forks" in world.replies()[-1]


def test_verify_dispatches_the_gpu_workflow_for_the_apps_fix_pull_request(world: RemoteWorld) -> None:
    world.pull["head"]["ref"], world.pull["user"] = "graphmend/fix/pr-1", dict(MY_APP)
    run, comment_id = command(world, "/graphmend verify", bot_login=MY_APP["login"])
    assert run.returncode == 0, run.stdout + run.stderr
    assert world.fake.dispatches == [{"workflow": "graphmend-verify.yml", "ref": "master",
                                      "inputs": {"pull-request": str(NUMBER)}}]
    assert "Started the GPU verification workflow" in world.replies()[-1]
    assert world.reactions_on(comment_id) == ["eyes", "+1"]


def test_help_unknown_and_hostile_text(world: RemoteWorld) -> None:
    run, comment_id = command(world, "/graphmend help")
    assert world.reactions_on(comment_id) == ["eyes", "+1"] and "`/graphmend fix --push`" in world.replies()[-1]
    marker = world.tmp / "pwned"
    for body in ("/graphmend frobnicate", f"/graphmend fix; touch {marker}", f"/graphmend fix $(touch {marker})",
                 "/graphmend fix --push`touch x`"):
        run, comment_id = command(world, body)
        assert run.returncode == 0, run.stdout + run.stderr
        assert world.reactions_on(comment_id) == ["eyes", "confused"]
        assert "GraphMend commands" in world.replies()[-1]  # the help
    assert not marker.exists() and not world.fix_pulls()


def test_ignored_comments(world: RemoteWorld) -> None:
    own, _ = command(world, "/graphmend fix", BOT_USER, "NONE")  # the bot's own comment (the token's account)
    quoted, _ = command(world, "> `/graphmend fix`\n\nOpened #3\n<!-- graphmend:reply -->", MEMBER, "MEMBER")
    chatter, _ = command(world, "looks good to me")
    on_issue, _ = command(world, "/graphmend fix", on_pull=False)
    assert all(r.returncode == 0 for r in (own, quoted, chatter, on_issue))
    assert not world.replies() and not world.fake.reactions and not world.fix_pulls()


def test_parse_command() -> None:
    assert parse_command("/graphmend fix --push") is not None
    fix = parse_command("please\n  /graphmend fix --push  \n")
    assert fix is not None and (fix.name, fix.flags) == ("fix", frozenset({"--push"}))
    bare = parse_command("/graphmend")
    assert bare is not None and bare.name == "help"
    bad = parse_command("/graphmend scan --push")
    assert bad is not None and bad.name == "" and "does not take" in bad.problem
    assert parse_command("/graphmendfix") is None and parse_command("no command") is None
    assert parse_command(None) is None
