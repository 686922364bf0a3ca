"""`graphmend review --base REF` prints what the bot posts: the same change reviewed both ways.

The bot runs as GitHub Actions runs it, against the fake GitHub serving the pull request of a real
git repository; `graphmend review` runs in that repository's checkout of the head, against the base
commit. Every comment (path, line, start line, body), the review body, the summary comment, the
annotations and the fix preview must be the same.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from fake_github import FakeGitHub
from gitrepo import GitRepo
from rendered_markdown import untrusted_markup
from world import NUMBER, REPO, PullRequestWorld, graphmend_command

from graphmend_bot.github.review.git_changes import working_tree_change

MODEL_BASE = '''\
import logging

import torch
from torch import nn

from pkg.old_helpers import halve, double

logger = logging.getLogger(__name__)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 4)

    def forward(self, x):
        logger.info("forward %s", x.shape)
        x = self.linear(x)
        x = x + 1
        x = x - 1
        x = x * 1
        x = double(x)
        return halve(x)
'''

MODEL_HEAD = MODEL_BASE.replace("from pkg.old_helpers", "from pkg.helpers").replace(
    "        x = double(x)\n",
    "        x = double(x)\n"
    '        print("forward done")\n'
    "        if x.sum() > 0:\n"
    "            x = x * 2\n"
    '        warnings.warn("deprecated path")\n',
).replace("import logging\n", "import logging\nimport warnings\n")

HELPERS_BASE = '''\
import torch


def double(x):
    """Twice x."""
    y = x * 2
    return y


def halve(x):
    """Half of x."""
    y = x / 2
    return y
'''
# Renamed with one change: git and GitHub both see a rename, and the new line is in the diff.
HELPERS_HEAD = HELPERS_BASE.replace('    y = x / 2\n', '    y = x / 2\n    scale = y.abs().max().item()\n')

BASE = {"pkg/__init__.py": "", "pkg/model.py": MODEL_BASE, "pkg/old_helpers.py": HELPERS_BASE,
        "pkg/gone.py": "import torch\n\n\ndef unused(x):\n    return x.item()\n", "notes.txt": "v1\n"}
HEAD = {"pkg/model.py": MODEL_HEAD, "pkg/old_helpers.py": None, "pkg/helpers.py": HELPERS_HEAD,
        "pkg/gone.py": None, "notes.txt": "v2\n"}


def local_review(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*graphmend_command(), "review", *args], cwd=root, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null"})


def unlinked(summary: str) -> str:
    """The summary without its links to lines on github.com: the only thing a local run cannot know."""
    return re.sub(r"\[(`[^`\n]+`)\]\(https://github\.com/[^)\s]+\)", r"\1", summary)


@pytest.fixture
def world(tmp_path: Path, fake_github: FakeGitHub) -> PullRequestWorld:
    return PullRequestWorld(tmp_path, fake_github, BASE, HEAD)


def test_review_prints_what_the_bot_posts_comment_for_comment(world: PullRequestWorld) -> None:
    # Three comments per review, so the review body lists the overflow too.
    run = world.run(world.event("pull_request.opened.json"), fail_on="findings", max_comments="3")
    done = local_review(world.git.root, "--base", world.base_sha, "--output-format", "json", "--max-comments", "3")

    assert run.returncode == 1 and done.returncode == 1, run.stderr + done.stderr
    assert "Traceback" not in done.stderr
    local: dict[str, Any] = json.loads(done.stdout)
    posted = {(c["path"], c["line"], c.get("start_line"), c["body"]) for c in world.fake.comments_on(REPO, NUMBER)}
    printed = {(c["path"], c["line"], c.get("start_line"), c["body"]) for c in local["review"]["comments"]}
    assert printed == posted
    assert len(posted) == 3
    assert any("```suggestion" in body for *_, body in posted)  # one-click suggestions, placed alike

    [review] = world.fake.reviews_on(REPO, NUMBER)
    assert local["review"]["body"] == review["body"]
    assert "the other" in review["body"]  # the overflow is listed in both

    [summary] = [c["body"] for c in world.fake.issue_comments_on(REPO, NUMBER) if "graphmend:summary" in c["body"]]
    assert local["summary_comment"] == unlinked(summary)
    assert local["head"] == world.head_sha and f"at {world.head_sha[:7]}" in summary

    annotated = {tuple(re.findall(r"file=([^,]+),line=(\d+),", line)[0]) for line in run.annotations}
    assert {(a["path"], str(a["line"])) for a in local["annotations"]} == annotated
    assert ("pkg/model.py", str(MODEL_HEAD.splitlines().index(
        '        logger.info("forward %s", x.shape)') + 1)) in annotated  # a finding outside the diff

    # The fix preview: what the summary comment shows the fix pull request would change.
    assert local["fix_diff"] and "+++ b/pkg/model.py" in local["fix_diff"]
    assert local["fix_diff"].rstrip("\n") in summary
    # The bot skips removed and non-Python files, and sees the rename under its new name.
    assert local["changed_files"] == ["pkg/helpers.py", "pkg/model.py"]


def test_patches_have_the_shape_of_the_api(world: PullRequestWorld) -> None:
    """git_changes' patches are the `patch` fields of `GET /pulls/{n}/files` for the same change."""
    api = {f["filename"]: f["patch"] for f in world.git.pull_files(world.base_sha, world.head_sha)
           if f["filename"].endswith(".py") and f["status"] != "removed"}
    change = working_tree_change(world.git.root, world.base_sha)
    assert {f.path: f.patch for f in change.files} == api
    assert change.root == world.git.root.resolve() and change.head == world.head_sha


