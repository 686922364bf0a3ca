"""End to end: scheduled and manual scans of the default branch, the tracking issue, sharding."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from botworld import RemoteWorld
from fake_github import FakeGitHub
from test_github_e2e import BASE, HEAD
from world import graphmend_command, load_payload

from graphmend_bot.findings import CheckResult, Finding, Location
from graphmend_bot.github.core.markers import tracking_lines
from graphmend_bot.github.scan import parse_snapshot, snapshot_of, tracking_body
from graphmend_bot.rules import ALL_RULES_BY_CODE

EXTRA = '''\
import torch
from torch import nn


class Extra(nn.Module):
    def forward(self, x):
        n = x.sum().item()
        print("extra", n)
        return x * n
'''


@pytest.fixture
def world(tmp_path: Path, fake_github: FakeGitHub) -> RemoteWorld:
    world = RemoteWorld(tmp_path, fake_github, BASE, HEAD)
    world.git.checkout("master")  # scans check out the default branch
    return world


def schedule_event(world: RemoteWorld) -> Path:
    path = world.tmp / f"schedule-{world.runs}.json"
    path.write_text(json.dumps({"schedule": "17 3 * * 1"}), encoding="utf-8")
    return path


def commit_to_master(world: RemoteWorld, files: dict[str, str | None]) -> str:
    sha = world.git.commit(files, "on master")
    world.git.git("push", "-q", str(world.remote.path), "master")
    return sha


def tracking_issues(world: RemoteWorld) -> list[dict[str, Any]]:
    return [i for i in world.fake.issues.values() if "graphmend:tracking" in (i["body"] or "")]


def test_scheduled_scan_keeps_one_tracking_issue(world: RemoteWorld) -> None:
    first = world.run(schedule_event(world), event_name="schedule")
    assert first.returncode == 1, first.stdout + first.stderr
    [issue] = tracking_issues(world)
    body = issue["body"]
    assert issue["title"] == "GraphMend: torch.compile graph breaks in master" and issue["state"] == "open"
    assert "**2 graph break(s)** in 2 file(s)" in body and "First scan." in body
    assert "| **GM401** print-in-traced-code | 1 | +1 |" in body and "| **GM402** logger-in-traced-code | 1 | +1 |" in body
    assert "[`pkg/model.py`](https://github.com/Codertocat/Hello-World/blob/" in body

    commit_to_master(world, {"pkg/extra.py": EXTRA})
    second = world.run(schedule_event(world), event_name="schedule")
    assert second.returncode == 1
    [issue] = tracking_issues(world)  # the same issue, edited in place
    body = issue["body"]
    assert "**4 graph break(s)** in 3 file(s)" in body
    assert "2 -> 4 (+2)" in body and "2 new, 0 fixed or gone." in body
    assert "| **GM401** print-in-traced-code | 2 | +1 |" in body and "| [`pkg/extra.py`](" in body and "| **GM301** tensor-item | 1 | +1 |" in body

    commit_to_master(world, {"pkg/extra.py": None, "pkg/model.py": None, "pkg/untouched.py": None})
    third = world.run(schedule_event(world), event_name="schedule")
    assert third.returncode == 0, third.stdout
    [issue] = tracking_issues(world)
    assert issue["state"] == "closed" and "No graph breaks left" in issue["body"]
    assert "4 -> 0 (-4)" in issue["body"]


def test_manual_scan_opens_a_fix_pull_request_against_the_default_branch(world: RemoteWorld) -> None:
    event = world.tmp / "dispatch.json"
    payload = load_payload("workflow_dispatch.payload.json")
    payload["ref"] = "refs/heads/master"
    event.write_text(json.dumps(payload))
    run = world.run(event, event_name="workflow_dispatch", fix_pr="true", tracking_issue="false")
    assert run.returncode == 1, run.stdout + run.stderr
    assert not tracking_issues(world)
    [fix] = world.fix_pulls()
    assert (fix["head"]["ref"], fix["base"]["ref"]) == ("graphmend/fix/master", "master")
    tip = world.remote.branch("graphmend/fix/master")
    master = world.remote.branch("master")
    assert tip is not None and world.remote.git("rev-parse", f"{tip}^") == master
    assert sorted(world.remote.git("diff", "--name-only", str(master), tip).splitlines()) == [
        "pkg/model.py", "pkg/untouched.py"]


def test_sharded_scan_merges_into_one_report(world: RemoteWorld) -> None:
    commit_to_master(world, {"pkg/extra.py": EXTRA})
    whole = world.run(schedule_event(world), event_name="schedule", tracking_issue="false")
    shards = world.tmp / "downloaded-artifacts"
    shards.mkdir()
    for index in (1, 2, 3):
        run = world.run(schedule_event(world), event_name="schedule", shard=f"{index}/3")
        assert run.returncode == 0, run.stdout + run.stderr
        name = run.outputs["shard-file"]
        shutil.move(world.git.root / name, shards / name)
    merged = world.run(schedule_event(world), event_name="schedule", shard_results=str(shards))
    assert merged.returncode == 1, merged.stdout + merged.stderr
    assert whole.sarif is not None and merged.sarif is not None
    assert merged.sarif["runs"][0]["results"] == whole.sarif["runs"][0]["results"]
    assert merged.outputs["findings"] == whole.outputs["findings"] == "4"
    [issue] = tracking_issues(world)
    assert "**4 graph break(s)** in 3 file(s)" in issue["body"]
    # A missing shard is an error, not a smaller report.
    (shards / "graphmend-shard-2-of-3.json").unlink()
    broken = world.run(schedule_event(world), event_name="schedule", shard_results=str(shards))
    assert broken.returncode == 2 and "missing shard(s) 2/3" in broken.stdout


def test_cli_shards_and_merge_equal_one_run(world: RemoteWorld) -> None:
    commit_to_master(world, {"pkg/extra.py": EXTRA})
    root = world.git.root
    cli = graphmend_command()
    whole = subprocess.run([*cli, "check", "--output-format", "sarif", "."], cwd=root, capture_output=True,
                           text=True, timeout=120)
    for index in (1, 2):
        subprocess.run([*cli, "check", "--shard", f"{index}/2", "--save-result", str(world.tmp / f"s{index}.json"),
                        "--exit-zero", "."], cwd=root, capture_output=True, text=True, timeout=120, check=True)
    merged = subprocess.run([*cli, "merge", "--output-format", "sarif", str(world.tmp / "s1.json"),
                             str(world.tmp / "s2.json")], cwd=root, capture_output=True, text=True, timeout=120)
    assert merged.returncode == whole.returncode == 1
    assert json.loads(merged.stdout)["runs"][0]["results"] == json.loads(whole.stdout)["runs"][0]["results"]
    bad = subprocess.run([*cli, "check", "--shard", "3/2", "--save-result", "x.json", "."], cwd=root,
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "1 <= i <= N" in bad.stderr
    junk = world.tmp / "junk.json"
    junk.write_text("[]")
    bad = subprocess.run([*cli, "merge", str(junk)], cwd=root, capture_output=True, text=True)
    assert bad.returncode == 2 and "not a GraphMend shard result" in bad.stderr and "Traceback" not in bad.stderr


def test_tracking_body_and_snapshot_round_trip() -> None:
    finding = Finding("GM401", "`print` in traced code", "a|b.py", Location(3, 5), Location(3, 12), "GB0059",
                      "m.f", "print(1)")
    result = CheckResult([finding], files_checked=7)
    now = snapshot_of(result.findings, "a" * 40)
    body = tracking_body(result, now, None, "main", "https://github.com/o/r/blob/" + "a" * 40)
    assert parse_snapshot(body) == now
    assert "a\\|b.py" in body and "(7 checked)" in body
    assert parse_snapshot("<!-- graphmend:snapshot {broken -->") is None


def test_a_file_name_holding_a_snapshot_is_never_read_as_one() -> None:
    # review16 #6's kin: the tables quote file names; only the body's last line is the snapshot
    forged = snapshot_of([], "f" * 40).render()
    finding = Finding("GM401", "`print` in traced code", f"{forged}.py", Location(3, 5), Location(3, 12), "GB0059",
                      "m.f", "print(1)")
    result = CheckResult([finding], files_checked=1)
    now = snapshot_of(result.findings, "a" * 40)
    body = tracking_body(result, now, None, "main", "https://github.com/o/r/blob/" + "a" * 40)
    assert forged in body and parse_snapshot(body) == now
    assert parse_snapshot(f"{forged}\n\n{body}") == now


def _many_findings(count: int, folder: str) -> CheckResult:
    """review17 #2's input: `count` findings of 60 rules in 150 files with long paths."""
    codes = sorted(ALL_RULES_BY_CODE)[:60]
    return CheckResult([Finding(codes[i % 60], "msg", f"{folder}/family_{i % 150}/modeling_family_{i % 150}.py",
                                Location(i + 1, 1), Location(i + 1, 5), "GB0170", source_line=f"    y = helper_{i}(x)")
                        for i in range(count)], [], 400)


