"""Whether a census still describes the files it covers: their lines must be its commit's.

A census names lines of the commit its tests ran on. An edit since then (`--fix`, uncommitted
work) shifts them: merged anyway, an ordinary line reads as a break only Dynamo saw (GM801) and the
real break as one that "ran in the tests without a graph break". git says which covered files
differ from that commit, and a covered file git does not track is refused too (git diff never
lists it); the census's format needs nothing more.
"""

from __future__ import annotations

from pathlib import Path

from graphmend_bot.census.record import Census, CensusError
from graphmend_bot.git_command import run_git


def refuse_if_edited(census: Census, root: Path) -> None:
    """CensusError naming the files the census covers (paths relative to `root`, a folder in git)
    that differ in the working tree from the commit it was recorded on."""
    covered = {record.path for record in census.breaks} | set(census.executed)
    if not covered or not census.commit:
        return
    done = run_git(["diff", "--name-only", "--relative", "-z", census.commit, "--"], root, text=True,
                   encoding="utf-8", errors="surrogateescape")
    if done.returncode != 0:
        raise CensusError(f"git cannot compare the working tree with commit {census.commit[:12]}, the census's, "
                          "so its lines cannot be trusted")
    edited = sorted(covered & set(done.stdout.split("\0")))
    untracked = sorted(covered - _tracked_files(root, census.commit))
    if untracked:  # git diff never lists them: whatever they held when the tests ran, they may differ now
        more = f" and {len(untracked) - 1} more file(s) it covers" if len(untracked) > 1 else ""
        raise CensusError(f"{untracked[0]}{more} is not committed, so nothing proves its lines are the ones the "
                          "census's tests ran; commit it and record the census again (`graphmend census`)")
    if edited:
        more = f" and {len(edited) - 1} more file(s) it covers" if len(edited) > 1 else ""
        raise CensusError(f"{edited[0]}{more} changed since commit {census.commit[:12]}, where the census was "
                          "recorded, so its lines would point at other code; commit and record it again "
                          "(`graphmend census`)")


def _tracked_files(root: Path, commit: str) -> set[str]:
    """The files git tracks under `root` (relative to it)."""
    done = run_git(["ls-files", "-z", "--"], root, text=True, encoding="utf-8", errors="surrogateescape")
    if done.returncode != 0:
        raise CensusError(f"git cannot list the files of commit {commit[:12]}, the census's, so its lines cannot be "
                          "trusted")
    return set(done.stdout.split("\0"))
