"""Narrowing the fix pull request to what verification proved (issue 11, github/fixes/narrowing.py).

Against the fake GitHub: the approval records the fixes whose rewritten lines no entry point ran;
the bot's next run leaves them out of the fix pull request and names them; the next approval
recomputes the rewrite of the base without them and approves; a record that names a fix GraphMend's
rewrite does not have, or is not a list of fix names, is refused.
"""

from __future__ import annotations

import json
from pathlib import Path

from approveworld import fix_pr_world, submit
from botworld import RemoteWorld
from fake_github import FakeGitHub
from test_github_approve import FULL_COVERAGE, entry, report
from world import NUMBER, REPO

from graphmend_bot.fences import code_block, outside_code_blocks
from graphmend_bot.github.core.markers import FIX_PR_MARKER, VERIFICATION_END, VERIFICATION_START
from graphmend_bot.github.fixes.fix_pr import FileEdit, FixPlan, Rewrite, fix_body, with_verification
from graphmend_bot.github.fixes.narrowing import (
    excluded_marker,
    exclusions_in,
    fixes_of,
    narrow,
    parse_exclusions,
    unproven_fixes,
    with_exclusions,
)

CONFIG = "verify:\n  entry-points:\n    - pkg.entry:build\n"
ENTRY = '''\
import torch

from pkg.model import Net


def build(seed=0):
    torch.manual_seed(seed)
    return Net(), (torch.randn(2, 4),), {}
'''
MODEL = '''\
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 4)
        self.slow_path = False

    def forward(self, x):
        x = self.linear(x)
        return x
'''
# Two breaks in the verified reach: one on every call, one on a path the entry point never takes.
BREAKS = ("        return x\n",
          "        if x.sum() > 0:\n            x = x * 2\n"
          "        if self.slow_path:\n            if x.mean() > 1:\n                x = x + 1\n"
          "        return x\n")
EVERY_CALL = "torch.where(x.sum() > 0, x * 2, x)"
SLOW = "torch.where(x.mean() > 1, x + 1, x)"
BASE = {"pkg/__init__.py": "", "pkg/entry.py": ENTRY, "pkg/model.py": MODEL, ".graphmend.yml": CONFIG}
BROKEN = MODEL.replace(*BREAKS)
FIXED = BROKEN.replace("        if x.sum() > 0:\n            x = x * 2\n", f"        x = {EVERY_CALL}\n").replace(
    "            if x.mean() > 1:\n                x = x + 1\n", f"            x = {SLOW}\n")
CHANGES = [("pkg/model.py", BROKEN, FIXED)]


def _slow_line() -> int:
    return next(n for n, text in enumerate(FIXED.splitlines(), start=1) if SLOW in text)


def _slow_fix() -> str:
    """The name of the slow path's fix: the base lines of `if self.slow_path:`."""
    [name] = [fix.name for fix in fixes_of(CHANGES) if _slow_line() in fix.proof_lines]
    first = BROKEN.splitlines().index("        if self.slow_path:") + 1
    assert name == f"pkg/model.py:{first}-{first + 2}"
    return name


def _fix_pr_body(excluded: list[str]) -> str:
    return with_exclusions(fix_body(FixPlan(verified=True), "#1", "a" * 40), excluded)


def test_the_fixes_of_a_rewrite_are_whole_statements_and_narrowing_only_removes_them() -> None:
    fixes = fixes_of(CHANGES)
    assert len(fixes) == 2  # one per rewritten statement of forward
    narrowed = narrow(CHANGES, [_slow_fix()])
    [(path, before, after)] = narrowed.changes
    assert (path, before, narrowed.dropped, narrowed.unknown) == ("pkg/model.py", BROKEN, [_slow_fix()], [])
    assert EVERY_CALL in after and SLOW not in after
    assert "            if x.mean() > 1:\n                x = x + 1\n" in after  # back to the base's text
    assert narrow(CHANGES, ["pkg/model.py:1-2"]).unknown == ["pkg/model.py:1-2"]
    assert narrow(CHANGES, [fix.name for fix in fixes]).changes == []  # nothing left: the file is unchanged
    # An `if` whose test and body a rewrite both changed is one fix: never half reverted.
    clamp_before = ("def f(h):\n    if h.dtype == torch.float16 and torch.isinf(h).any():\n        c = 9\n"
                    "        h = torch.clamp(h, -c, c)\n    return h\n")
    clamp_after = ("def f(h):\n    if h.dtype == torch.float16:\n        c = 9\n"
                   "        h = torch.where(torch.isinf(h).any(), torch.clamp(h, -c, c), h)\n    return h\n")
    [clamp] = fixes_of([("m.py", clamp_before, clamp_after)])
    assert clamp.name == "m.py:2-4" and len(clamp.hunks) == 2
    assert unproven_fixes([("m.py", clamp_before, clamp_after)], [("m.py", 4)]) == ["m.py:2-4"]
    # A hunk across two statements takes the function body; a fix inside it merges with it.
    two_before = "def g(x):\n    a = 1\n    b = 2\n    c = 3\n    if x:\n        c = 4\n    return a + b + c\n"
    two_after = "def g(x):\n    a, b = 1, 2\n    c = 3\n    if x:\n        c = 5\n    return a + b + c\n"
    assert [fix.name for fix in fixes_of([("g.py", two_before, two_after)])] == ["g.py:2-7"]
    # An insertion outside functions (the `import torch` a fix adds) is named by the line it goes in at.
    imported = fixes_of([("h.py", "import os\n\nx = 1\n", "import os\nimport torch\n\nx = 1\n")])
    assert [fix.name for fix in imported] == ["h.py:2-2"]


