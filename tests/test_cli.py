"""The CLI as a user runs it: subprocesses, exit codes, what is printed."""

import gc
import json
import os
import subprocess
import sys
import tomllib

import pytest

from graphmend_bot.config import load_config

MODEL = """
    import torch
    from torch import nn

    class M(nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                x = x * 2
            return x
"""


def run(cmd, cwd, *args):
    return subprocess.run([*cmd, *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_check_reports_findings_with_source_and_exit_1(write_tree, graphmend_cmd):
    root = write_tree({"model.py": MODEL})
    result = run(graphmend_cmd, root, "check", ".")
    assert result.returncode == 1
    assert "model.py:6:12: GM101 `if` condition depends on tensor values [GB0170]" in result.stdout
    assert "6 |         if x.sum() > 0:" in result.stdout
    assert "gb0170.html" in result.stdout
    assert "Found 1 graph break(s) in 1 file(s)." in result.stdout
    assert result.stderr == ""


def test_clean_tree_exits_0_and_exit_zero_flag(write_tree, graphmend_cmd):
    root = write_tree({"clean.py": "x = 1\n", "model.py": MODEL})
    assert run(graphmend_cmd, root, "check", "clean.py").returncode == 0
    assert run(graphmend_cmd, root, "check", "--exit-zero", ".").returncode == 0


def test_select_and_ignore(write_tree, graphmend_cmd):
    root = write_tree({"model.py": MODEL})
    assert run(graphmend_cmd, root, "check", "--ignore", "GM1", ".").returncode == 0
    assert run(graphmend_cmd, root, "check", "--select", "GM4", ".").returncode == 0
    assert run(graphmend_cmd, root, "check", "--select", "GM101", ".").returncode == 1


def test_json_output_is_ruff_compatible(write_tree, graphmend_cmd):
    root = write_tree({"model.py": MODEL})
    result = run(graphmend_cmd, root, "check", "--output-format", "json", ".")
    (item,) = json.loads(result.stdout)
    assert item["code"] == "GM101"
    assert item["filename"] == os.path.join(str(root), "model.py")
    assert item["location"] == {"row": 6, "column": 12}
    assert item["end_location"] == {"row": 6, "column": 23}
    assert item["url"].endswith("/gb/gb0170.html")
    assert item["graph_break_id"] == "GB0170"
    assert "fix" in item


def test_github_output_is_workflow_commands(write_tree, graphmend_cmd):
    root = write_tree({"model.py": MODEL})
    result = run(graphmend_cmd, root, "check", "--output-format", "github", ".")
    assert result.stdout.startswith("::warning file=model.py,line=6,col=12,endLine=6,endColumn=23,")
    assert "title=GM101 graph break (GB0170)::" in result.stdout


def test_output_file(write_tree, graphmend_cmd):
    root = write_tree({"model.py": MODEL})
    result = run(graphmend_cmd, root, "check", "--output-format", "sarif", "-o", "out.sarif", ".")
    assert result.returncode == 1 and result.stdout == ""
    assert json.loads((root / "out.sarif").read_text())["version"] == "2.1.0"


def test_rule_and_rules(graphmend_cmd, tmp_path):
    listing = run(graphmend_cmd, tmp_path, "rules")
    assert listing.returncode == 0
    assert "GM101  GB0170  data-dependent-if" in listing.stdout
    doc = run(graphmend_cmd, tmp_path, "rule", "gm201")
    assert doc.returncode == 0
    for heading in ("## What it does", "## Why is this bad", "## Example", "## Use instead", "## Fix safety"):
        assert heading in doc.stdout
    unknown = run(graphmend_cmd, tmp_path, "rule", "GM999")
    assert unknown.returncode == 2 and "unknown rule" in unknown.stderr


def test_usage_error_exits_2(graphmend_cmd, tmp_path):
    assert run(graphmend_cmd, tmp_path, "check", "--output-format", "xml").returncode == 2
    assert run(graphmend_cmd, tmp_path, "frobnicate").returncode == 2


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("pyproject.toml", "[tool.graphmend]\nselect = 3\n", "select must be a list of strings"),
        ("pyproject.toml", "[tool.graphmend]\nselct = ['GM1']\n", "unknown setting 'selct'"),
        (".graphmend.yml", "select: [GM9]\n", "matches no rule"),
        (".graphmend.yml", "select: [\n", "invalid YAML"),
        (".graphmend.yml", "io-strategy: later\n", "io-strategy must be one of"),
        (".graphmend.yml", "deprecation-notices: hide\n", "deprecation-notices must be one of advice, guard, defer"),
        (
            "pyproject.toml",
            "[tool.graphmend]\nio-strategy = 'defer'\nio_strategy = 'guard'\n",
            "'io-strategy' and 'io_strategy' are the same setting",
        ),
        (".graphmend.yml", "select: [GM1]\nselect: [GM4]\n", "setting 'select' is given twice"),
    ],
)
def test_invalid_config_is_a_clear_error(write_tree, graphmend_cmd, name, content, message):
    root = write_tree({name: content, "model.py": MODEL})
    result = run(graphmend_cmd, root, "check", ".")
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("pyproject.toml", "[tool.graphmend]\nignore = ''\n"),
        ("pyproject.toml", "[tool.graphmend]\nignore = ['']\n"),
        ("pyproject.toml", "[tool.graphmend]\nselect = ['GM1', ' ']\n"),
        (".graphmend.yml", "ignore: ''\n"),
        (".graphmend.yml", "ignore: ['']\n"),
        (".graphmend.yml", "select: ['']\n"),
    ],
)
def test_a_blank_code_in_config_select_or_ignore_is_an_error(write_tree, graphmend_cmd, name, content):
    """review16 #4: `""` is a prefix of every code, so `ignore = ""` turned every rule off in silence."""
    root = write_tree({name: content, "model.py": MODEL})
    result = run(graphmend_cmd, root, "check", ".")
    assert result.returncode == 2
    assert "names an empty code" in result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_yaml_merge_keys_are_no_duplicate_settings(tmp_path):
    """review11 #2: `<<: *anchor` (a merge key) may be given, and its keys overridden."""
    path = tmp_path / ".graphmend.yml"
    path.write_text("verify:\n  base: &common {rtol: 0.001, atol: 0.0}\n  large:\n    <<: *common\n    rtol: 0.01\n")
    assert load_config(path).verify["large"] == {"rtol": 0.01, "atol": 0.0}