def test_text_output_and_an_uncommitted_change(world: PullRequestWorld) -> None:
    # A new file nobody has added yet is part of the change, as it will be once committed.
    (world.git.root / "pkg" / "extra.py").write_text(
        "import torch\n\n\n@torch.compile\ndef f(x):\n    return x.tolist()\n", encoding="utf-8")
    done = local_review(world.git.root / "pkg", "--base", world.base_sha)

    assert done.returncode == 1, done.stderr
    assert done.stdout.startswith(f"GraphMend review of the working tree against {world.base_sha[:7]}")
    assert re.search(r"^--- pkg/extra\.py:6 ---\n\*\*GM303\*\*", done.stdout, re.M)
    assert "== Summary comment ==" in done.stdout and "<!-- graphmend:summary -->" in done.stdout
    assert "== What the fix pull request would change ==" in done.stdout
    change = working_tree_change(world.git.root, world.base_sha)
    assert change.head == ""  # the summary names no commit: the working tree is not one
    [extra] = [f for f in change.files if f.path == "pkg/extra.py"]
    assert extra.patch.startswith("@@ -0,0 +1,6 @@\n+import torch")


def test_no_python_change_posts_nothing(tmp_path: Path) -> None:
    git = GitRepo(tmp_path / "repo")
    base = git.commit({"model.py": "import torch\n\n\n@torch.compile\ndef f(x):\n    return x.item()\n"}, "base")
    git.commit({"README.md": "hello\n"}, "docs only")
    done = local_review(git.root, "--base", base)
    assert done.returncode == 0, done.stderr
    assert "0 changed Python file(s)" in done.stdout and "the bot would post nothing" in done.stdout


@pytest.mark.parametrize("where", ["bad ref", "not git", "option as ref"])
def test_bad_base_or_folder_is_one_message_and_exit_2(tmp_path: Path, where: str) -> None:
    git = GitRepo(tmp_path / "repo")
    git.commit({"model.py": "x = 1\n"}, "base")
    outside = tmp_path / "plain"
    outside.mkdir()
    root, ref, expected = {
        "bad ref": (git.root, "no-such-branch", "names no commit"),
        "not git": (outside, "HEAD", "is not in a git repository"),
        "option as ref": (git.root, "--output=/tmp/x", "is not a git revision"),
    }[where]
    done = local_review(root, f"--base={ref}")
    assert done.returncode == 2
    assert done.stderr.startswith("graphmend review: ") and expected in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""


