"""The base census, trusted: an artifact of a default-branch run, fetched and checked by the bot.

A census is only as trustworthy as the run that wrote it. A pull request's own runs (its
`pull_request` workflows, its caches) are written by the pull request's code, so a base census
taken from any of them could hide the breaks the pull request adds. The gate (`fail-on:
new-breaks`) compares only with a census that the bot finds itself through the API and that passes
every rule below, each read from GitHub's workflow-run record, never from the artifact or the event:

1. the run is of the named census workflow file (`census-base-workflow`), in this repository
   (`head_repository` is this repository: no fork's run);
2. its event is `push` or `schedule` (never `pull_request`, `pull_request_target` or
   `workflow_run`), on the default branch (`head_branch`);
3. it ran on the pull request's base commit or the merge-base of base and head (`head_sha`), and
   the artifact's own `workflow_run` record names that run and commit: pinned to its commit;
4. it completed, and the artifact (`census-base-artifact`) has not expired;
5. the zip holds one census file, size-capped before and after unpacking, read by the strict census
   reader, and recorded on that same commit.

Anything else is a CensusError whose message says which rule refused it; the review then says the
base is unknown and the gate does not pass on it.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from github.Artifact import Artifact
from github.Repository import Repository
from github.WorkflowRun import WorkflowRun

from graphmend_bot.census.record import MAX_BYTES, Census, CensusError, load_census
from graphmend_bot.github.core.archive import ArchiveError, download

TRUSTED_EVENTS = frozenset({"push", "schedule"})
CENSUS_MEMBER = "graphmend-census.json"
MAX_RUNS = 20  # runs looked at per commit (re-runs, several pushes of one commit)


@dataclass(frozen=True)
class FoundCensus:
    census: Census
    label: str  # "run 123 of graphmend-census.yml on main at abc123": where it came from


def run_refusal(run: WorkflowRun, repository: str, default_branch: str, workflow_file: str,
                commits: Sequence[str]) -> str:
    """Why this workflow run's artifacts are not a trusted base census; "" when they are."""
    workflow_path = f".github/workflows/{workflow_file}"
    if (run.path or "").split("@", 1)[0] != workflow_path:
        return f"run {run.id} is of {run.path!r}, not {workflow_path}"
    head_repository = run.head_repository.full_name if run.head_repository is not None else ""
    if head_repository.lower() != repository.lower():
        return f"run {run.id} ran on {head_repository or 'an unknown repository'}, not {repository}"
    if run.event not in TRUSTED_EVENTS:
        return f"run {run.id} was triggered by {run.event!r}, not by a push or a schedule"
    if run.head_branch != default_branch:
        return f"run {run.id} ran on the branch {run.head_branch!r}, not the default branch {default_branch!r}"
    if run.head_sha not in commits:
        return f"run {run.id} ran on {run.head_sha[:12]}, not on the base or the merge-base"
    if run.status != "completed":
        return f"run {run.id} has not completed"
    return ""


def fetch_trusted_base(repo: Repository, token: str, workflow_file: str, artifact_name: str,
                       commits: Sequence[str], scratch: Path) -> FoundCensus:
    """The census of the first default-branch run that passes every rule, for the first of
    `commits` (the base, then the merge-base) that has one; CensusError saying why there is none."""
    default_branch = repo.default_branch

    def refusal(run: WorkflowRun) -> str:
        return run_refusal(run, repo.full_name, default_branch, workflow_file, commits)

    try:
        return fetch_census(repo, token, commits, artifact_name, refusal, scratch)
    except CensusError as error:
        raise CensusError(f"no completed push or schedule run of {workflow_file} on {default_branch} at the base "
                          f"or the merge-base has a census artifact ({error})") from None


def fetch_census(repo: Repository, token: str, commits: Sequence[str], artifact_name: str,
                 refusal: Callable[[WorkflowRun], str], scratch: Path) -> FoundCensus:
    """The census artifact of the first completed run at one of `commits` (in order) that `refusal`
    passes; CensusError naming the first refusals when there is none."""
    refusals: list[str] = []
    for commit in dict.fromkeys(c for c in commits if c):
        runs = repo.get_workflow_runs(head_sha=commit, status="completed")  # every field is checked below
        for index, run in enumerate(runs):
            if index >= MAX_RUNS:
                break
            refused = refusal(run)
            if refused:
                refusals.append(refused)
                continue
            artifact = _artifact(run, artifact_name)
            if artifact is None:
                refusals.append(f"run {run.id} has no unexpired artifact {artifact_name!r}")
                continue
            census = _download_census(artifact, run, token, scratch)
            workflow = (run.path or "").rpartition("/")[2]
            return FoundCensus(census, f"run {run.id} of {workflow} on {run.head_branch} at {run.head_sha[:12]}")
    raise CensusError("; ".join(refusals[:3]) or "no run found")


def _artifact(run: WorkflowRun, name: str) -> Artifact | None:
    for artifact in run.get_artifacts():
        if artifact.name == name and not artifact.expired:
            return artifact
    return None


def _download_census(artifact: Artifact, run: WorkflowRun, token: str, scratch: Path) -> Census:
    record = artifact.workflow_run
    if record is None or record.id != run.id or record.head_sha != run.head_sha:
        raise CensusError(f"the artifact {artifact.id} does not name run {run.id} at {run.head_sha[:12]}")
    if artifact.size_in_bytes > MAX_BYTES:
        raise CensusError(f"the base census artifact is larger than {MAX_BYTES >> 20} MiB")
    data = _download(artifact.archive_download_url, token, scratch)
    path = scratch / CENSUS_MEMBER
    path.write_bytes(_census_member(data))
    return load_census(path, expected_commit=run.head_sha)


def _download(url: str, token: str, scratch: Path) -> bytes:
    """The artifact's zip (the API answers with a redirect to storage), refused past MAX_BYTES."""
    path = scratch / "artifact.zip"
    try:
        download(url, path, MAX_BYTES, {"Authorization": f"Bearer {token}", "Accept": "application/vnd.github+json"},
                 "the base census artifact")
    except ArchiveError as error:
        raise CensusError(str(error)) from None
    return path.read_bytes()


def _census_member(data: bytes) -> bytes:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = [info for info in archive.infolist() if not info.is_dir()]
            if [info.filename for info in members] != [CENSUS_MEMBER]:
                raise CensusError(f"the base census artifact must hold {CENSUS_MEMBER} alone")
            (info,) = members
            if info.file_size > MAX_BYTES:
                raise CensusError(f"the base census unpacks to more than {MAX_BYTES >> 20} MiB")
            with archive.open(info) as member:
                content = member.read(MAX_BYTES + 1)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, NotImplementedError) as error:
        raise CensusError(f"the base census artifact is not a readable zip ({type(error).__name__})") from None
    if len(content) > MAX_BYTES:
        raise CensusError(f"the base census unpacks to more than {MAX_BYTES >> 20} MiB")
    return content
