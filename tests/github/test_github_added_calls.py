"""A pull request whose added call brings an unchanged file's breaking helper into traced code
(review4 #9): the review reports the break at that call, naming where it breaks and why."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from fake_github import FakeGitHub
from test_github_security import _first_workflow, _second_workflow
from world import NUMBER, REPO, PullRequestWorld

from graphmend_bot.report.markdown import SummaryView, summary_markdown

NET = '''\
import torch
from torch import nn

from pkg.utils import helper


class Net(nn.Module):
    def forward(self, x):
        y = x * 2
        return y
'''
UTILS = '''\
import torch


def helper(x):
    print("hi")
    return x + 1


def prepare(values):
    return helper(torch.tensor(values))
'''
# The model scope: its roots are the forwards, so `helper` is traced only where a call brings it in.
# (auto's public-api scope roots every public callable of a package of models: `helper`'s break
# would pre-exist the pull request.)
MODEL_SCOPE = "scope: model\n"
BASE = {"pkg/__init__.py": "", "pkg/net.py": NET, "pkg/utils.py": UTILS, ".graphmend.yml": MODEL_SCOPE}
CALLING = {"pkg/net.py": NET.replace("y = x * 2", "y = helper(x * 2)")}  # line 9 now calls helper


def review_json(root: Path, base: str) -> dict:
    local = subprocess.run([sys.executable, "-m", "graphmend_bot.cli", "review", "--base", base, "--output-format",
                            "json"], cwd=root, capture_output=True, text=True, timeout=300)
    assert local.returncode in (0, 1), local.stderr
    return json.loads(local.stdout)


def test_the_added_call_carries_the_break_it_brings_in(tmp_path: Path, fake_github: FakeGitHub) -> None:
    world = PullRequestWorld(tmp_path, fake_github, BASE, CALLING)
    run = world.run(world.event("pull_request.opened.json"), fail_on="findings")
    assert run.returncode == 1, run.stdout + run.stderr
    [comment] = fake_github.comments_on(REPO, NUMBER)
    assert (comment["path"], comment["line"]) == ("pkg/net.py", 9)
    body = comment["body"]
    assert body.startswith("**GM401** this call brings `helper` into traced code, and it breaks at pkg/utils.py:5: "
                           "`print` in traced code")
    assert "the break itself is at pkg/utils.py:5" in body and "```suggestion" not in body
    assert "pre-existing" not in body.lower()
    document = review_json(world.git.root, world.base_sha)  # `graphmend review` says the same
    assert [(c["path"], c["line"]) for c in document["review"]["comments"]] == [("pkg/net.py", 9)]
    assert document["new_on_added_lines"] == 1


def posted_through_a_fork(world: PullRequestWorld, tmp_path: Path) -> list[dict]:
    """The review comments the fork-safe pattern posts: the bundle of the first workflow, posted by the second."""
    bundle = _first_workflow(world)
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    run = _second_workflow(world, downloads, bundle)
    assert run.returncode == 0, run.stdout + run.stderr
    return world.fake.comments_on(REPO, NUMBER)


def test_a_forks_posted_review_carries_it_too(tmp_path: Path, fake_github: FakeGitHub) -> None:
    world = PullRequestWorld(tmp_path, fake_github, BASE, CALLING)
    [comment] = posted_through_a_fork(world, tmp_path)
    assert comment["line"] == 9 and "the break itself is at pkg/utils.py:5" in comment["body"]


def test_a_call_to_a_helper_traced_code_already_reached_is_not_blamed(tmp_path: Path,
                                                                       fake_github: FakeGitHub) -> None:
    """The helper was traced code before (forward called it): its break is not the pull request's."""
    base = {**BASE, "pkg/net.py": NET.replace("return y", "return helper(y)")}
    head = {"pkg/net.py": base["pkg/net.py"].replace("y = x * 2", "y = helper(x * 2)")}
    world = PullRequestWorld(tmp_path, fake_github, base, head)
    document = review_json(world.git.root, world.base_sha)
    assert document["findings"] == 0 and document["review"]["comments"] == []


