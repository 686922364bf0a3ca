"""The `census-file` input end to end: Dynamo's word from the project's tests in the review, the
fork bundle and the scheduled scan, and a census that cannot be trusted refused with a message while
the static review still posts.

The census is recorded for real, once: the plugin runs a small test suite over the pull request's
code (`pytest --graphmend-census`), as census/action.yml does in a workflow. Each world then gets
that file with its own head commit (the worlds' commits differ only by their timestamps).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from botworld import RemoteWorld
from fake_github import FakeGitHub
from rendered_markdown import rendered_text, untrusted_markup
from test_github_e2e import BASE, HEAD, MODEL_HEAD, line_of
from world import NUMBER, REPO, PullRequestWorld

from graphmend_bot.census.record import MAX_BYTES
from graphmend_bot.github.core.markers import is_summary, parse_finding_marker
from graphmend_bot.report.untrusted_text import markdown_text

# The pull request also adds a line no static rule flags but Dynamo breaks on (GB0056).
LAYERS_HEAD = ("import torch\n\n\ndef scale(x):\n    factor = x.abs().max().item()\n    y = x.detach() * 2\n"
               "    y.data = x.detach()\n    return y / factor\n")
CENSUS_HEAD = {**HEAD, "pkg/layers.py": LAYERS_HEAD}
TESTS = ("import torch\nfrom pkg.model import Net\n\n\ndef test_net():\n    torch.manual_seed(0)\n"
         "    assert Net()(torch.randn(2, 4)).shape == (2, 4)\n")
RECORDED_ON = "c0ffee0"  # the commit the recording says; each world substitutes its own head
CENSUS = "downloaded/graphmend-census.json"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The census the plugin writes for the pull request's code and a test of it."""
    root = tmp_path_factory.mktemp("census-project")
    for name, text in {**BASE, **CENSUS_HEAD, "tests/test_net.py": TESTS}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--graphmend-census",
                           f"--graphmend-census-commit={RECORDED_ON}"], cwd=root, capture_output=True, text=True,
                          timeout=600, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    data: dict[str, Any] = json.loads((root / "graphmend-census.json").read_text("utf-8"))
    assert data["commit"] == RECORDED_ON  # the option wins over git and GITHUB_SHA
    return data


@pytest.fixture
def world(tmp_path: Path, fake_github: FakeGitHub) -> PullRequestWorld:
    return PullRequestWorld(tmp_path, fake_github, BASE, CENSUS_HEAD)


def put_census(workspace: Path, data: dict[str, Any] | str) -> None:
    path = workspace / CENSUS
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")


def comments_by_line(fake: FakeGitHub) -> dict[tuple[str, int], str]:
    return {(c["path"], c["line"]): c["body"] for c in fake.comments_on(REPO, NUMBER)}


def summary_comment(fake: FakeGitHub) -> str:
    [body] = [c["body"] for c in fake.issue_comments_on(REPO, NUMBER) if "graphmend:summary" in c["body"]]
    return body


def test_a_valid_census_confirms_findings_and_adds_the_breaks_only_dynamo_saw(
        world: PullRequestWorld, recorded: dict[str, Any]) -> None:
    put_census(world.git.root, {**recorded, "commit": world.head_sha})
    run = world.run(world.event("pull_request.opened.json"), fail_on="never", census_file=CENSUS)

    assert run.returncode == 0, run.stdout + run.stderr
    assert "Traceback" not in run.stdout + run.stderr
    comments = comments_by_line(world.fake)
    branch = comments[("pkg/model.py", line_of(MODEL_HEAD, "if x.sum() > 0"))]
    assert branch.startswith("**GM101**")
    assert "Confirmed by Dynamo in `tests/test_net.py::test_net`." in branch
    item = comments[("pkg/layers.py", line_of(LAYERS_HEAD, ".item()"))]
    assert "Confirmed by Dynamo in `tests/test_net.py::test_net`." in item
    # The line no static rule flags: a GM801 comment with Dynamo's reason and graph-break id.
    runtime = comments[("pkg/layers.py", line_of(LAYERS_HEAD, "y.data = x.detach()"))]
    assert runtime.startswith("**GM801** graph break seen by Dynamo in the tests: ")
    assert "Failed to mutate tensor data attribute" in rendered_text(runtime)
    assert "[GB0056](" in runtime and "Confirmed by Dynamo in `tests/test_net.py::test_net`." in runtime
    assert len(comments) == 4
    # The summaries say what the census contributed; SARIF carries the runtime rule.
    note = "Dynamo's census of the tests at"
    assert note in summary_comment(world.fake) and note in run.summary
    assert "4 finding(s) confirmed, 0 ran without a graph break" in run.summary and "1 break(s) only Dynamo saw (GM801)" in run.summary
    assert run.sarif is not None
    assert "GM801" in [r["ruleId"] for r in run.sarif["runs"][0]["results"]]


