"""The release workflow: least privilege, and the step that points action.yml at the published image,
run for real on a copy of this repository's action.yml with a local git remote standing in for GitHub."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
RELEASE = ROOT / ".github" / "workflows" / "release.yml"
DIGEST = "sha256:" + "0123456789abcdef" * 4


def load() -> dict:
    return yaml.safe_load(RELEASE.read_text("utf-8"))


def test_release_runs_on_version_tags_with_least_privilege() -> None:
    workflow = load()
    assert workflow[True] == {"push": {"tags": ["v[0-9]+.[0-9]+.[0-9]+"]}}  # `on:` reads as True in YAML 1.1
    assert workflow["permissions"] == {}
    jobs = workflow["jobs"]
    assert jobs["image"]["permissions"] == {"contents": "read", "packages": "write"}
    assert jobs["pin"]["permissions"] == {"contents": "write"}
    text = RELEASE.read_text("utf-8")
    for uses in re.findall(r"uses: (\S+)", text):
        assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", uses), f"{uses}: pin actions by commit SHA"
    # No secret at all: the job's own token, as `github.token` (a `secrets.` read would have to sit in
    # a protected environment, tests/github/test_workflow_trust.py).
    assert re.findall(r"secrets\.(\w+)", text) == []
    assert "${{ github.token }}" in text


def test_release_builds_runs_and_publishes_the_wheel_with_trusted_publishing() -> None:
    """PyPI: sdist and wheel from the tag, the wheel run in a fresh venv before upload, and the upload
    by OIDC (id-token: write, in the `pypi` environment) with no token or password anywhere."""
    jobs = load()["jobs"]
    assert jobs["dist"]["permissions"] == {"contents": "read"}
    checkout = jobs["dist"]["steps"][0]
    assert checkout["with"]["fetch-depth"] == 0  # the tag is what setuptools-scm versions from
    script = next(step["run"] for step in jobs["dist"]["steps"] if "run" in step)
    assert "python -m build" in script and "python -m venv" in script
    assert '[ "$("$RUNNER_TEMP/fresh/bin/graphmend" --version)" = "graphmend ${version}" ]' in script
    assert "graphmend\" check ." in script or 'graphmend" check .' in script
    publish = jobs["pypi"]
    assert publish["needs"] == "dist"
    assert publish["permissions"] == {"id-token": "write"}
    assert publish["environment"]["name"] == "pypi"
    (upload,) = [step for step in publish["steps"] if step["uses"].startswith("pypa/gh-action-pypi-publish@")]
    assert "with" not in upload  # no password, no token: trusted publishing


def _pin_script() -> str:
    (step,) = [s for s in load()["jobs"]["pin"]["steps"] if "run" in s]
    return step["run"]


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout.strip()


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_pin_step_points_the_release_at_the_image_and_moves_the_tags(tmp_path: Path) -> None:
    remote, clone = tmp_path / "remote.git", tmp_path / "clone"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    subprocess.run(["git", "init", "-q", str(clone)], check=True)
    shutil.copy(ROOT / "action.yml", clone / "action.yml")
    git(clone, "add", "action.yml")
    git(clone, "-c", "user.name=m", "-c", "user.email=m@example.com", "commit", "-qm", "release source")
    git(clone, "tag", "v1.2.3")
    git(clone, "remote", "add", "origin", str(remote))
    git(clone, "push", "-q", "origin", "refs/tags/v1.2.3")
    source = git(clone, "rev-parse", "v1.2.3")

    env = {**os.environ, "TAG": "v1.2.3", "DIGEST": DIGEST, "GITHUB_TOKEN": "ghs_unused_by_a_local_remote",
           "GITHUB_REPOSITORY_OWNER": "GraphMend", "GITHUB_SERVER_URL": "https://github.com"}
    done = subprocess.run(["bash", "-c", _pin_script()], cwd=clone, env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr

    image = f"docker://ghcr.io/graphmend/action:v1.2.3@{DIGEST}"
    for tag in ("v1.2.3", "v1"):
        released = git(remote, "rev-parse", f"{tag}^{{commit}}")
        assert git(remote, "rev-parse", f"{released}^") == source  # one commit on top of the tagged source
        action = yaml.safe_load(git(remote, "show", f"{released}:action.yml"))
        assert action["runs"] == {"using": "docker", "image": image}
    assert yaml.safe_load((ROOT / "action.yml").read_text("utf-8"))["runs"]["image"] == "Dockerfile"  # main builds


def test_pin_step_refuses_a_missing_digest(tmp_path: Path) -> None:
    shutil.copy(ROOT / "action.yml", tmp_path / "action.yml")
    env = {**os.environ, "TAG": "v1.2.3", "DIGEST": "", "GITHUB_TOKEN": "x", "GITHUB_REPOSITORY_OWNER": "o",
           "GITHUB_SERVER_URL": "https://github.com"}
    done = subprocess.run(["bash", "-c", _pin_script()], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 1
    assert "no image digest" in done.stdout
    assert "image: Dockerfile" in (tmp_path / "action.yml").read_text("utf-8")