def test_an_added_call_from_untraced_code_brings_nothing_in(tmp_path: Path, fake_github: FakeGitHub) -> None:
    head = {"pkg/net.py": NET + "\n\ndef load(values):\n    return helper(values)\n"}
    world = PullRequestWorld(tmp_path, fake_github, BASE, head)
    document = review_json(world.git.root, world.base_sha)
    assert document["findings"] == 0


def test_no_static_finding_under_the_census_table_is_not_no_graph_breaks() -> None:
    view = SummaryView([], files_checked=4, changed_files=2, head_sha="f5dba95",
                       breaks=["### Graph breaks in this PR (Dynamo census): +1 / -0", "",
                               "| + | `pkg/utils.py:4` | Failed to trace builtin operator |"])
    summary = summary_markdown(view)
    assert "No graph breaks found" not in summary and "no graph breaks" not in summary
    assert "No static findings in 4 file(s); the census table above has Dynamo's graph breaks." in summary
    assert "No graph breaks found in 4 file(s)." in summary_markdown(SummaryView([], files_checked=4))


def test_a_changed_files_old_line_brought_in_is_blamed_on_the_call_too(tmp_path: Path,
                                                                      fake_github: FakeGitHub) -> None:
    """The helper's file is changed elsewhere: its print is an old line, which alone would read as
    pre-existing or an annotation; the added call says it brought it in."""
    head = {**CALLING, "pkg/utils.py": UTILS + "\n\nSCALE = 2\n"}
    world = PullRequestWorld(tmp_path, fake_github, BASE, head)
    document = review_json(world.git.root, world.base_sha)
    assert ("pkg/net.py", 9) in [(c["path"], c["line"]) for c in document["review"]["comments"]]
    assert [a["line"] for a in document["annotations"] if a["path"] == "pkg/utils.py"] == [5]  # still listed


def test_a_call_the_change_only_edits_brings_nothing_in(tmp_path: Path, fake_github: FakeGitHub) -> None:
    """review5 #2: forward called helper before; the change edits that line (`y = helper(x * 2)` ->
    `y = helper(x * 3)`), and moves it down a line: the call is not new, nor the break it reaches."""
    base = {**BASE, "pkg/net.py": CALLING["pkg/net.py"]}
    edited = {"pkg/net.py": base["pkg/net.py"].replace("y = helper(x * 2)", "y = x\n        y = helper(y * 3)")}
    world = PullRequestWorld(tmp_path, fake_github, base, edited)
    document = review_json(world.git.root, world.base_sha)
    assert document["findings"] == 0 and document["review"]["comments"] == []


def test_a_call_replacing_another_callees_call_is_new(tmp_path: Path, fake_github: FakeGitHub) -> None:
    """The removed line called something else (`torch.relu`): helper's call is new, and blamed."""
    base = {**BASE, "pkg/net.py": NET.replace("y = x * 2", "y = torch.relu(x)")}
    head = {"pkg/net.py": NET.replace("y = x * 2", "y = helper(x)")}
    world = PullRequestWorld(tmp_path, fake_github, base, head)
    document = review_json(world.git.root, world.base_sha)
    assert [(c["path"], c["line"]) for c in document["review"]["comments"]] == [("pkg/net.py", 9)]
    assert "brings `helper` into traced code" in document["review"]["comments"][0]["body"]


@pytest.mark.parametrize("removed", ["y = x * 2  # helper(x) later", 'y = x * 2; note = "see helper()"'])
def test_a_comment_or_a_string_naming_the_callee_hides_nothing(tmp_path: Path, fake_github: FakeGitHub,
                                                              removed: str) -> None:
    """review6: the removed line beside the added call only names `helper(` in a comment or a string: it
    called nothing, so the added call is new and blamed (a regex over the text read it as a call)."""
    base = {**BASE, "pkg/net.py": NET.replace("y = x * 2", removed)}
    world = PullRequestWorld(tmp_path, fake_github, base, CALLING)
    document = review_json(world.git.root, world.base_sha)
    assert [(c["path"], c["line"]) for c in document["review"]["comments"]] == [("pkg/net.py", 9)]


