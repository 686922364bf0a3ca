"""A summary cache forges no result (review14's finding 1): on main a `.graphmend_cache/` committed
with an edited result entry made `graphmend check` of a clone say "clean". The CLI's cache is not
used when git tracks it or another user owns it, and every entry carries an HMAC under the user's
key (analysis/cache_trust.py), so an entry written or edited without that key is recomputed."""

import hashlib
import hmac
import json
import os
import shutil
import stat
import subprocess
import textwrap

import pytest

from tests.github.gitrepo import GIT_ENV

MODEL = textwrap.dedent("""
    import torch
    from torch import nn


    class A(nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                return x
            return -x
""")


def make_project(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "model.py").write_text(MODEL, encoding="utf-8")
    (project / ".graphmend.yml").write_text("select: [GM1]\n", encoding="utf-8")  # a project root: its cache
    return project


def check(graphmend_cmd, cwd, keys, *args, command="check"):
    env = {**os.environ, "XDG_CACHE_HOME": str(keys)}
    env.pop("GRAPHMEND_CACHE_DIR", None)
    return subprocess.run(
        [*graphmend_cmd, command, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


def forge_result(cache, key: bytes | None) -> None:
    """Empty the findings of the stored result, signed with `key` (an attacker's own), or unsigned."""
    [entry] = list((cache / "result").glob("*/*.json"))
    _, _, payload = entry.read_bytes().partition(b"\n")
    data = json.loads(payload)
    data["entry"]["value"][0] = []
    payload = json.dumps(data).encode()
    signature = hmac.new(key, payload, hashlib.sha256).hexdigest().encode() if key else b"0" * 64
    entry.write_bytes(signature + b"\n" + payload)


def test_a_committed_cache_is_not_used_and_says_so(tmp_path, graphmend_cmd):
    project, keys = make_project(tmp_path), tmp_path / "keys"
    assert check(graphmend_cmd, project, keys, ".").returncode == 1
    forge_result(project / ".graphmend_cache", (keys / "graphmend" / "key").read_bytes())
    git = ["git", "-C", str(project)]
    for command in (["init", "-q"], ["add", "-f", "."], ["commit", "-q", "-m", "forged"]):
        subprocess.run([*git, *command], env=GIT_ENV, check=True, capture_output=True)
    clone = tmp_path / "clone"
    subprocess.run(
        ["git", "clone", "-q", str(project), str(clone)], env=GIT_ENV, check=True, capture_output=True
    )
    # The committer's own key would verify its entry: only that git tracks the folder refuses it.
    result = check(graphmend_cmd, clone, keys, "model.py")
    assert result.returncode == 1 and "GM101" in result.stdout, result.stdout
    assert "is tracked by git: it is not used" in result.stderr and result.stderr.count("\n") == 1, (
        result.stderr
    )
    (clone / "model.py").write_text(MODEL + "\n\nY = 1\n", encoding="utf-8")
    review = check(graphmend_cmd, clone, keys, "--base", "HEAD", command="review")
    assert review.returncode in (0, 1) and "is tracked by git: it is not used" in review.stderr, review.stderr


def test_an_entry_not_signed_with_the_users_key_is_recomputed(tmp_path, graphmend_cmd):
    project = make_project(tmp_path)
    attacker, victim = tmp_path / "attacker", tmp_path / "victim"
    assert check(graphmend_cmd, project, attacker, ".").returncode == 1
    cache = project / ".graphmend_cache"
    for signer in (
        None,
        (attacker / "graphmend" / "key").read_bytes(),
    ):  # edited; re-signed under another key
        forge_result(cache, signer)
        assert check(graphmend_cmd, project, attacker, ".").returncode == (1 if signer is None else 0)
        result = check(graphmend_cmd, project, victim, ".")
        assert result.returncode == 1 and "GM101" in result.stdout and not result.stderr, result.stderr


def test_the_key_is_the_users_alone(tmp_path, graphmend_cmd):
    project, keys = make_project(tmp_path), tmp_path / "keys"
    assert check(graphmend_cmd, project, keys, ".").returncode == 1
    key = keys / "graphmend" / "key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600 and len(key.read_bytes()) == 32
    key.chmod(0o644)  # readable by others: anyone could sign entries
    result = check(graphmend_cmd, project, keys, ".")
    assert result.returncode == 1 and "no summary cache: the signing key" in result.stderr, result.stderr
    key.chmod(0o600)
    shutil.move(key, tmp_path / "elsewhere")
    key.symlink_to(tmp_path / "elsewhere")
    assert "no summary cache" in check(graphmend_cmd, project, keys, ".").stderr


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving a folder away needs root")
def test_a_cache_another_user_owns_is_not_used(tmp_path, graphmend_cmd):
    project, keys = make_project(tmp_path), tmp_path / "keys"
    (project / ".graphmend_cache").mkdir()
    os.chown(project / ".graphmend_cache", 12345, 12345)
    result = check(graphmend_cmd, project, keys, ".")
    assert result.returncode == 1 and "belongs to another user: it is not used" in result.stderr, (
        result.stderr
    )
    assert list((project / ".graphmend_cache").iterdir()) == []
