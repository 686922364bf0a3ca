"""Mistakes a new user makes are said, in one line, with the conventional exit status (issue 29.2)."""

import multiprocessing
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from graphmend_bot.gc_pause import worker_start

MODEL = """
    import torch
    from torch import nn

    class M(nn.Module):
        def forward(self, x):
            print("x")
            return x.sum().item()
"""
LIB = "def helper(x):\n    return x.sum().item()\n"


def run(cmd, cwd, *args):
    return subprocess.run([*cmd, *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_a_pyproject_with_a_toml_syntax_error_is_a_configuration_error(write_tree, graphmend_cmd):
    """It used to be skipped as "no [tool.graphmend] here", and its ignores silently dropped."""
    root = write_tree({"pyproject.toml": "[tool.graphmend\nignore = ['GM401']\n", "model.py": MODEL})
    result = run(graphmend_cmd, root, "check", ".")
    assert result.returncode == 2
    assert f"{root / 'pyproject.toml'}: invalid TOML: Expected ']'" in result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""


@pytest.mark.parametrize(("pyproject", "message"), [
    ('tool = "graphmend"\n', "`tool` must be a table, got str"),
    ("tool = 1\n", "`tool` must be a table, got int"),
    ("[tool]\ngraphmend = 1\n", "expected a table of settings, got int"),
    ("[tool.graphmend]\nselect = " + "[" * 20000 + "]" * 20000 + "\n", "invalid TOML: nested too deeply"),
    ("x = " + "{a = " * 5000 + "1" + "}" * 5000 + "\n", "invalid TOML: nested too deeply"),
])
def test_a_pyproject_mistake_outside_the_graphmend_table_is_a_configuration_error(
        write_tree, graphmend_cmd, pyproject, message):
    """review15's finding 8: these were internal errors (AttributeError, TypeError, RecursionError)."""
    root = write_tree({"pyproject.toml": pyproject, "model.py": MODEL})
    for args in ((".",), ("--config", "pyproject.toml", ".")):
        result = run(graphmend_cmd, root, "check", "--no-cache", *args)
        assert result.returncode == 2 and result.stdout == "", result.stderr
        assert result.stderr.startswith("graphmend: invalid configuration: ") and result.stderr.count("\n") == 1
        assert result.stderr.endswith(f"pyproject.toml: {message}\n"), result.stderr


def test_an_entry_point_that_matches_nothing_is_a_warning(write_tree, graphmend_cmd):
    root = write_tree({".graphmend.yml": "entry-points: ['lib:helpr']\n", "lib.py": LIB})
    result = run(graphmend_cmd, root, "check", ".")
    assert "warning: entry-points names 'lib:helpr', which matches no function in the checked files" in result.stdout
    assert "No graph breaks found in 1 file(s). 1 warning(s)." in result.stdout
    assert result.returncode == 0  # as ruff's per-file-ignores that match nothing: the run is not failed
    (root / ".graphmend.yml").write_text("entry-points: ['lib:helper']\n")
    fixed = run(graphmend_cmd, root, "check", ".")
    assert "lib.py:2:12: GM301" in fixed.stdout and "warning" not in fixed.stdout


def test_an_entry_point_elsewhere_is_not_a_warning_on_a_file_list(write_tree, graphmend_cmd):
    """pre-commit passes the changed files: an entry point in a module not among them is no typo."""
    root = write_tree({".graphmend.yml": "entry-points: ['lib:helper']\n", "lib.py": LIB, "other.py": "x = 1\n"})
    result = run(graphmend_cmd, root, "check", "other.py")
    assert result.returncode == 0 and "warning" not in result.stdout


def test_an_entry_point_typo_is_said_when_its_folder_or_file_is_checked(write_tree, graphmend_cmd):
    """The warning's path is the config file, which lies in neither `pkg` nor `pkg/lib.py`: a check of
    a subfolder or of the module itself used to drop it with the other errors outside the paths."""
    root = write_tree({".graphmend.yml": "entry-points: ['pkg.lib:helpr']\n", "pkg/__init__.py": "",
                       "pkg/lib.py": LIB})
    warning = "warning: entry-points names 'pkg.lib:helpr', which matches no function in the checked files"
    for paths in (["pkg"], ["pkg/lib.py"], ["."], ["--config", ".graphmend.yml", "pkg/lib.py"]):
        result = run(graphmend_cmd, root, "check", *paths)  # the last from the cache, the config spelled anew
        assert warning in result.stdout, paths
        assert result.returncode == 0


def test_a_file_with_a_syntax_error_or_undecodable_bytes_fails_the_run(write_tree, graphmend_cmd):
    """ruff exits 1 with E999: a file that was not checked must not pass as clean."""
    root = write_tree({"broken.py": "def forward(x:\n    pass\n", "clean.py": "x = 1\n"})
    result = run(graphmend_cmd, root, "check", ".")
    assert result.returncode == 1
    assert "broken.py: error: syntax error, line 1" in result.stdout
    assert "1 file(s) could not be analysed." in result.stdout
    assert run(graphmend_cmd, root, "check", "--exit-zero", ".").returncode == 0
    (root / "broken.py").write_bytes(b"x = '\xff\xfe'\n")
    result = run(graphmend_cmd, root, "check", ".")
    assert result.returncode == 1 and "broken.py: error: cannot decode" in result.stdout


def test_a_syntax_error_in_a_file_the_prefilter_skips_fails_the_run(write_tree, graphmend_cmd):
    """review14's finding 12: `def f(:` holds no entry text, so the prefilter never parsed it and
    `graphmend check syntax.py` (pre-commit's call) passed as clean. Checked cold, then warm (the
    outcome is kept with the file's scan)."""
    root = write_tree({"syntax.py": "def f(:\n", "ok.py": "x = 1\n", ".graphmend.yml": "select: [GM1]\n"})
    for args in (["--no-cache", "syntax.py"], ["syntax.py"], ["syntax.py", "ok.py"], ["syntax.py"]):
        result = run(graphmend_cmd, root, "check", *args)
        assert result.returncode == 1 and "syntax.py: error: syntax error, line 1" in result.stdout, args
    (root / "syntax.py").write_text("def f():\n    pass\n")
    assert run(graphmend_cmd, root, "check", "syntax.py").returncode == 0
    # An edit the last solve cannot see is answered from its state (incremental.py), but not this one.
    for text, code in (("x = 1\n", 0), ("def f(:\n", 1), ("x = 2\n", 0)):
        (root / "syntax.py").write_text(text)
        assert run(graphmend_cmd, root, "check", "syntax.py").returncode == code, text


def test_a_file_skipped_on_purpose_does_not_fail_the_run(write_tree, graphmend_cmd):
    root = write_tree({"blob.py": b"\x00\x01", "clean.py": "x = 1\n"})
    result = run(graphmend_cmd, root, "check", ".")
    assert "blob.py: error: skipped: binary file" in result.stdout
    assert result.returncode == 0


def test_an_unknown_code_in_an_ignore_comment_is_a_warning(write_tree, graphmend_cmd):
    root = write_tree({"model.py": MODEL.replace('print("x")', 'print("x")  # graphmend: ignore[GM410, gm401]')})
    result = run(graphmend_cmd, root, "check", ".")
    assert ("model.py: warning: line 6: `# graphmend: ignore[...]` names GM410, which is no rule "
            "(`graphmend rules` lists them): it hides nothing") in result.stdout
    assert "GM401" not in result.stdout  # the known code, in any case, still hides its finding
    assert "GM301" in result.stdout
    assert result.returncode == 1


def test_a_lower_case_code_hides_only_its_rule(write_tree, graphmend_cmd):
    """`ignore[gm301]` used to fall outside the comment's pattern and be read as a bare `ignore`."""
    root = write_tree({"model.py": MODEL.replace("x.sum().item()", "x.sum().item() + len([print('y')])  "
                                                                   "# graphmend: ignore[gm301]")})
    result = run(graphmend_cmd, root, "check", ".")
    assert "GM301" not in result.stdout
    assert result.stdout.count("GM401") == 2, result.stdout


@pytest.mark.parametrize("flags", [
    ("--add-noqa", "--fix"), ("--add-noqa", "--diff"), ("--add-noqa", "--update-baseline"),
    ("--fix", "--update-baseline"),
])
def test_two_modes_that_write_are_refused_not_one_dropped(write_tree, graphmend_cmd, flags):
    """`check --add-noqa --fix` applied the fixes and added no comment, `--add-noqa --update-baseline`
    wrote the baseline and no comment: one of the two was dropped without a word."""
    root = write_tree({"model.py": MODEL})
    before = (root / "model.py").read_text()
    result = run(graphmend_cmd, root, "check", "--no-cache", "--baseline", "base.json", *flags, "model.py")
    assert result.returncode == 2 and "cannot be used together" in result.stderr
    assert (root / "model.py").read_text() == before and not (root / "base.json").exists()


def test_ctrl_c_says_interrupted_and_exits_130(tmp_path):
    """The bot blocked on the GitHub API (a server that accepts and never answers) gets SIGINT."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(60)
    event = Path(__file__).parent / "github" / "fixtures" / "pull_request.opened.json"
    env = {**os.environ, "GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": str(event),
           "GITHUB_WORKSPACE": str(tmp_path), "GITHUB_REPOSITORY": "Codertocat/Hello-World",
           "GITHUB_API_URL": f"http://127.0.0.1:{server.getsockname()[1]}", "INPUT_GITHUB-TOKEN": "token"}
    bot = subprocess.Popen([sys.executable, "-m", "graphmend_bot.cli", "bot"], cwd=tmp_path, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        connection, _ = server.accept()
        bot.send_signal(signal.SIGINT)
        _, err = bot.communicate(timeout=60)
        connection.close()
    finally:
        bot.kill()
        server.close()
    assert bot.returncode == 130
    assert err == "Interrupted.\n"


def _sigint_handler(_: int) -> bool:
    return signal.getsignal(signal.SIGINT) == signal.SIG_IGN


def test_pool_workers_leave_ctrl_c_to_the_parent():
    """Ctrl-C reaches the whole process group: a worker that raised too would print its traceback."""
    with multiprocessing.get_context("fork").Pool(1, initializer=worker_start) as pool:
        assert pool.map(_sigint_handler, [0]) == [True]