def _census_of_head(world: PullRequestWorld, commit: str) -> Path:
    """What `pytest --graphmend-census` writes for a test of the head's model: Dynamo broke on its
    `print`. (A census recorded for real is merged end to end in test_github_census.py.)"""
    from graphmend_bot.census.record import BreakRecord, CallRecord, Census, write_census

    line = MODEL_HEAD.splitlines().index('        print("forward done")') + 1
    census = Census(commit=commit, torch="2.13.0",
                    calls=[CallRecord("pkg.model.Net", "tests/test_model.py::test_net", 2, 1)],
                    breaks=[BreakRecord("pkg/model.py", line, "Failed to trace builtin operator", "GB0059",
                                        ["tests/test_model.py::test_net"])],
                    executed={"pkg/model.py": list(range(1, len(MODEL_HEAD.splitlines()) + 1))})
    path = world.git.root.parent / "census" / "graphmend-census.json"
    write_census(census, path)
    return path


def test_review_merges_a_census_recorded_on_head(world: PullRequestWorld) -> None:
    census = _census_of_head(world, world.head_sha)
    done = local_review(world.git.root, "--base", world.base_sha, "--output-format", "json", "--census", str(census))

    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    local: dict[str, Any] = json.loads(done.stdout)
    line = MODEL_HEAD.splitlines().index('        print("forward done")') + 1
    [printed] = [c["body"] for c in local["review"]["comments"] if c["path"] == "pkg/model.py" and c["line"] == line]
    assert "Confirmed by Dynamo in `tests/test_model.py::test_net`." in printed
    assert f"Dynamo's census of the tests at `{world.head_sha[:12]}` (1 call(s) explained): 1 finding(s) " \
           "confirmed" in local["summary_comment"]


@pytest.mark.parametrize(("case", "message"), [
    ("another commit", "the census was recorded on commit c0ffee0"),
    ("malformed", "is unreadable"),
    ("missing", "no census file at"),
])
def test_review_with_an_unusable_census_says_why_and_is_the_static_review(
        world: PullRequestWorld, case: str, message: str) -> None:
    static = json.loads(local_review(world.git.root, "--base", world.base_sha, "--output-format", "json").stdout)
    census = _census_of_head(world, "c0ffee0" if case == "another commit" else world.head_sha)
    if case == "malformed":
        census.write_text('{"format": "graphmend-census", "version": 1, "breaks": [', encoding="utf-8")
    elif case == "missing":
        census.unlink()
    done = local_review(world.git.root, "--base", world.base_sha, "--output-format", "json", "--census", str(census))

    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith("graphmend: warning: Dynamo's census was not used: ") and message in done.stderr
    local: dict[str, Any] = json.loads(done.stdout)
    assert local["review"] == static["review"]  # every comment as without a census
    assert "Dynamo's census was not used" in local["summary_comment"]


def test_review_with_a_base_census_shows_the_break_table_and_gates_with_the_base_budget(
        tmp_path: Path, fake_github: FakeGitHub) -> None:
    """`--census-base`: the summary's +N / -M table; the budget is read from --base's tree, never from
    the working tree (a pull request must not raise its own budget)."""
    from graphmend_bot.census.budget import budget_from
    from graphmend_bot.census.record import Census, load_census, write_census

    plain = PullRequestWorld(tmp_path / "plain", fake_github, BASE, HEAD)
    head = load_census(_census_of_head(plain, plain.head_sha))
    base = tmp_path / "base-census.json"
    write_census(Census(commit=plain.base_sha), base)
    (plain.git.root / "graphmend-breaks.json").write_text(budget_from(head.breaks))  # the working tree's: ignored
    def gate(world: PullRequestWorld) -> subprocess.CompletedProcess[str]:
        return local_review(world.git.root, "--base", world.base_sha, "--output-format", "markdown", "--census",
                            str(_census_of_head(world, world.head_sha)), "--census-base", str(base),
                            "--fail-on", "new-breaks")

    done = gate(plain)
    assert done.returncode == 1, done.stdout + done.stderr
    line = head.breaks[0].line
    assert "### Graph breaks in this PR (Dynamo census): +1 / -0" in done.stdout
    assert f"| + | `pkg/model.py:{line}` | Failed to trace builtin operator | [GB0059](" in done.stdout

    budgeted = PullRequestWorld(tmp_path / "budgeted", fake_github, {**BASE, "graphmend-breaks.json":
                                                                     budget_from(head.breaks)}, HEAD)
    write_census(Census(commit=budgeted.base_sha), base)
    done = gate(budgeted)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "+0 / -0" in done.stdout and "1 new break(s) are in the budget" in done.stdout

    no_base = local_review(budgeted.git.root, "--base", budgeted.base_sha, "--fail-on", "new-breaks")
    assert no_base.returncode == 2 and "give --census HEAD_CENSUS and --census-base BASE_CENSUS" in no_base.stderr


