"""The review compares the head with its base's solve (review10 #3): a break the pull request causes
through data flow, in a file it never touched, is new and blamed on the changed call; one the base
had is not; one that goes away is counted as removed; one moved to another file is new there and
removed where it was, as Dynamo's census counts it. Dynamo's word on the data-flow case is measured
here on both commits (`torch._dynamo.explain`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import torch
from fake_github import FakeGitHub
from gitrepo import GitRepo
from test_github_added_calls import posted_through_a_fork
from world import NUMBER, REPO, PullRequestWorld

from graphmend_bot.analysis.files import MAX_FILE_BYTES
from graphmend_bot.config import Config
from graphmend_bot.engine import check_change
from graphmend_bot.github.review.base_texts import MAX_API_READS, decoded, texts_from_patches
from graphmend_bot.github.review.bundle import BundleError, read_bundle

OPS = '''\
import torch


def scale(x, k):
    if k > 0:
        return x * k
    return x
'''
NET = '''\
import torch
from torch import nn

from pkg.ops import scale


class Net(nn.Module):
    def forward(self, x):
        y = scale(x, 3)
        return y + 1
'''
BASE = {"pkg/__init__.py": "", "pkg/ops.py": OPS, "pkg/net.py": NET}
TENSOR_ARGUMENT = {"pkg/net.py": NET.replace("scale(x, 3)", "scale(x, x.sum())")}  # line 9; ops.py untouched
BRANCH = ("pkg/ops.py", 5)  # `if k > 0:`

EXPLAIN = '''\
import json, sys
import torch
sys.path.insert(0, ".")
from pkg.net import Net
explained = torch._dynamo.explain(Net())(torch.randn(4))
print(json.dumps([[r.reason, [["/".join(f.filename.split("/")[-2:]), f.lineno] for f in r.user_stack]]
                  for r in explained.break_reasons]))
'''


def review_json(root: Path, base: str) -> dict[str, Any]:
    local = subprocess.run([sys.executable, "-m", "graphmend_bot.cli", "review", "--base", base, "--output-format",
                            "json"], cwd=root, capture_output=True, text=True, timeout=300)
    assert local.returncode in (0, 1), local.stderr
    assert "Traceback" not in local.stderr
    return json.loads(local.stdout)


def dynamo_breaks(world: PullRequestWorld, sha: str) -> list[tuple[str, list[tuple[str, int]]]]:
    """Dynamo's break reasons for `Net()(torch.randn(4))` at `sha`: (reason, user stack as path, line)."""
    world.git.checkout(sha)
    done = subprocess.run([sys.executable, "-c", EXPLAIN], cwd=world.git.root, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return [(reason, [(path, line) for path, line in stack]) for reason, stack in json.loads(done.stdout)]


def test_a_changed_argument_that_makes_an_unchanged_function_break_is_new(tmp_path: Path,
                                                                          fake_github: FakeGitHub) -> None:
    world = PullRequestWorld(tmp_path, fake_github, BASE, TENSOR_ARGUMENT)
    run = world.run(world.event("pull_request.opened.json"))
    assert "Traceback" not in run.stderr
    [comment] = fake_github.comments_on(REPO, NUMBER)
    assert (comment["path"], comment["line"]) == ("pkg/net.py", 9)
    assert comment["body"].startswith("**GM101** since this change, `scale`, which this call reaches, breaks at "
                                      "pkg/ops.py:5: `if` condition depends on tensor values")
    assert "pre-existing" not in comment["body"].lower() and "graph break [GB0170]" in comment["body"]
    assert any(a.startswith("::warning file=pkg/ops.py,line=5,") for a in run.annotations)
    [summary] = [c["body"] for c in fake_github.issue_comments_on(REPO, NUMBER) if "graphmend:summary" in c["body"]]
    assert "1 new with this pull request (its base commit does not have them); 0 pre-existing" in summary

    document = review_json(world.git.root, world.base_sha)  # `graphmend review` says the same
    assert [(c["path"], c["line"]) for c in document["review"]["comments"]] == [("pkg/net.py", 9)]
    assert [(a["path"], a["line"], a["code"]) for a in document["annotations"]] == [(*BRANCH, "GM101")]
    assert (document["findings"], document["new"], document["new_on_added_lines"], document["removed"]) == (1, 1, 1, [])

    # Dynamo: the base does not break; the head breaks at the branch, a data-dependent one (GB0170).
    assert dynamo_breaks(world, world.base_sha) == []
    head = dynamo_breaks(world, world.head_sha)
    assert head and all(stack[-1] == BRANCH for _, stack in head)
    gb_types = {reason.split("\n", 1)[0] for reason, _ in head}
    assert "Data-dependent branching" in gb_types
    registry = json.loads((Path(torch.__file__).parent / "_dynamo" / "graph_break_registry.json").read_text("utf-8"))
    assert any(entry["Gb_type"] == "Data-dependent branching" for entry in registry["GB0170"])  # the finding's id


def test_a_forks_posted_review_carries_the_comment_at_the_changed_call(tmp_path: Path,
                                                                       fake_github: FakeGitHub) -> None:
    world = PullRequestWorld(tmp_path, fake_github, BASE, TENSOR_ARGUMENT)
    [comment] = posted_through_a_fork(world, tmp_path)
    assert comment["line"] == 9 and "breaks at pkg/ops.py:5" in comment["body"]
    assert "pre-existing" not in comment["body"].lower()


def test_an_edit_that_leaves_the_data_flow_alone_brings_nothing_new(tmp_path: Path,
                                                                    fake_github: FakeGitHub) -> None:
    world = PullRequestWorld(tmp_path, fake_github, BASE, {"pkg/net.py": NET.replace("scale(x, 3)", "scale(x, 4)")})
    document = review_json(world.git.root, world.base_sha)
    assert (document["findings"], document["review"]["comments"], document["removed"]) == (0, [], [])


def test_a_break_the_base_already_had_is_not_new(tmp_path: Path, fake_github: FakeGitHub) -> None:
    """The argument was a tensor already: the edited call changes nothing the branch sees."""
    base = {**BASE, **TENSOR_ARGUMENT}
    head = {"pkg/net.py": NET.replace("scale(x, 3)", "scale(x, x.sum() + 1)")}
    world = PullRequestWorld(tmp_path, fake_github, base, head)
    document = review_json(world.git.root, world.base_sha)
    assert (document["findings"], document["review"]["comments"], document["removed"]) == (0, [], [])
    world.run(world.event("pull_request.opened.json"))
    assert fake_github.comments_on(REPO, NUMBER) == []


def test_a_break_the_change_removes_is_counted_as_removed(tmp_path: Path, fake_github: FakeGitHub) -> None:
    world = PullRequestWorld(tmp_path, fake_github, {**BASE, **TENSOR_ARGUMENT}, {"pkg/net.py": NET})
    document = review_json(world.git.root, world.base_sha)
    assert document["findings"] == 0
    assert [(r["path"], r["line"], r["code"]) for r in document["removed"]] == [(*BRANCH, "GM101")]
    run = world.run(world.event("pull_request.opened.json"))
    assert "1 graph break(s) the base commit has are gone with this pull request" in run.summary
    assert "`pkg/ops.py:5` GM101" in run.summary


UTILS = '''\
import torch


def helper(x):
    print("hi")
    return x + 1
'''
CALLER = '''\
import torch
from torch import nn

from pkg.utils import helper


class Net(nn.Module):
    def forward(self, x):
        return helper(x)
'''


def test_a_break_moved_to_another_file_is_new_there_and_removed_where_it_was(tmp_path: Path,
                                                                             fake_github: FakeGitHub) -> None:
    """As Dynamo's census matches breaks (census/fingerprint.py: the file is part of a break's identity)."""
    base = {"pkg/__init__.py": "", "pkg/utils.py": UTILS, "pkg/net.py": CALLER}
    head = {"pkg/utils.py": "import torch\n", "pkg/helpers.py": UTILS,
            "pkg/net.py": CALLER.replace("pkg.utils", "pkg.helpers")}
    world = PullRequestWorld(tmp_path, fake_github, base, head)
    document = review_json(world.git.root, world.base_sha)
    assert [(c["path"], c["line"]) for c in document["review"]["comments"]] == [("pkg/helpers.py", 5)]
    assert (document["findings"], document["new_on_added_lines"]) == (1, 1)
    assert [(r["path"], r["line"], r["code"]) for r in document["removed"]] == [("pkg/utils.py", 5, "GM401")]


def test_a_break_moved_within_its_function_is_pre_existing(tmp_path: Path, fake_github: FakeGitHub) -> None:
    """The `.item()` line is an added line of the diff (moved below another), yet the base had it."""
    model = '''\
import torch
from torch import nn


class Net(nn.Module):
    def forward(self, x):
        n = x.sum().item()
        y = x * 2
        return y + n
'''
    moved = model.replace("        n = x.sum().item()\n        y = x * 2\n", "        y = x * 2\n        n = x.sum().item()\n")
    world = PullRequestWorld(tmp_path, fake_github, {"pkg/__init__.py": "", "pkg/model.py": model},
                             {"pkg/model.py": moved})
    document = review_json(world.git.root, world.base_sha)
    [comment] = document["review"]["comments"]
    assert comment["line"] == 8 and "**Pre-existing**" in comment["body"]
    assert (document["new_on_added_lines"], document["pre_existing_on_context_lines"], document["removed"]) == \
        (0, 1, [])


def test_without_patches_the_bot_reads_the_base_through_the_api(tmp_path: Path, fake_github: FakeGitHub) -> None:
    """GitHub leaves the patch out of a large diff: no line can carry a comment, yet the base (read
    at its commit through the contents API) still tells the branch's break is new, and says why."""
    world = PullRequestWorld(tmp_path, fake_github, BASE, TENSOR_ARGUMENT)
    for entry in fake_github.files[(REPO, NUMBER)]:
        entry.pop("patch")
    run = world.run(world.event("pull_request.opened.json"))
    assert "Traceback" not in run.stderr
    [branch] = [a for a in run.annotations if a.startswith("::warning file=pkg/ops.py,line=5,")]
    assert "new with this change, though no changed call reaches it: see the changes to pkg/net.py" in branch


def test_the_base_is_not_read_through_the_api_past_a_bound(tmp_path: Path) -> None:
    reads: list[str] = []

    def read_at_base(path: str) -> bytes | None:
        reads.append(path)
        return b"x = 1\n"

    (tmp_path / "a.py").write_text("x = 2\n", encoding="utf-8")
    files = [("a.py", "modified", None, 1)] * (MAX_API_READS + 1)
    assert texts_from_patches(tmp_path, files, read_at_base) is None
    assert len(reads) == MAX_API_READS
    assert texts_from_patches(tmp_path, [("a.py", "modified", "@@ -1 +1 @@\n-x = 1\n+x = 2", 2),
                                         ("b.py", "added", "@@ -0,0 +1 @@\n+y = 1", 1),
                                         ("c.py", "renamed", None, 0)], read_at_base) == \
        {"a.py": "x = 1\n", "b.py": None, "c.py": None}


def api_files(entries: list[dict[str, Any]]) -> list[tuple[str, str, str | None, int | None]]:
    """`GET /pulls/{n}/files` entries as the bot hands them to texts_from_patches (PyGithub's File)."""
    return [(e["filename"], e["status"], e.get("patch"), e.get("changes")) for e in entries]


def test_an_edited_rename_without_a_patch_is_read_at_the_base(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """GitHub leaves a large diff's patch out, a renamed file's too: only `changes` 0 says the head
    is the base text; an edited rename is read at the base, so the break it adds is new (review15 #3)."""
    git = GitRepo(tmp_path)
    clean = UTILS.replace('    print("hi")\n', "")
    base = git.commit({"pkg/__init__.py": "", "pkg/utils.py": clean, "pkg/net.py": CALLER}, "base")
    head = git.commit({"pkg/utils.py": None, "pkg/tools.py": UTILS, "pkg/net.py": CALLER.replace("pkg.utils", "pkg.tools")},
                      "rename and edit")
    entries = git.pull_files(base, head)
    renamed = {e["filename"]: e["previous_filename"] for e in entries if e["status"] == "renamed"}
    assert renamed == {"pkg/tools.py": "pkg/utils.py"}
    for entry in entries:
        entry.pop("patch")  # a large diff
    reads: list[str] = []

    def read_at_base(path: str) -> bytes | None:
        reads.append(path)
        return git.blob(base, path)

    texts = texts_from_patches(tmp_path, api_files(entries), read_at_base, renamed)
    assert texts is not None and texts["pkg/utils.py"] == clean and texts["pkg/tools.py"] is None
    changed = [e["filename"] for e in entries]
    monkeypatch.chdir(tmp_path)
    result = check_change(["."], Config(), changed, {path: set() for path in changed}, None, {}, {}, texts,
                          {"pkg/utils.py": "pkg/tools.py"})
    assert result.base is not None
    assert [(f.path, f.code) for f in result.findings if f.fingerprint not in result.base.fingerprints] == \
        [("pkg/tools.py", "GM401")]
    # A pure rename (no changed line) is the head's text: no read.
    reads.clear()
    pure = git.commit({"pkg/tools.py": clean}, "undo the edit")
    entries = [e for e in git.pull_files(base, pure) if e["status"] == "renamed"]
    assert [e["changes"] for e in entries] == [0]
    assert texts_from_patches(tmp_path, api_files(entries), read_at_base, renamed) == \
        {"pkg/tools.py": None, "pkg/utils.py": clean}
    assert reads == []


@pytest.mark.parametrize("listing", ["rename-first", "added-first", "swap"])
def test_a_renamed_files_base_text_survives_a_new_file_at_its_old_path(tmp_path: Path, listing: str) -> None:
    """z.py renamed to a.py, and a new z.py (or a.py renamed back to z.py): z.py's base text is the
    renamed file's, whichever entry the API lists first (review15 #6)."""
    (tmp_path / "a.py").write_text(UTILS, encoding="utf-8")
    (tmp_path / "z.py").write_text("import torch\n", encoding="utf-8")
    rename = {"filename": "a.py", "status": "renamed", "previous_filename": "z.py", "additions": 0, "deletions": 0,
              "changes": 0}
    added = {"filename": "z.py", "status": "added", "additions": 1, "deletions": 0, "changes": 1,
             "patch": "@@ -0,0 +1 @@\n+import torch"}
    back = {"filename": "z.py", "status": "renamed", "previous_filename": "a.py", "additions": 0, "deletions": 0,
            "changes": 0}
    entries, renamed, expected = {
        "rename-first": ([rename, added], {"a.py": "z.py"}, {"a.py": None, "z.py": UTILS}),
        "added-first": ([added, rename], {"a.py": "z.py"}, {"a.py": None, "z.py": UTILS}),
        "swap": ([rename, back], {"a.py": "z.py", "z.py": "a.py"}, {"a.py": "import torch\n", "z.py": UTILS}),
    }[listing]

    def read_at_base(path: str) -> bytes | None:
        raise AssertionError(f"{path} needs no read")

    assert texts_from_patches(tmp_path, api_files(entries), read_at_base, renamed) == expected


def test_base_bytes_are_decoded_as_python_reads_source() -> None:
    assert decoded("# -*- coding: latin-1 -*-\nname = 'é'\n".encode("latin-1")) == "# -*- coding: latin-1 -*-\nname = 'é'\n"
    assert decoded(b"\xff\xfe not utf-8") is None
    assert decoded(b"x = 1\0") is None  # binary
    assert decoded(b"#" * (MAX_FILE_BYTES + 1)) is None
    assert decoded(None) is None


def test_a_bundles_base_is_validated(tmp_path: Path) -> None:
    """The base's comparison a fork's bundle carries is untrusted: well-formed fingerprints and
    findings of known rules only."""
    path = tmp_path / "bundle.json"

    def read(base: Any) -> Any:
        path.write_text(json.dumps({"version": 1, "repository": REPO, "pull_request": NUMBER, "head_sha": "a" * 40,
                                    "findings": [], "base": base}), "utf-8")
        return read_bundle(path).result.base

    assert read(None) is None
    assert read({"fingerprints": ["0123456789abcdef"], "removed": []}).fingerprints == {"0123456789abcdef"}
    for bad in ({"fingerprints": ["<img src=x>"], "removed": []}, {"fingerprints": [], "removed": "x"},
                {"fingerprints": [], "removed": [{"code": "XX999"}]}, [], {"fingerprints": ["0" * 16] * 5001}):
        with pytest.raises(BundleError):
            read(bad)


def test_a_change_outside_the_program_does_not_solve_the_base(tmp_path: Path, fake_github: FakeGitHub) -> None:
    """A script nothing traced imports cannot change what traced code receives: the base is not solved
    (no `removed` list), and nothing is new."""
    script = "import json\n\n\ndef main():\n    print(json.dumps({}))\n"
    world = PullRequestWorld(tmp_path, fake_github, {**BASE, "tools/report.py": script},
                             {"tools/report.py": script.replace("{}", "{'a': 1}")})
    document = review_json(world.git.root, world.base_sha)
    assert (document["findings"], document["removed"]) == (0, None)


def test_a_renamed_file_is_the_base_file_under_its_new_name(tmp_path: Path, fake_github: FakeGitHub) -> None:
    """A pure rename changes no break: the base is solved with the file under its old path (the
    head's tree lacks it), and its breaks match the head's under the new path and module. Unsolved,
    the import's redirect made `helper`'s print new (review13 #1, review14 #7)."""
    base = {"pkg/__init__.py": "", "pkg/utils.py": UTILS, "pkg/net.py": CALLER}
    head = {"pkg/utils.py": None, "pkg/tools.py": UTILS, "pkg/net.py": CALLER.replace("pkg.utils", "pkg.tools")}
    world = PullRequestWorld(tmp_path, fake_github, base, head)
    assert ("renamed", "pkg/utils.py") in [(f["status"], f.get("previous_filename"))
                                           for f in world.git.pull_files(world.base_sha, world.head_sha)]
    document = review_json(world.git.root, world.base_sha)
    assert (document["new"], document["removed"]) == (0, [])
    assert [(a["path"], a["code"]) for a in document["annotations"]] == [("pkg/tools.py", "GM401")]
    assert document["findings"] == 1 and document["review"]["comments"] == []  # no pointer at the import
    run = world.run(world.event("pull_request.opened.json"), fail_on="never")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "new graph break" not in run.summary and "are gone" not in run.summary
    assert fake_github.comments_on(REPO, NUMBER) == []  # the break is the base's, on no added line


def test_a_deleted_files_breaks_are_removed(tmp_path: Path, fake_github: FakeGitHub) -> None:
    """A file the change deletes is in the base under its path: its breaks are removed, not lost."""
    base = {"pkg/__init__.py": "", "pkg/utils.py": UTILS, "pkg/net.py": CALLER}
    inline = CALLER.replace("from pkg.utils import helper\n", "").replace("return helper(x)", "return x + 1")
    world = PullRequestWorld(tmp_path, fake_github, base, {"pkg/utils.py": None, "pkg/net.py": inline})
    document = review_json(world.git.root, world.base_sha)
    assert document["new"] == 0
    assert [(r["path"], r["code"]) for r in document["removed"]] == [("pkg/utils.py", "GM401")]
    run = world.run(world.event("pull_request.opened.json"), fail_on="findings")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "pkg/utils.py:5" in run.summary and "are gone with this pull request" in run.summary


def test_a_forks_bundle_cannot_call_a_break_on_an_added_line_pre_existing_or_invent_removals() -> None:
    """The bundle is the fork's word: held to the trusted diff, its base comparison may not demote a
    finding on a line the pull request added, nor list removed breaks outside the changed files."""
    from graphmend_bot.findings import BaseFindings, CheckResult, Finding, Location
    from graphmend_bot.github.review.fork import trusted_base

    def finding(path: str, row: int) -> Finding:
        return Finding("GM401", "`print` in traced code", path, Location(row, 5), Location(row, 13), "GB0059",
                       source_line=f"print({row})")

    added, unchanged, elsewhere = finding("pkg/net.py", 9), finding("pkg/net.py", 3), finding("pkg/far.py", 7)
    result = CheckResult([added, unchanged], base=BaseFindings(
        frozenset({added.fingerprint, unchanged.fingerprint}), [elsewhere, finding("pkg/net.py", 4)]))
    patch = "@@ -8,2 +8,3 @@\n x = 1\n+print(9)\n y = 2"
    kept = trusted_base(result, {"pkg/net.py": patch})
    assert kept is not None
    assert kept.fingerprints == {unchanged.fingerprint}
    assert [(f.path, f.location.row) for f in kept.removed] == [("pkg/net.py", 4)]


def test_an_identical_line_added_above_an_old_one_is_the_new_one(tmp_path: Path, fake_github: FakeGitHub) -> None:
    """Identical lines number in line order, so the added `print("step")` above the old one took the
    old one's fingerprint: the added line read pre-existing and the old line new (review13 #2)."""
    model = '''\
import torch
from torch import nn


class Net(nn.Module):
    def forward(self, x):
        y = x * 2
        print("step")
        return y + 1
'''
    head = model.replace("        y = x * 2\n", '        print("step")\n        y = x * 2\n')
    world = PullRequestWorld(tmp_path, fake_github, {"pkg/__init__.py": "", "pkg/net.py": model}, {"pkg/net.py": head})
    document = review_json(world.git.root, world.base_sha)
    assert (document["new"], document["pre_existing"]) == (1, 1)
    labels = {c["line"]: "Pre-existing" in c["body"] for c in document["review"]["comments"]}
    assert labels == {7: False, 9: True}
    assert all("new with this change" not in c["body"] for c in document["review"]["comments"])
