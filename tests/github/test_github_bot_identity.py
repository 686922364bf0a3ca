"""Issue 25.5: the bot knows itself by the account its token acts as (GraphQL `viewer`: login and
user id), or the `bot-login` input; never by a login prefix. A repository's own App,
`my-graphmend[bot]` as docs/security.md names it, is the bot; another App whose login merely starts
with "graphmend" is not."""

from __future__ import annotations

from pathlib import Path

from botworld import MY_APP, RemoteWorld
from fake_github import FakeGitHub
from test_github_e2e import BASE, HEAD
from test_github_fix_after_review import review_completed, run_fix
from test_github_narrowing import BASE as NARROW_BASE
from test_github_narrowing import BROKEN, EVERY_CALL, SLOW, _slow_fix
from test_github_narrowing import FIXED as NARROW_FIXED

from graphmend_bot.github.core.identity import BotIdentity
from graphmend_bot.github.fixes.narrowing import with_exclusions

APP_TOKEN = "ghs_my_app_installation"
LOOKALIKE = {"login": "graphmend-lookalike[bot]", "id": 66600666, "type": "Bot", "site_admin": False}


def app_world(tmp: Path, fake: FakeGitHub, base: dict[str, str], head: dict[str, str]) -> RemoteWorld:
    fake.users[APP_TOKEN] = dict(MY_APP)  # the fix workflow's token: the App's installation token
    return RemoteWorld(tmp, fake, base, head)


def test_identity_is_the_account_not_a_name_prefix() -> None:
    app = BotIdentity(MY_APP["login"], MY_APP["id"])
    assert app.wrote(MY_APP) and app.wrote({**MY_APP, "login": "My-GraphMend[bot]"})
    assert not app.wrote(LOOKALIKE) and not app.wrote({"login": "graphmend[bot]", "id": 41898999})
    assert not app.wrote({**MY_APP, "id": 1})  # the id decides where both sides know it
    assert BotIdentity(MY_APP["login"]).wrote(MY_APP)  # the `bot-login` input alone: the whole login
    assert not BotIdentity().wrote(MY_APP) and not BotIdentity().is_own_actor(LOOKALIKE)
    assert BotIdentity().is_own_actor({"login": "github-actions[bot]", "id": 41898282})


def test_the_apps_own_push_starts_no_new_fix_and_a_lookalikes_does(tmp_path: Path, fake_github: FakeGitHub) -> None:
    world = app_world(tmp_path, fake_github, BASE, HEAD)
    own = world.run(world.pull_request_event("pull_request.synchronize.json", sender=MY_APP), token=APP_TOKEN,
                    fix_pr="true")
    assert "the push came from the bot itself" in own.stdout, own.stdout + own.stderr
    assert not world.fix_pulls()
    other = world.run(world.pull_request_event("pull_request.synchronize.json", sender=LOOKALIKE), token=APP_TOKEN,
                      fix_pr="true")
    assert "the push came from the bot itself" not in other.stdout, other.stdout
    [fix] = world.fix_pulls()
    assert fix["user"]["login"] == MY_APP["login"]


def test_a_review_run_the_app_started_starts_no_new_fix(tmp_path: Path, fake_github: FakeGitHub) -> None:
    fake_github.workflows = {"graphmend-verify.yml": {"pull-request"}, "graphmend.yml": None}
    world = app_world(tmp_path, fake_github, BASE, HEAD)
    own = run_fix(world, review_completed(world, triggering_actor=MY_APP, actor=MY_APP), github_token=APP_TOKEN)
    assert "no loops" in own.stdout and not world.fix_pulls(), own.stdout + own.stderr
    other = run_fix(world, review_completed(world, triggering_actor=LOOKALIKE, actor=LOOKALIKE),
                    github_token=APP_TOKEN)
    assert "no loops" not in other.stdout and len(world.fix_pulls()) == 1, other.stdout + other.stderr


def test_the_apps_recorded_unproven_fixes_are_left_out(tmp_path: Path, fake_github: FakeGitHub) -> None:
    """The approval records unproven fixes in the App's fix pull request; the App's next run must
    read them as its own record, or it would put the unproven fix back for ever."""
    world = app_world(tmp_path, fake_github, NARROW_BASE, {"pkg/model.py": BROKEN})
    world.run(world.pull_request_event("pull_request.opened.json"), token=APP_TOKEN, fix_pr="true", fixes="verified")
    [fix] = world.fix_pulls()
    tip = world.remote.branch("graphmend/fix/pr-2")
    assert fix["user"]["login"] == MY_APP["login"] and tip is not None
    assert world.remote.show(tip, "pkg/model.py") == NARROW_FIXED.rstrip("\n")
    fix["body"] = with_exclusions(fix["body"], [_slow_fix()])
    done = world.run(world.pull_request_event("pull_request.synchronize.json"), token=APP_TOKEN, fix_pr="true",
                     fixes="verified")
    tip = world.remote.branch("graphmend/fix/pr-2")
    assert tip is not None
    narrowed = world.remote.show(tip, "pkg/model.py")
    assert EVERY_CALL in narrowed and SLOW not in narrowed, done.stdout + done.stderr