def test_a_record_of_unproven_fixes_is_read_strictly() -> None:
    assert parse_exclusions('["pkg/model.py:12-15"]') == (["pkg/model.py:12-15"], "")
    for bad in ('{"a": 1}', '["../x; rm -rf /"]', '["pkg/model.py"]', "[1]", "not json", json.dumps(["a.py:1-2"] * 1001)):
        names, problem = parse_exclusions(bad)
        assert names == [] and problem, bad
    body = _fix_pr_body(["pkg/model.py:12-15"])
    assert body.rstrip().endswith(FIX_PR_MARKER)  # the marker that identifies the fix PR stays last
    assert exclusions_in(body) == (["pkg/model.py:12-15"], "")
    assert exclusions_in(body + body)[1]  # two records: malformed, not merged


def test_markers_quoted_in_the_fix_pull_requests_code_are_the_codes_never_the_bots() -> None:
    # review16 #6: the body quotes the branch's code (Before/After) above its machine-read lines
    quoted = "\n".join(['DOC = """', excluded_marker(["model.py:5-5"]), VERIFICATION_START, "x = 1  # kept",
                         VERIFICATION_END, '"""'])
    plan = FixPlan([FileEdit("m.py", b"")], [Rewrite("m.py", 3, "GM401", "print", quoted, quoted)])
    body = fix_body(plan, "#1", "a" * 40)
    assert exclusions_in(body) == ([], "")  # no record the bot never wrote, and not "malformed"
    assert exclusions_in(f"Before:\n\n{code_block(quoted, 'python')}\n\n{FIX_PR_MARKER}\n") == ([], "")
    recorded = with_exclusions(body, ["pkg/model.py:12-15"])
    assert exclusions_in(recorded) == (["pkg/model.py:12-15"], "")
    assert recorded.count(excluded_marker(["model.py:5-5"])) == 2  # the quoted code is left as it is
    assert with_exclusions(recorded, []) == body
    verified = with_verification(recorded, "Approved on a GPU.")
    assert verified.count(quoted) == 2 and "Approved on a GPU." in verified and "Not verified" not in verified
    assert verified.rstrip().endswith(FIX_PR_MARKER) and exclusions_in(verified) == (["pkg/model.py:12-15"], "")


def test_a_fence_closes_only_on_a_run_as_long_as_its_own() -> None:
    lines = ["````python", "```", "<!-- x -->", "````", "<!-- y -->", "~~~", "```", "~~~~", "z"]
    assert outside_code_blocks(lines) == [False, False, False, False, True, False, False, False, True]
    assert outside_code_blocks(["``` `inline` ```", "<!-- y -->"]) == [True, True]  # a code span, not a fence