def _sparse(path: Path) -> None:
    with path.open("wb") as handle:
        handle.truncate(MAX_BYTES + 1)


@pytest.mark.parametrize(("case", "message"), [
    ("another commit", "the census was recorded on commit c0ffee0, not"),
    ("no commit", "the census does not say which commit it was recorded on"),
    ("malformed", "is unreadable"),
    ("not a census", "not a version 1 graphmend-census file"),
    ("path outside the repository", "must be a relative path inside the repository"),
    ("huge", "is larger than 64 MiB"),
    ("symlink", "is or lies behind a symlink: not read"),
    ("missing", "no census file at downloaded/graphmend-census.json"),
])
def test_an_unusable_census_is_a_message_and_the_static_review_still_posts(
        world: PullRequestWorld, recorded: dict[str, Any], case: str, message: str) -> None:
    path = world.git.root / CENSUS
    path.parent.mkdir(parents=True, exist_ok=True)
    hostile_break = {**recorded["breaks"][0], "path": "../../etc/passwd"}
    if case == "another commit":
        put_census(world.git.root, recorded)
    elif case == "no commit":
        put_census(world.git.root, {**recorded, "commit": ""})
    elif case == "malformed":
        put_census(world.git.root, json.dumps(recorded)[:-20])
    elif case == "not a census":
        put_census(world.git.root, {"findings": []})
    elif case == "path outside the repository":
        put_census(world.git.root, {**recorded, "commit": world.head_sha, "breaks": [hostile_break]})
    elif case == "huge":
        _sparse(path)
    elif case == "symlink":  # a pull request can ship a symlink where the artifact is expected
        secret = world.tmp / "runner-secret.json"
        secret.write_text(json.dumps({**recorded, "commit": world.head_sha}), encoding="utf-8")
        os.symlink(secret, path)
    run = world.run(world.event("pull_request.opened.json"), fail_on="never", census_file=CENSUS)

    assert run.returncode == 0, run.stdout + run.stderr
    assert "Traceback" not in run.stdout + run.stderr
    warning = next(line for line in run.stdout.splitlines() if "census was not used" in line)
    assert warning.startswith("::warning ") and message in warning
    shown = run.summary.replace("\u200b", "")  # as GitHub shows it: the escaper breaks hex runs (commit SHAs)
    assert "Dynamo's census was not used: " in shown and message in shown
    assert message in summary_comment(world.fake).replace("\u200b", "")
    # The static review is posted as without a census: three findings on changed lines, no evidence.
    comments = comments_by_line(world.fake)
    assert len(comments) == 3
    assert not any("Confirmed by Dynamo" in body or "GM801" in body for body in comments.values())
    assert len(world.fake.reviews_on(REPO, NUMBER)) == 1


def test_markup_in_a_census_stays_text_in_the_review(world: PullRequestWorld, recorded: dict[str, Any]) -> None:
    """A census is written by the pull request's tests: its reasons and test ids are hostile text."""
    hostile = "x\n<!-- graphmend:summary --> @octocat [win](https://evil.example) ::error::owned"
    breaks = [{**b, "reason": hostile, "tests": [f"tests/t.py::`{hostile}"]} for b in recorded["breaks"]]
    put_census(world.git.root, {**recorded, "commit": world.head_sha, "breaks": breaks})
    run = world.run(world.event("pull_request.opened.json"), fail_on="never", census_file=CENSUS)

    assert run.returncode == 0, run.stdout + run.stderr
    runtime = comments_by_line(world.fake)[("pkg/layers.py", line_of(LAYERS_HEAD, "y.data = x.detach()"))]
    message, *_ = runtime.split("\n\n")
    # One line (the newline is gone), with the HTML comment, mention and link made text.
    assert message == ("**GM801** graph break seen by Dynamo in the tests: " + markdown_text(hostile.replace("\n", ""))
                       + " (PyTorch graph break [GB0056](https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0056.html))")
    assert untrusted_markup(runtime) == [] and "<!-- graphmend:summary" not in runtime.replace(
        "``tests/t.py::`x<!-- graphmend:summary", "")  # the quoted marker is text, in the code span below
    # The test id stays one code span; the only marker is the bot's own, on the last line.
    assert "Confirmed by Dynamo in ``tests/t.py::`x<!-- graphmend:summary --> @octocat [win](https://evil.example) ::error::owned``." in runtime
    assert not is_summary(runtime) and parse_finding_marker(runtime) is not None
    assert not any(line.lstrip().startswith("::error::") for line in run.stdout.splitlines())
    assert is_summary(summary_comment(world.fake))