def test_config_from_pyproject_and_yaml(write_tree, graphmend_cmd):
    root = write_tree({
        "pyproject.toml": "[tool.graphmend]\nignore = ['GM101']\n",
        "model.py": MODEL,
        "lib.py": "def helper(x):\n    return x.sum().item()\n",
    })
    assert run(graphmend_cmd, root, "check", ".").returncode == 0
    (root / "pyproject.toml").unlink()
    (root / ".graphmend.yml").write_text("select: [GM3]\nentry-points: ['lib:helper']\n")
    result = run(graphmend_cmd, root, "check", ".")
    assert result.returncode == 1
    assert "lib.py:2:12: GM301" in result.stdout
    assert "GM101" not in result.stdout


def test_bad_input_is_reported_and_the_run_goes_on(write_tree, graphmend_cmd):
    root = write_tree({
        "model.py": MODEL,
        "broken.py": "from torch import nn\n\nclass M(nn.Module):\n    def forward(self, x:\n        pass\n",
        "latin1.py": "# -*- coding: latin-1 -*-\nname = 'caf\xe9'\n".encode("latin-1"),
        "undecodable.py": b"x = '\xff\xfe'\n",
        "binary.py": b"\x00\x01\x02",
        "deep.py": "def forward(x):\n    return " + "(" * 300 + "x" + ")" * 300 + "\n",
    })
    (root / "big.py").write_bytes(b"# padding\n" * 600_000)
    (root / "loop").mkdir()
    os.symlink("..", root / "loop" / "parent")
    result = run(graphmend_cmd, root, "check", ".", "missing_dir")
    # a path that does not exist is an error (exit 2, issue 15); the run still reports everything else
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    out = result.stdout
    assert "model.py:6:12: GM101" in out
    assert "broken.py: error: syntax error, line 4" in out
    assert "undecodable.py: error: cannot decode" in out
    assert "binary.py: error: skipped: binary file" in out
    assert "big.py: error: skipped:" in out
    assert "missing_dir: error: no such file or directory" in out
    assert "latin1.py" not in out  # a declared encoding is honoured
    assert "deep.py" not in out or "deep.py: error:" in out