def test_the_bot_leaves_recorded_unproven_fixes_out_of_its_fix_pull_request(
        tmp_path: Path, fake_github: FakeGitHub) -> None:
    world = RemoteWorld(tmp_path, fake_github, BASE, {"pkg/model.py": BROKEN})
    world.run(world.pull_request_event("pull_request.opened.json"), fix_pr="true", fixes="verified")
    [fix] = world.fix_pulls()
    tip = world.remote.branch("graphmend/fix/pr-2")
    assert tip is not None
    assert world.remote.show(tip, "pkg/model.py") == FIXED.rstrip("\n")  # both fixes, as computed above
    # The approval found the slow-path fix unexecuted and recorded it (see the submit test below).
    fix["body"] = with_exclusions(fix["body"], [_slow_fix()])
    done = world.run(world.pull_request_event("pull_request.synchronize.json"), fix_pr="true", fixes="verified")
    [fix] = world.fix_pulls()
    tip = world.remote.branch("graphmend/fix/pr-2")
    assert tip is not None
    narrowed = world.remote.show(tip, "pkg/model.py")
    assert EVERY_CALL in narrowed and SLOW not in narrowed, done.log
    assert "left out 1 fix(es) no verify entry point executed" in done.stdout
    assert "### Left out: 1 unproven fix(es)" in fix["body"] and f"`{_slow_fix()}`" in fix["body"]
    assert exclusions_in(fix["body"]) == ([_slow_fix()], "")  # kept for the next approval's recompute
    # Left out of the fix pull request, the slow path's fix is still offered as a review suggestion.
    suggestions = [c["body"] for c in fake_github.comments_on(REPO, NUMBER) if c["path"] == "pkg/model.py"]
    assert any("```suggestion\n" in body and SLOW in body for body in suggestions), suggestions


def test_submit_records_the_fixes_whose_lines_never_ran(tmp_path: Path, fake_github: FakeGitHub) -> None:
    world = fix_pr_world(tmp_path, fake_github, {**BASE, "pkg/model.py": BROKEN}, {"pkg/model.py": FIXED})
    world.pull["body"] = _fix_pr_body([])
    partial = {"rewritten_lines": 2, "covered": FULL_COVERAGE["covered"],
               "uncovered": [{"path": "pkg/model.py", "line": _slow_line(), "text": SLOW}]}
    report_file = tmp_path / "verify.json"
    report_file.write_text(json.dumps(report(entry(), coverage=partial)))
    done = submit(world, report_file, fixes="verified")
    review = fake_github.reviews_on(REPO, NUMBER)[-1]
    assert (review["state"], done.returncode) == ("COMMENTED", 1), done.log
    assert json.loads(done.outputs["unproven-fixes"]) == [_slow_fix()]
    assert "GraphMend's next run leaves them out" in review["body"] and _slow_fix() in review["body"]
    assert exclusions_in(world.pull["body"]) == ([_slow_fix()], "")


def test_submit_approves_the_narrowed_fix_only_with_its_record(tmp_path: Path, fake_github: FakeGitHub) -> None:
    [(_, _, narrowed)] = narrow(CHANGES, [_slow_fix()]).changes
    report_file = tmp_path / "verify.json"
    report_file.write_text(json.dumps(report(entry())))
    results = {}
    for name, excluded in (("recorded", [_slow_fix()]), ("not recorded", [])):
        world = fix_pr_world(tmp_path / name.replace(" ", "-"), fake_github, {**BASE, "pkg/model.py": BROKEN},
                             {"pkg/model.py": narrowed})
        world.pull["body"] = _fix_pr_body(excluded)
        done = submit(world, report_file, fixes="verified")
        review = fake_github.reviews_on(REPO, NUMBER)[-1]
        results[name] = (review["state"], done.returncode)
        if name == "not recorded":
            assert "`pkg/model.py` differs from GraphMend's rewrite of the base" in review["body"]
    assert results == {"recorded": ("APPROVED", 0), "not recorded": ("COMMENTED", 1)}


def test_a_record_naming_unknown_fixes_is_refused(tmp_path: Path, fake_github: FakeGitHub) -> None:
    report_file = tmp_path / "verify.json"
    report_file.write_text(json.dumps(report(entry())))
    records = {"unknown": (["pkg/model.py:1-2"], "not the bot's record"),
               "not fix names": (None, "are not fix names")}
    for name, (excluded, why) in records.items():
        world = fix_pr_world(tmp_path / name.replace(" ", "-"), fake_github, {**BASE, "pkg/model.py": BROKEN},
                             {"pkg/model.py": FIXED})
        body = _fix_pr_body(excluded or [])
        if excluded is None:  # hand-edited: a path outside the repository, not a fix name
            body = body.replace(FIX_PR_MARKER, '<!-- graphmend:unproven-fixes ["../../.github/x.yml"] -->\n'
                                + FIX_PR_MARKER)
        world.pull["body"] = body
        done = submit(world, report_file, fixes="verified")
        review = fake_github.reviews_on(REPO, NUMBER)[-1]
        assert (review["state"], done.returncode) == ("COMMENTED", 1), (name, done.log)
        assert why in review["body"], (name, review["body"])