def test_review_with_no_static_finding_still_prints_the_census_table(tmp_path: Path, fake_github: FakeGitHub) -> None:
    """The bot posts the summary comment for the census's table alone; the local review prints it too."""
    from graphmend_bot.census.record import Census, write_census

    world = PullRequestWorld(tmp_path, fake_github, BASE, {"notes.txt": "v2\n"})
    base = tmp_path / "base-census.json"
    write_census(Census(commit=world.base_sha), base)
    done = local_review(world.git.root, "--base", world.base_sha, "--output-format", "json", "--census",
                        str(_census_of_head(world, world.head_sha)), "--census-base", str(base))
    assert done.returncode == 0, done.stdout + done.stderr
    summary = json.loads(done.stdout)["summary_comment"]
    assert summary is not None and "### Graph breaks in this PR (Dynamo census): +1 / -0" in summary
    assert summary.startswith("## GraphMend: no static findings in the changed Python files")


def test_markdown_output_keeps_a_hostile_file_name_inside_its_code_span(tmp_path: Path) -> None:
    """Review 14, finding 11: `--output-format markdown` put file names and messages between
    single backticks, so a name holding one ended the span and the rest rendered as Markdown (an
    image, a mention). The heading of each comment (and each annotation) is a `fences.code_span` now."""
    git = GitRepo(tmp_path / "repo")
    base = git.commit({"keep.py": "x = 1\n"}, "base")
    breaks = "        x = x * x.sum().item()\n"
    name = "a` <img src=x> @octocat `.py"
    head = git.commit({name: f"import torch\nfrom torch import nn\n\n\nclass A(nn.Module):\n    def forward(self, x):\n{breaks}"
                      "        return x\n"}, "hostile name")
    done = local_review(git.root, "--base", base, "--no-cache", "--output-format", "markdown")
    assert done.returncode == 1, done.stderr
    assert "### ``a` <img src=x> @octocat `.py:7``" in done.stdout
    # The local report's `# ` title is its own; nothing the file name holds renders
    assert untrusted_markup(done.stdout, own_commits=(base, head)) == ["HTML element <h1>"]


def test_json_pre_existing_counts_every_finding_that_is_not_new_as_the_summary_does(tmp_path: Path) -> None:
    # review16 #9: a pure rename keeps both breaks, neither new, and neither on a line of the diff
    text = "import torch\n\n\n@torch.compile\ndef f(x):\n    n = x.item()\n    print(n)\n    return x * n\n"
    git = GitRepo(tmp_path / "repo")
    base = git.commit({"old.py": text}, "base")
    git.commit({"old.py": None, "new.py": text}, "rename")
    done = local_review(git.root, "--base", base, "--no-cache", "--output-format", "json")
    assert done.returncode in (0, 1), done.stderr
    document = json.loads(done.stdout)
    assert (document["findings"], document["new"], document["pre_existing"]) == (2, 0, 2)
    assert "0 new with this pull request (its base commit does not have them); 2 pre-existing" \
        in document["summary_comment"]
    assert document["pre_existing_on_context_lines"] == 0  # the diff has no line of either break