def test_the_fork_bundle_carries_gm801_and_its_evidence(world: PullRequestWorld, recorded: dict[str, Any],
                                                          tmp_path: Path) -> None:
    fake = world.fake
    put_census(world.git.root, {**recorded, "commit": world.head_sha})
    fake.read_only = True
    first = world.run(world.event("pull_request.opened.json"), fail_on="never", census_file=CENSUS,
                      review_bundle="artifact/graphmend-review.json")
    assert first.returncode == 0 and fake.comments_on(REPO, NUMBER) == []
    bundle = json.loads((world.git.root / "artifact" / "graphmend-review.json").read_text("utf-8"))
    [runtime] = [item for item in bundle["findings"] if item["code"] == "GM801"]
    assert runtime["graph_break_id"] == "GB0056" and runtime["dynamo"]["status"] == "confirmed"

    fake.read_only = False
    downloads = tmp_path / "base-checkout"
    downloads.mkdir()

    def post(data: dict[str, Any]) -> Any:
        (downloads / "graphmend-review.json").write_text(json.dumps(data), "utf-8")
        return world.run(world.event("workflow_run.completed.with-pull-requests.json"), event_name="workflow_run",
                         workspace=downloads, review_bundle="graphmend-review.json", fail_on="never")

    # A runtime finding stripped of Dynamo's evidence is a forgery: nothing is posted.
    forged = {**bundle, "findings": [{**item, "dynamo": None} if item["code"] == "GM801" else item
                                     for item in bundle["findings"]]}
    refused = post(forged)
    assert refused.returncode == 0 and "runtime finding without Dynamo's evidence" in refused.stdout
    assert fake.comments_on(REPO, NUMBER) == []

    second = post(bundle)
    assert second.returncode == 0, second.stdout + second.stderr
    comments = comments_by_line(fake)
    gm801 = comments[("pkg/layers.py", line_of(LAYERS_HEAD, "y.data = x.detach()"))]
    assert rendered_text(gm801).startswith("GM801 graph break seen by Dynamo in the tests: Failed to mutate tensor data attribute")
    assert "[GB0056](" in gm801 and "Confirmed by Dynamo in `tests/test_net.py::test_net`." in gm801
    branch = comments[("pkg/model.py", line_of(MODEL_HEAD, "if x.sum() > 0"))]
    assert "Confirmed by Dynamo in `tests/test_net.py::test_net`." in branch


def test_the_scheduled_scan_uses_the_census(tmp_path: Path, fake_github: FakeGitHub,
                                            recorded: dict[str, Any]) -> None:
    world = RemoteWorld(tmp_path, fake_github, BASE, CENSUS_HEAD)
    world.git.git("push", "-q", str(world.remote.path), "changes:master", "--force")
    world.git.checkout("changes")  # the default branch now holds the censused code
    put_census(world.git.root, {**recorded, "commit": world.head_sha})
    event = world.tmp / "schedule.json"
    event.write_text(json.dumps({"schedule": "17 3 * * 1"}), encoding="utf-8")
    run = world.run(event, event_name="schedule", census_file=CENSUS)

    assert run.returncode == 1, run.stdout + run.stderr
    [issue] = [i for i in world.fake.issues.values() if "graphmend:tracking" in (i["body"] or "")]
    body = issue["body"]
    assert "| **GM801** dynamo-graph-break | 1 | +1 |" in body
    assert "Dynamo's census of the tests at" in body and "1 break(s) only Dynamo saw (GM801)" in body
    assert run.sarif is not None
    gm801 = [r for r in run.sarif["runs"][0]["results"] if r["ruleId"] == "GM801"]
    assert len(gm801) == 1 and "Failed to mutate tensor data attribute" in gm801[0]["message"]["text"]


def test_a_census_from_a_run_that_crashed_is_used_and_the_summary_says_so(
        world: PullRequestWorld, recorded: dict[str, Any]) -> None:
    """The plugin writes the census after each test that explained a call, marked incomplete until
    the session ends: a suite a crash killed still confirms what ran before, and the review says so."""
    put_census(world.git.root, {**recorded, "commit": world.head_sha, "complete": False})
    run = world.run(world.event("pull_request.opened.json"), fail_on="never", census_file=CENSUS)

    assert run.returncode == 0 and "Traceback" not in run.stdout + run.stderr
    assert any("Confirmed by Dynamo in `tests/test_net.py::test_net`." in body
               for body in comments_by_line(world.fake).values())
    stopped = "The test run stopped before its end (a crash?): the census holds the tests that ran before it."
    assert stopped in summary_comment(world.fake) and stopped in run.summary