def test_a_named_notebook_is_said_to_be_skipped_not_reported_clean(write_tree, graphmend_cmd):
    """A notebook's JSON parses as one Python dict literal: it was "checked" and found clean."""
    root = write_tree({"n.ipynb": '{"cells": [{"cell_type": "code", "source": ["print(1)"]}], "nbformat": 4}\n'})
    result = run(graphmend_cmd, root, "check", "n.ipynb")
    assert "n.ipynb: error: skipped: a Jupyter notebook" in result.stdout and "jupyter nbconvert" in result.stdout
    assert "No graph breaks found in 1 file" not in result.stdout


def test_a_syntax_error_fails_the_run_when_the_file_is_named_or_a_model_imports_it(write_tree, graphmend_cmd):
    """Scope only flows through imports, so a script no model imports is never summarised: a tree's
    walk leaves its syntax to the linter, but named on the command line (pre-commit) it is parsed
    (ruff's E999; review14's finding 12: it passed as clean)."""
    files = {"model.py": MODEL, "scripts/__init__.py": "", "scripts/convert.py": "def main(:\n    pass\n"}
    root = write_tree(files)
    assert run(graphmend_cmd, root, "check", ".").returncode == 1  # MODEL's findings; convert.py unparsed
    assert "convert.py" not in run(graphmend_cmd, root, "check", ".").stdout
    named = run(graphmend_cmd, root, "check", "model.py", "scripts/convert.py")
    assert named.returncode == 1 and "convert.py: error: syntax error, line 1" in named.stdout
    write_tree({"model.py": MODEL.replace("import torch", "import torch\n    from scripts import convert")})
    assert "convert.py: error: syntax error" in run(graphmend_cmd, root, "check", ".").stdout


def test_unreadable_file_is_reported(write_tree, graphmend_cmd):
    root = write_tree({"model.py": MODEL})
    os.symlink("does_not_exist.py", root / "dangling.py")
    result = run(graphmend_cmd, root, "check", ".")
    assert "dangling.py: error: cannot read" in result.stdout
    assert "model.py:6:12: GM101" in result.stdout


def test_module_entry_point_matches_console_script(write_tree):
    root = write_tree({"model.py": MODEL})
    script = os.path.join(os.path.dirname(sys.executable), "graphmend")
    assert run([script], root, "check", ".").stdout == run([sys.executable, "-m", "graphmend_bot.cli"], root, "check", ".").stdout


# ---- conventions a ruff user expects (issue 15 part 3) ------------------------------------------


def test_missing_path_is_an_error_and_the_other_paths_are_still_reported(write_tree, graphmend_cmd):
    root = write_tree({"model.py": MODEL})
    result = run(graphmend_cmd, root, "check", "modle.py", "model.py")
    assert result.returncode == 2
    assert "graphmend: error: modle.py: no such file or directory" in result.stderr
    assert "model.py:6:12: GM101" in result.stdout  # the finding in the real path is not lost
    # --exit-zero silences findings, never a typo in a path (CI must not pass on it)
    result = run(graphmend_cmd, root, "check", "--exit-zero", "nothing/here")
    assert result.returncode == 2
    assert "nothing/here: no such file or directory" in result.stderr
    assert run(graphmend_cmd, root, "check", "--diff", "modle.py").returncode == 2
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("option", ["--select", "--ignore", "--extend-ignore"])
def test_unknown_code_on_the_command_line_is_an_error_naming_it(write_tree, graphmend_cmd, option):
    root = write_tree({"model.py": MODEL})
    result = run(graphmend_cmd, root, "check", option, "GM1,XYZ", ".")
    assert result.returncode == 2
    assert f"argument {option}: 'XYZ' matches no rule" in result.stderr
    assert result.stdout == ""
    # prefixes of real codes stay valid
    assert run(graphmend_cmd, root, "check", option, "GM1", ".").returncode in (0, 1)


