"""Issue 25.2: "exactly the rewrite" is judged on git blobs, never on `git archive` output.

GitHub's tarball applies the commit's `.gitattributes`: `export-subst` writes commit data into a
file, `ident` expands `$Id$`, `text eol=crlf` turns LF into CRLF, a filter smudges (as GitHub's
"include Git LFS objects in archives" does). Read as the commit's files, that export let the App
commit a commit message into a fix, and the approval, recomputing from the same export, called it
GraphMend's rewrite. The fake GitHub builds its tarballs with real `git archive` on its bare
remote, so these tests see exactly what GitHub's archives do."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from approveworld import fix_pr_world, submit
from botworld import RemoteWorld
from fake_github import FakeGitHub
from test_github_approve import BRANCH, GOOD, MODEL, entry, report
from test_github_e2e import BASE, HEAD
from test_github_fix_after_review import review_completed, run_fix
from world import NUMBER, REPO

from graphmend_bot.github.core.api import connect
from graphmend_bot.github.core.archive import download_head
from graphmend_bot.github.core.blobs import blob_sha

SMUDGE = "sed -e 's/^# smudge: //'"  # the remote's filter driver: GitHub's archive runs it, blobs keep the line


@dataclass(frozen=True)
class Attribute:
    """A `.gitattributes` rule on a file, the line it acts on, and what `git archive` makes of the file."""

    rule: str
    line: str  # appended to the file
    export: Callable[[str, str], str]  # (committed text, the commit's message) -> the archive's text


ATTRIBUTES = {
    "export-subst": Attribute("export-subst", 'STAMP = "$Format:%s$"\n',
                              lambda text, message: text.replace("$Format:%s$", message)),
    "ident": Attribute("ident", "# $Id$\n",
                       lambda text, _: text.replace("$Id$", f"$Id: {blob_sha(text.encode())} $")),
    "text eol=crlf": Attribute("text eol=crlf", "", lambda text, _: text.replace("\n", "\r\n")),
    "filter": Attribute("filter=lfs", "# smudge: import os\n", lambda text, _: text.replace("# smudge: ", "")),
}


def attributed_world(tmp: Path, fake: FakeGitHub, attribute: Attribute, head: str) -> RemoteWorld:
    base = {".gitattributes": f"tinynet.py {attribute.rule}\n", "tinynet.py": MODEL.format(body=BRANCH) + attribute.line}
    world = fix_pr_world(tmp, fake, base, {"tinynet.py": head})
    world.remote.git("config", "filter.lfs.smudge", SMUDGE)
    return world


def commit_bytes_as_they_are(world: RemoteWorld) -> None:
    """The test's clone stores what it is given: no attribute converts on `git add` (the App writes
    blobs through the API, where none does either)."""
    (world.git.root / ".git" / "info" / "attributes").write_text("* -text -ident -filter\n")


def passing_report(tmp: Path) -> Path:
    path = tmp / "verify.json"
    path.write_text(json.dumps(report(entry())))
    return path


@pytest.mark.parametrize("name", sorted(ATTRIBUTES))
def test_the_rewrite_is_recomputed_from_the_committed_blobs(
        tmp_path: Path, fake_github: FakeGitHub, name: str) -> None:
    attribute = ATTRIBUTES[name]
    world = attributed_world(tmp_path, fake_github, attribute, MODEL.format(body=GOOD) + attribute.line)
    base_blob = world.remote.git("rev-parse", f"{world.base_sha}:tinynet.py")
    done = submit(world, passing_report(tmp_path))
    assert done.returncode == 0 and done.outputs["decision"] == "APPROVE", done.log
    # The one file the archive altered was read as its blob; nothing else was.
    assert fake_github.blob_reads == [base_blob]


@pytest.mark.parametrize("name", sorted(ATTRIBUTES))
def test_a_fix_made_of_archive_output_is_not_the_rewrite(tmp_path: Path, fake_github: FakeGitHub, name: str) -> None:
    attribute = ATTRIBUTES[name]
    world = attributed_world(tmp_path, fake_github, attribute, MODEL.format(body=GOOD) + attribute.line)
    # What a bot that read the archive commits: the rewrite of the export, not of the file.
    archived = attribute.export(MODEL.format(body=BRANCH) + attribute.line, "base")
    assert archived != MODEL.format(body=BRANCH) + attribute.line
    commit_bytes_as_they_are(world)
    world.push({"tinynet.py": archived.replace(attribute.export(BRANCH, "base"), attribute.export(GOOD, "base"))})
    done = submit(world, passing_report(tmp_path))
    assert done.returncode == 1 and done.outputs["decision"] == "COMMENT", done.log
    [review] = fake_github.reviews_on(REPO, NUMBER)
    assert review["state"] == "COMMENTED"
    assert "`tinynet.py` differs from GraphMend's rewrite of the base" in review["body"]


@pytest.mark.parametrize("name", sorted(ATTRIBUTES))
def test_the_app_commits_the_rewrite_of_the_blob_not_of_the_archive(
        tmp_path: Path, fake_github: FakeGitHub, name: str) -> None:
    attribute = ATTRIBUTES[name]
    head = {**HEAD, "pkg/model.py": HEAD["pkg/model.py"] + attribute.line,
            ".gitattributes": f"pkg/model.py {attribute.rule}\n"}
    fake_github.workflows = {"graphmend-verify.yml": {"pull-request"}, "graphmend.yml": None}
    world = RemoteWorld(tmp_path, fake_github, BASE, head)
    world.remote.git("config", "filter.lfs.smudge", SMUDGE)
    done = run_fix(world, review_completed(world))
    assert done.returncode == 0, done.stdout + done.stderr
    tip = world.remote.branch("graphmend/fix/pr-2")
    assert tip is not None
    committed = world.git.blob(world.head_sha, "pkg/model.py").decode()
    fixed = world.remote.git("cat-file", "blob", f"{tip}:pkg/model.py")
    assert fixed != committed.rstrip("\n")  # the fix rewrote something
    # Every line the fix changed is a line GraphMend rewrites; the attribute's line is untouched.
    changed = world.remote.git("diff", "--no-color", "-U0", world.head_sha, tip, "--", "pkg/model.py")
    assert "\r" not in fixed and "\r" not in changed
    if attribute.line:
        assert attribute.line.strip() in fixed and attribute.line.strip() not in changed


@pytest.mark.parametrize("truncated", [False, True])
def test_a_head_is_read_as_its_blobs_even_when_the_tree_listing_is_truncated(
        tmp_path: Path, fake_github: FakeGitHub, truncated: bool) -> None:
    attribute = ATTRIBUTES["export-subst"]
    head = {"pkg/model.py": HEAD["pkg/model.py"] + attribute.line, ".gitattributes": "*.py export-subst\n"}
    world = RemoteWorld(tmp_path, fake_github, BASE, head)
    fake_github.truncate_trees = truncated  # GitHub's answer for a very large tree: walked folder by folder
    repo = connect(fake_github.base_url, fake_github.token).get_repo(REPO)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    root = download_head(repo, world.head_sha, scratch)
    files = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}
    assert files == set(world.remote.git("ls-tree", "-r", "--name-only", world.head_sha).splitlines())
    for name in files:
        assert (root / name).read_bytes() == world.git.blob(world.head_sha, name), name
    assert "$Format:%s$" in (root / "pkg/model.py").read_text()