def test_a_call_moved_in_from_an_untraced_method_is_new(tmp_path: Path, fake_github: FakeGitHub) -> None:
    """review6: the change moves `helper(...)` from an untraced method into forward; the removed call is
    in another change block (context lines between), so the call forward gains is new and blamed."""
    debug = "\n    def debug(self, x):\n        return helper(x)\n"
    base = {**BASE, "pkg/net.py": NET + debug}
    world = PullRequestWorld(tmp_path, fake_github, base, CALLING)
    document = review_json(world.git.root, world.base_sha)
    assert [(c["path"], c["line"]) for c in document["review"]["comments"]] == [("pkg/net.py", 9)]


def test_a_break_an_added_call_brings_into_a_changed_file_counts_once_and_new(tmp_path: Path,
                                                                              fake_github: FakeGitHub) -> None:
    """review5 #5: the finding at the call points at the break at pkg/utils.py:5, which the summary
    counts once, as new (the pull request brought it into traced code), never *pre-existing*, though
    the diff shows it as a context line of the edit below it."""
    head = {**CALLING, "pkg/utils.py": UTILS.replace("return x + 1", "return x + 2")}
    world = PullRequestWorld(tmp_path, fake_github, BASE, head)
    document = review_json(world.git.root, world.base_sha)
    summary = document["summary_comment"]
    assert document["findings"] == 1 and "## GraphMend: 1 graph break(s)" in summary
    assert "pre-existing*" not in summary.replace("marked *pre-existing* below", "")
    assert document["new_on_added_lines"] == 1 and document["pre_existing_on_context_lines"] == 0
    comments = {c["line"]: c["body"] for c in document["review"]["comments"] if c["path"] == "pkg/net.py"}
    assert "breaks at pkg/utils.py:5" in comments[9]
    [at_break] = [c["body"] for c in document["review"]["comments"] if c["path"] == "pkg/utils.py"]
    assert "pre-existing" not in at_break.lower()


def test_a_break_traced_before_in_a_changed_file_stays_pre_existing(tmp_path: Path, fake_github: FakeGitHub) -> None:
    """Negative: a break forward reached before the change (helper called from its return), shown
    as a context line of an edit, is still pre-existing, and nothing points at it."""
    base = {**BASE, "pkg/net.py": NET.replace("return y", "return helper(y)")}
    head = {"pkg/utils.py": UTILS.replace("return x + 1", "return x + 2")}
    world = PullRequestWorld(tmp_path, fake_github, base, head)
    document = review_json(world.git.root, world.base_sha)
    assert document["findings"] == 1 and document["new_on_added_lines"] == 0
    assert document["pre_existing_on_context_lines"] == 1 and "brings" not in json.dumps(document["review"])


TWO_HELPERS = {"pkg/__init__.py": "", "pkg/utils.py": UTILS, ".graphmend.yml": MODEL_SCOPE,
               "pkg/quiet.py": "def helper(x):\n    return x + 1\n"}
VIA_MODULE = NET.replace("from pkg.utils import helper", "from pkg import quiet, utils").replace(
    "y = x * 2", "y = quiet.helper(x)")
VIA_NAME = NET.replace("from pkg.utils import helper", "from pkg.quiet import helper").replace(
    "y = x * 2", "y = helper(x)")


def test_a_call_edited_to_reach_another_modules_function_is_new(tmp_path: Path, fake_github: FakeGitHub) -> None:
    """review7 #4: `quiet.helper(x)` edited to `utils.helper(x)` calls another function of the same
    name; it used to count as only edited, by the bare name, and the review said nothing."""
    base = {**TWO_HELPERS, "pkg/net.py": VIA_MODULE}
    head = {"pkg/net.py": VIA_MODULE.replace("quiet.helper(x)", "utils.helper(x)")}
    world = PullRequestWorld(tmp_path, fake_github, base, head)
    document = review_json(world.git.root, world.base_sha)
    assert [(c["path"], c["line"]) for c in document["review"]["comments"]] == [("pkg/net.py", 9)]
    assert "this call brings `helper` into traced code, and it breaks at pkg/utils.py:5" in \
        document["review"]["comments"][0]["body"]