@pytest.mark.parametrize("count, folder, counted", [(1999, "src/transformers/models", False),
                                                    (1500, "src/" + "deep/" * 60, True)])
def test_a_tracking_body_of_many_findings_fits_githubs_limit_and_reads_back(count: int, folder: str,
                                                                            counted: bool) -> None:
    """review17 #2: 1,999 findings made a 68,982-character body, and GitHub refuses one over 65,536
    (the issue stopped updating). The fingerprints are kept whole or not at all; the tables are cut."""
    result = _many_findings(count, folder)
    now = snapshot_of(result.findings, "a" * 40)
    before = snapshot_of(result.findings[1:], "b" * 40)
    body = tracking_body(result, now, before, "main", "https://github.com/o/r/blob/" + "a" * 40,
                         "https://github.com/o/r/actions/runs/123456789")
    assert len(body) < 65_536
    assert tracking_lines(body)[0] and parse_snapshot(body) == now  # the marker and snapshot still read back
    assert f"{count} graph break(s)" in body and "| **" in body and "| [`" in body
    # 1,500 fingerprints fit (the change counts them) and the long paths cut the file table; 1,999 do not fit.
    assert bool(now.keys) == counted and ("1 new, 0 fixed or gone." in body) == counted
    shown = body.count("| [`")
    assert shown < 100 if counted else shown == 100  # 100 rows at most, fewer when they are long