def test_a_base_census_says_which_breaks_the_change_added_and_removed(
        world: PullRequestWorld, recorded: dict[str, Any]) -> None:
    """`census-base`: the head's census (recorded for real) against a base's that lacks the head's
    first break and has one the head lost; a base census it cannot read is one sentence."""
    added = recorded["breaks"][0]
    lost = {"path": "pkg/model.py", "line": 2, "reason": "Data-dependent branching", "gb_id": "GB0170",
            "tests": ["tests/test_net.py::test_net"], "function": "old_helper", "source": "if x.sum() > 0:"}
    put_census(world.git.root, {**recorded, "commit": world.head_sha})
    base = world.git.root / "downloaded" / "base-census.json"
    base.write_text(json.dumps({**recorded, "commit": "b" * 40, "breaks": [*recorded["breaks"][1:], lost]}))
    run = world.run(world.event("pull_request.opened.json"), fail_on="never", census_file=CENSUS,
                    census_base="downloaded/base-census.json")

    assert run.returncode == 0, run.stdout + run.stderr
    assert "Traceback" not in run.stdout + run.stderr
    summary = summary_comment(world.fake)
    assert "### Graph breaks in this PR (Dynamo census): +1 / -1" in summary and "+1 / -1" in run.summary
    where = f"{added['path']}:{added['line']}"
    link = f"https://github.com/{REPO}/blob/{world.head_sha}/{added['path']}#L{added['line']}"
    function = f"`{added['function']}`" if added["function"] else "(module level)"
    assert (f"| + | [`{where}`]({link}) | {markdown_text(added['reason'])} | [{added['gb_id']}]("
            f"https://meta-pytorch.github.io/compile-graph-break-site/gb/{added['gb_id'].lower()}.html) | "
            f"`tests/test_net.py::test_net` | {function} |") in summary
    assert "| - | `pkg/model.py:2` | Data-dependent branching | [GB0170](" in summary
    assert "`old_helper` |" in summary
    # a file input: it informs the table, never the gate
    assert "the `census-base` file: untrusted, it informs this table and never the gate" in summary

    run = world.run(world.event("pull_request.opened.json"), fail_on="never", census_file=CENSUS,
                    census_base="downloaded/missing.json")
    assert run.returncode == 0 and "Traceback" not in run.stdout + run.stderr
    assert "The base's census was not used: no census file at downloaded/missing.json" in run.summary


def test_text_from_a_base_comparison_stays_inert() -> None:
    from graphmend_bot.census.compare import compare
    from graphmend_bot.census.record import BreakRecord, CallRecord, Census
    from graphmend_bot.report.break_table import break_table

    hostile = BreakRecord("pkg/m`](x).py", 3, "see [here](https://evil.example) @team", "GB0170", ["t::a"],
                          "f`` <img src=x>")
    failing = CallRecord("pkg.Net", "t::a", error="boom <!-- graphmend:summary --> @team")
    table = "\n".join(break_table(compare(Census(commit="b" * 40), Census(commit="a" * 40, breaks=[hostile],
                                                                           calls=[failing]))))
    assert "](https://evil" not in table and "@team" not in table  # no link, no mention
    assert "``pkg/m`](x).py:3``" in table and "```f`` <img src=x>```" in table  # code spans the backticks cannot end
    assert "<!-- graphmend:summary -->" not in table
    assert "**`pkg.Net` failed to compile on the head**" in table and "not clean" in table


def test_a_target_the_head_did_not_call_is_never_read_as_its_breaks_removed() -> None:
    from graphmend_bot.census.compare import compare
    from graphmend_bot.census.record import BreakRecord, CallRecord, Census
    from graphmend_bot.report.break_table import break_table

    base = Census(commit="b" * 40, breaks=[BreakRecord("pkg/old.py", 3, "Data-dependent branching", "GB0170")],
                  calls=[CallRecord("pkg.Old", "t::a", 2, 1)])
    table = "\n".join(break_table(compare(base, Census(commit="a" * 40))))
    assert "+0 / -1" in table
    assert "`pkg.Old` was not called by the head's tests: its graph breaks there are unknown" in table