def test_an_import_that_redirects_an_unchanged_call_is_blamed(tmp_path: Path, fake_github: FakeGitHub) -> None:
    """review7 #4: only the import changes (`from pkg.quiet import helper` -> `from pkg.utils import
    helper`); the unchanged `helper(x)` in forward now reaches the breaking helper. The comment is on
    the import, the line the change added, and names the call it redirects."""
    base = {**TWO_HELPERS, "pkg/net.py": VIA_NAME}
    head = {"pkg/net.py": VIA_NAME.replace("from pkg.quiet import helper", "from pkg.utils import helper")}
    world = PullRequestWorld(tmp_path, fake_github, base, head)
    document = review_json(world.git.root, world.base_sha)
    [comment] = document["review"]["comments"]
    assert (comment["path"], comment["line"]) == ("pkg/net.py", 4)
    assert comment["body"].startswith("**GM401** this import makes the call on line 9 bring `helper` into "
                                      "traced code, and it breaks at pkg/utils.py:5")
    assert document["new_on_added_lines"] == 1


@pytest.mark.parametrize("edit", [
    ("from pkg.utils import helper", "from pkg.utils import (\n    helper,\n)"),  # re-spelled, same target
    ("import torch\n", "import torch  # the model\n"),  # an unrelated import edited
    ("from pkg.utils import helper", "from .utils import helper"),  # relative, the same module
    ("from pkg.utils import helper", "from pkg.utils import helper, prepare"),  # a name added
    # isort: the import moved below another, across a context line
    ("import torch\nfrom torch import nn\n\nfrom pkg.utils import helper\n",
     "from pkg.utils import helper\nimport torch\nfrom torch import nn\n\n"),
])
def test_an_import_that_still_resolves_alike_redirects_nothing(tmp_path: Path, fake_github: FakeGitHub,
                                                               edit: tuple[str, str]) -> None:
    """Negative (review8 #2): the name resolves as before, so the call reaches what it reached, and
    the breaking helper it calls is no news of this change."""
    base = {**TWO_HELPERS, "pkg/net.py": VIA_NAME.replace("quiet", "utils")}
    head = {"pkg/net.py": base["pkg/net.py"].replace(edit[0], edit[1], 1)}
    assert head["pkg/net.py"] != base["pkg/net.py"]
    world = PullRequestWorld(tmp_path, fake_github, base, head)
    document = review_json(world.git.root, world.base_sha)
    assert document["new_on_added_lines"] == 0
    assert "brings" not in json.dumps(document["review"]) and "bring `" not in json.dumps(document["review"])


def test_only_the_call_through_the_redirected_name_is_blamed(tmp_path: Path, fake_github: FakeGitHub) -> None:
    """review8 #4: `helper(x) + brk(x)` on one line, `brk` an old break imported from utils: pointing
    `helper` at another quiet module brings nothing in (brk was traced before)."""
    net = VIA_NAME.replace("from pkg.quiet import helper", "from pkg.quiet import helper\nfrom pkg.utils import "
                           "helper as brk").replace("y = helper(x)", "y = helper(x) + brk(x)")
    base = {**TWO_HELPERS, "pkg/quiet2.py": "def helper(x):\n    return x - 1\n", "pkg/net.py": net}
    head = {"pkg/net.py": net.replace("from pkg.quiet import helper", "from pkg.quiet2 import helper")}
    world = PullRequestWorld(tmp_path, fake_github, base, head)
    document = review_json(world.git.root, world.base_sha)
    assert document["new_on_added_lines"] == 0 and "bring" not in json.dumps(document["review"])


def test_a_very_long_expression_added_is_reviewed(tmp_path: Path, fake_github: FakeGitHub) -> None:
    """review8 #1: reading the file before and after the change must not end the review; a line
    of 600 terms made ast.unparse recurse too deep (internal error, no review)."""
    long_sum = "TOTAL = " + " + ".join(["1"] * 600) + "\n"
    head = {"pkg/net.py": CALLING["pkg/net.py"].replace("from pkg.utils import helper",
                                                        "from pkg.utils import helper\n" + long_sum)}
    world = PullRequestWorld(tmp_path, fake_github, BASE, head)
    document = review_json(world.git.root, world.base_sha)
    assert [(c["path"], c["line"]) for c in document["review"]["comments"]] == [("pkg/net.py", 11)]
