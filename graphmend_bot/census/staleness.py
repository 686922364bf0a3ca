"""Whether a census still describes the files it covers: their lines must be its commit's.

A census names lines of the commit its tests ran on. An edit since then (`--fix`, uncommitted
work) shifts them: merged anyway, an ordinary line reads as a break only Dynamo saw (GM801) and the
real break as one that "ran in the tests without a graph break". git says which covered files
differ from that commit; the census's format needs nothing more.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from graphmend_bot.census.record import Census, CensusError


def refuse_if_edited(census: Census, root: Path) -> None:
    """CensusError naming the files the census covers (paths relative to `root`, a folder in git)
    that differ in the working tree from the commit it was recorded on."""
    covered = {record.path for record in census.breaks} | set(census.executed)
    if not covered or not census.commit:
        return
    done = subprocess.run(
        ["git", "diff", "--name-only", "--relative", "-z", "--no-ext-diff", "--no-textconv", census.commit, "--"],
        cwd=root, capture_output=True, text=True, encoding="utf-8", errors="surrogateescape", check=False,
    )
    if done.returncode != 0:
        raise CensusError(f"git cannot compare the working tree with commit {census.commit[:12]}, the census's, "
                          "so its lines cannot be trusted")
    edited = sorted(covered & set(done.stdout.split("\0")))
    if edited:
        more = f" and {len(edited) - 1} more file(s) it covers" if len(edited) > 1 else ""
        raise CensusError(f"{edited[0]}{more} changed since commit {census.commit[:12]}, where the census was "
                          "recorded, so its lines would point at other code; commit and record it again "
                          "(`graphmend census`)")