def test_unknown_code_in_config_ignore_is_an_error_naming_it(write_tree, graphmend_cmd):
    root = write_tree({".graphmend.yml": "ignore: [GM301, GM999]\n", "model.py": MODEL})
    result = run(graphmend_cmd, root, "check", ".")
    assert result.returncode == 2
    assert "ignore names 'GM999', which matches no rule" in result.stderr


@pytest.mark.parametrize("argv", [["rules"], ["rule", "GM101"], ["check", "."]])
def test_closed_pipe_ends_quietly(write_tree, graphmend_cmd, argv):
    """`graphmend rules | head -1`: the reader is gone before anything is written (deterministic)."""
    root = write_tree({"model.py": MODEL})
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        result = subprocess.run(
            [*graphmend_cmd, *argv], cwd=root, stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=120
        )
    finally:
        os.close(write_end)
    assert result.stderr == ""  # no "internal error: BrokenPipeError", no "Exception ignored"
    assert result.returncode == 0  # as ruff and ripgrep: the reader chose to stop reading


def test_script_ends_without_the_interpreters_teardown(write_tree):
    """`run` (the `graphmend` script, `python -m graphmend_bot.cli`) exits with main's status once its
    output is flushed, skipping the teardown that frees every object one by one (seconds on a large
    tree): an atexit handler, which runs in that teardown, never does."""
    root = write_tree({"model.py": MODEL})
    code = ("import atexit, sys; atexit.register(print, 'torn down', file=sys.stderr); "
            "sys.argv[1:] = ['check', '.']; from graphmend_bot.cli import run; run()")
    result = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert "model.py:6:12: GM101" in result.stdout and "Found 1 graph break(s)" in result.stdout  # flushed
    assert "torn down" not in result.stderr
    with open(os.path.join(os.path.dirname(__file__), "..", "pyproject.toml"), "rb") as pyproject:
        assert tomllib.load(pyproject)["project"]["scripts"]["graphmend"] == "graphmend_bot.cli:run"


def test_script_ends_other_commands_normally():
    """Only a check skips the teardown: the other commands (the bot, the census, verify) keep their
    atexit handlers and the cleanup of their temporary directories."""
    code = ("import atexit, sys; atexit.register(print, 'torn down', file=sys.stderr); "
            "sys.argv[1:] = ['rules']; from graphmend_bot.cli import run; run()")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0
    assert "GM101" in result.stdout
    assert "torn down" in result.stderr


def test_check_leaves_the_collector_off_only_when_the_process_ends_after_it(write_tree, capsys):
    """Turned back on after a check, the collector's next young collection walks every object the
    analysis left alive; `run` ends the process instead, so main keeps it off for it, and only for it."""
    from graphmend_bot.cli import main

    root = write_tree({"model.py": MODEL})
    assert gc.isenabled()
    try:
        assert main(["check", str(root)]) == 1
        assert gc.isenabled()
        assert main(["check", str(root)], ends_process=True) == 1
        assert not gc.isenabled()
    finally:
        gc.enable()
    assert capsys.readouterr().out.count("model.py:6:12: GM101") == 2


GUARD_MODEL = """
    import torch
    from torch import nn

    class M(nn.Module):
        def forward(self, input_ids, limit):
            if (input_ids >= limit).any():
                raise ValueError("token id out of range")
            n = (input_ids != 0).sum().item()
            return input_ids * n
"""


def test_help_lines_speak_of_the_flagged_code(write_tree, graphmend_cmd):
    root = write_tree({"model.py": GUARD_MODEL})
    result = run(graphmend_cmd, root, "check", ".")
    helps = [line for line in result.stdout.splitlines() if "= help:" in line]
    assert len(helps) == 2
    assert "Lower the guard on `(input_ids >= limit).any()` to `torch._assert_async`" in helps[0]
    assert "Keep the value of `(input_ids != 0).sum().item()` a tensor" in helps[1]
    assert not any("isnan" in line or "graphmend rule GM" in line for line in helps)


def test_help_line_names_the_fix_when_one_exists(write_tree, graphmend_cmd):
    root = write_tree({"model.py": GUARD_MODEL})
    result = run(graphmend_cmd, root, "check", "--show-fixes", ".")
    lines = result.stdout.splitlines()
    guard = lines.index(next(line for line in lines if ": GM201 " in line))
    block = lines[guard:guard + 7]
    fix = next(line for line in block if "= fix (" in line or "= help:" in line)
    assert "= fix (unsafe): Lower the validation guard to `torch._assert_async`" in fix


def test_fix_on_a_missing_path_prints_only_the_error(write_tree, graphmend_cmd):
    """Issue 24.3: no "Fixed 0 graph break(s)" after the error when there is nothing to fix."""
    root = write_tree({"model.py": MODEL})
    for option in ("--fix", "--diff"):
        result = run(graphmend_cmd, root, "check", option, "modle.py")
        assert result.returncode == 2
        assert result.stderr == "graphmend: error: modle.py: no such file or directory\n"
        assert result.stdout == ""


def test_fix_says_a_file_was_rewritten_when_no_removal_is_confirmed(write_tree, graphmend_cmd):
    """Review 14, finding 4: torchsde's interval guard is lowered (the file is written) but the
    `elif` that keeps the eager raise is still reported, so no removal is confirmed; the summary
    says the file was rewritten instead of only "Fixed 0 ... in 0 file(s)"."""
    fixture = os.path.join(os.path.dirname(__file__), "fixtures", "rewrite", "guards", "interval_bounds.in.py")
    with open(fixture, encoding="utf-8") as handle:
        root = write_tree({"m.py": handle.read()})
    result = run(graphmend_cmd, root, "check", "--no-cache", "--fix", "--unsafe-fixes", "m.py")
    with open(os.path.join(root, "m.py"), encoding="utf-8") as handle:
        assert "torch._assert_async(" in handle.read()
    assert "Rewrote 1 file(s) in all." in result.stderr, result.stderr
    assert "does not parse" not in result.stderr


def test_review_and_check_do_not_load_pygithub():
    """`graphmend review` runs the bot's planning without GitHub: PyGithub (and requests, jwt) is
    loaded only by the `bot` subcommand, a fifth of a second of every local review's start-up."""
    import graphmend_bot

    root = os.path.dirname(os.path.dirname(os.path.abspath(graphmend_bot.__file__)))
    code = ("import sys, graphmend_bot.cli, graphmend_bot.github.review.local_review\n"
            "print(sorted(m for m in ('github', 'requests', 'jwt') if m in sys.modules))")
    env = {**os.environ, "PYTHONPATH": root}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
    assert out.strip() == "[]"
    out = subprocess.run([sys.executable, "-c", "from graphmend_bot.github import run_bot; print(run_bot.__module__)"],
                         capture_output=True, text=True, env=env, check=True).stdout
    assert out.strip() == "graphmend_bot.github.bot"


def test_an_output_file_that_cannot_be_written_is_a_clear_error_and_the_report_still_comes(write_tree, graphmend_cmd):
    """review16 #7: `-o` into a folder that does not exist said "internal error" and lost the findings."""
    root = write_tree({"model.py": MODEL})
    result = run(graphmend_cmd, root, "check", "--output-format", "json", "-o", "no/such/folder/x.json", ".")
    assert result.returncode == 2
    assert "graphmend: cannot write no/such/folder/x.json: No such file or directory" in result.stderr
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr
    assert [f["code"] for f in json.loads(result.stdout)] == ["GM101"]


@pytest.mark.parametrize("output_format", ["sarif", "github"])
def test_statistics_in_a_format_it_cannot_take_is_refused(write_tree, graphmend_cmd, output_format):
    """review16 #7: `--statistics --output-format sarif` printed the text table (ruff refuses it too)."""
    root = write_tree({"model.py": MODEL})
    result = run(graphmend_cmd, root, "check", "--statistics", "--output-format", output_format, ".")
    assert result.returncode == 2
    assert f"--statistics prints text or json, not {output_format}" in result.stderr
    assert result.stdout == ""

