"""File names and source lines reach the terminal and CI logs shown, never obeyed (review4's
finding 10): no line of the text report or the local review is a workflow command, and no control
character (an ANSI or OSC escape, a bidirectional override) is printed raw."""

import json
import os
import pty
import subprocess

from graphmend_bot.findings import CheckResult, FileError, Finding, Location
from graphmend_bot.github.core.outputs import Log
from graphmend_bot.report import RENDERERS
from graphmend_bot.report.terminal import terminal_text, visible

FORGED = "::error title=Forged::Approved by security team "
ESCAPES = "ev\x1b[2J\x1b]0;pwned\x07il\nx"
MODEL = """
    import torch
    from torch import nn


    class Net(nn.Module):
        def forward(self, x):
            print("x\x1b[31mRED")  # \x1b]8;;https://evil.example\x07link\x1b]8;;\x07
            return x
"""


def commands_or_controls(output: str) -> list[str]:
    """The lines a runner would obey, or that carry a raw control character."""
    return [line for line in output.split("\n")
            if line.strip().startswith("::") or "##[" in line
            or any((ord(c) < 32 and c != "\t") or 0x7f <= ord(c) <= 0x9f or c == "\u202e" for c in line)]


def run(cmd, cwd, *args):
    return subprocess.run([*cmd, *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_a_file_name_never_starts_a_workflow_command_in_the_text_report(write_tree, graphmend_cmd):
    root = write_tree({f"{FORGED}.py": MODEL, f"{ESCAPES}.py": MODEL, "##[error]x.py": MODEL})
    result = run(graphmend_cmd, root, "check", "--no-cache", ".")
    assert result.returncode == 1, result.stderr
    assert commands_or_controls(result.stdout) == []
    assert ":\u200b:error title=Forged::Approved by security team .py:7:9: GM401" in result.stdout
    assert "ev\\x1b[2J\\x1b]0;pwned\\x07il\\x0ax.py:7:9: GM401" in result.stdout
    assert "##\u200b[error]x.py:7:9: GM401" in result.stdout


def test_source_lines_show_their_escapes_with_the_caret_under_the_span(write_tree, graphmend_cmd):
    root = write_tree({"model.py": MODEL})
    lines = run(graphmend_cmd, root, "check", "--no-cache", ".").stdout.splitlines()
    assert commands_or_controls("\n".join(lines)) == []
    shown = '7 |         print("x\\x1b[31mRED")  # \\x1b]8;;https://evil.example\\x07link\\x1b]8;;\\x07'
    assert shown in lines
    caret = lines[lines.index(shown) + 1]
    assert caret == "  |         " + "^" * len('print("x\\x1b[31mRED")')


def test_the_local_review_is_shown_the_same_way(write_tree, graphmend_cmd):
    root = write_tree({"README.md": "base\n"})
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", "."], check=True)
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base"],
                   check=True)
    write_tree({f"{FORGED}.py": MODEL})
    for output_format in ("text", "markdown"):
        result = run(graphmend_cmd, root, "review", "--no-cache", "--base", "HEAD", "--output-format", output_format)
        assert "GM401" in result.stdout, result.stderr
        assert commands_or_controls(result.stdout) == [], output_format


def test_the_report_escapes_messages_bidi_controls_and_error_lines():
    finding = Finding(code="GM401", message="`print` in traced code\n::warning::forged", path="m\u202eyp.py",
                      location=Location(3, 5), end_location=Location(3, 15), gb_id="GB0059", symbol="m.f",
                      source_line="    print('\u202e')")
    text = RENDERERS["text"](CheckResult([finding], [FileError("::set-output name=x::y.py", "cannot read")], 2))
    assert commands_or_controls(text) == []
    assert text.startswith("m\\u202eyp.py:3:5: GM401 `print` in traced code\\x0a::warning::forged [GB0059]\n")
    assert "    print('\\u202e')" in text
    assert "\n:\u200b:set-output name=x::y.py: error: cannot read\n" in text


def test_printable_text_is_left_as_it_reads():
    """Non-ASCII names and code, tabs, `::` inside a line and the report's own lines are unchanged."""
    text = "modèle/中文.py:1:1: GM401 `print(\"🙂\")`\tx :: y\n  |\n1 | a = b\n"
    assert terminal_text(text) == text
    assert visible("日本語 ::x") == "日本語 ::x"
    finding = Finding(code="GM401", message="`print` in traced code", path="modèle.py", location=Location(1, 5),
                      end_location=Location(1, 15), gb_id="GB0059", symbol="m.f", source_line="    print('é')")
    lines = RENDERERS["text"](CheckResult([finding], [], 1)).splitlines()
    assert lines[0] == "modèle.py:1:5: GM401 `print` in traced code [GB0059]"
    assert lines[2:4] == ["1 |     print('é')", "  |     ^^^^^^^^^^"]


def test_the_bots_log_shows_control_characters_escaped(capsys):
    log = Log()
    log.info(f"reviewing {ESCAPES}.py")
    log.warning(f"{ESCAPES}.py: cannot read")
    out = capsys.readouterr().out
    assert commands_or_controls(out.replace("::warning title=GraphMend::", "")) == []
    assert "reviewing ev\\x1b[2J\\x1b]0;pwned\\x07il" in out
    assert out.count("\n") == 3  # info's two lines (a newline in a name is a new, inert line) and the warning


# review5's finding 7: `--diff` quotes the tree's code, a docstring line `::error ...` among it.
FIXABLE = """
    import torch


    @torch.compile
    def f(x):
        s = x.abs().max().item()
        doc = \"\"\"
    ::error file=x.py::PWNED
    \x1b]0;pwn\x07 \x9b31m
    \"\"\"
        return x - s
"""


def diff_env(**extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key != "GITHUB_ACTIONS"}
    return {**env, **extra}


def test_the_diff_in_an_actions_log_is_shown_never_obeyed(write_tree, graphmend_cmd):
    root = write_tree({"e.py": FIXABLE})
    result = subprocess.run([*graphmend_cmd, "check", "--no-cache", "--diff", "e.py"], cwd=root, capture_output=True,
                            text=True, timeout=120, env=diff_env(GITHUB_ACTIONS="true"))
    assert "+    s = x.abs().max().detach()\n" in result.stdout, result.stderr
    assert commands_or_controls(result.stdout) == []
    assert " :\u200b:error file=x.py::PWNED\n \\x1b]0;pwn\\x07 \\x9b31m\n" in result.stdout


def test_the_diff_on_a_terminal_is_shown_never_obeyed(write_tree, graphmend_cmd):
    root = write_tree({"e.py": FIXABLE})
    leader, follower = pty.openpty()
    process = subprocess.Popen([*graphmend_cmd, "check", "--no-cache", "--diff", "e.py"], cwd=root, stdout=follower,
                               stderr=subprocess.DEVNULL, env=diff_env())
    os.close(follower)
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal's other end closed: the run is over
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    assert process.wait(timeout=120) == 1
    text = shown.decode().replace("\r\n", "\n")  # the terminal writes its line ends as \r\n
    assert "+    s = x.abs().max().detach()\n" in text
    assert commands_or_controls(text) == []


def test_the_diff_piped_or_redirected_stays_a_patch_git_applies(write_tree, graphmend_cmd, tmp_path):
    root = write_tree({"e.py": FIXABLE})
    patch = subprocess.run([*graphmend_cmd, "check", "--no-cache", "--diff", "e.py"], cwd=root, capture_output=True,
                           timeout=120, env=diff_env()).stdout
    assert b"\n ::error file=x.py::PWNED\n \x1b]0;pwn\x07 \xc2\x9b31m\n" in patch  # byte for byte, as in the file
    before = (root / "e.py").read_bytes()
    subprocess.run(["git", "apply", "-"], cwd=root, input=patch, check=True, timeout=60)
    assert (root / "e.py").read_bytes() == before.replace(b".item()", b".detach()")


def test_the_diff_redirected_to_a_file_in_actions_stays_a_patch(write_tree, graphmend_cmd, tmp_path):
    root = write_tree({"e.py": FIXABLE})
    with open(tmp_path / "fix.patch", "wb") as patch:
        subprocess.run([*graphmend_cmd, "check", "--no-cache", "--diff", "e.py"], cwd=root, stdout=patch,
                       timeout=120, env=diff_env(GITHUB_ACTIONS="true"))
    before = (root / "e.py").read_bytes()
    subprocess.run(["git", "apply", str(tmp_path / "fix.patch")], cwd=root, check=True, timeout=60)
    assert (root / "e.py").read_bytes() == before.replace(b".item()", b".detach()")


# review5's finding 8: an undecodable byte of a file name is Python's surrogate \udcNN.
def test_undecodable_bytes_of_a_file_name_are_shown_as_escapes(write_tree, graphmend_cmd):
    root = write_tree({"a\udc9b31m\udcff.py": MODEL})
    result = subprocess.run([*graphmend_cmd, "check", "--no-cache", "."], cwd=root, capture_output=True, timeout=120)
    assert b"a\\x9b31m\\xff.py:7:9: GM401" in result.stdout, result.stderr
    assert b"\x9b" not in result.stdout and b"\xff" not in result.stdout
    assert visible("a\udc9b\udc80b") == "a\\x9b\\x80b"
    assert visible("\udc7f\ud800") == "\udc7f\ud800"  # only the stand-ins for bytes 0x80-0xff


def test_github_annotations_show_control_characters_escaped():
    finding = Finding(code="GM401", message="`print(\"\x1b[2J\x9b\")` 50%", path=f"{ESCAPES}\udc9b,é:.py",
                      location=Location(3, 5), end_location=Location(3, 15), gb_id="GB0059", symbol="m.f")
    output = RENDERERS["github"](CheckResult([finding], [FileError(f"{ESCAPES}.py", "cannot read")], 2))
    assert commands_or_controls(output.replace("::warning file=", "").replace("::error file=", "")) == []
    lines = output.splitlines()
    assert lines[0].startswith("::warning file=ev\\x1b[2J\\x1b]0;pwned\\x07il%0Ax\\x9b%2Cé%3A.py,line=3,")
    assert lines[0].endswith("::`print(\"\\x1b[2J\\x9b\")` 50%25")
    assert lines[1] == "::error file=ev\\x1b[2J\\x1b]0;pwned\\x07il%0Ax.py::cannot read"


def test_an_error_naming_a_path_of_the_tree_is_one_shown_line(write_tree, graphmend_cmd):
    folder = f"{ESCAPES}\n::error::forged\udc9b"
    root = write_tree({f"{folder}/pyproject.toml": "[tool.graphmend\n", f"{folder}/m.py": "x = 1\n"})
    result = subprocess.run([*graphmend_cmd, "check", "--no-cache", "m.py"], cwd=root / folder, capture_output=True,
                            timeout=120)
    assert result.returncode == 2
    stderr = result.stderr.decode()
    assert commands_or_controls(stderr) == [] and stderr.count("\n") == 1, stderr
    assert "ev\\x1b[2J\\x1b]0;pwned\\x07il\\x0ax\\x0a::error::forged\\x9b/pyproject.toml: invalid TOML" in stderr


def test_an_ordinary_error_reads_as_before(write_tree, graphmend_cmd):
    root = write_tree({"pyproject.toml": "[tool.graphmend]\nsellect = ['GM1']\n", "m.py": "x = 1\n"})
    result = run(graphmend_cmd, root, "check", "--no-cache", "m.py")
    assert result.returncode == 2
    assert result.stderr.startswith(
        f"graphmend: invalid configuration: {root / 'pyproject.toml'}: unknown setting 'sellect'; expected one of ")
    assert ", select, " in result.stderr and result.stderr.count("\n") == 1


def test_a_crlf_files_diff_in_an_actions_log_still_applies(write_tree, graphmend_cmd):
    """review6: in Actions a piped `--diff` is shown escaped, but a `\\r` ending a line moves nothing,
    so it is kept and a CRLF file's patch still applies (`| tee fix.patch`, then `git apply`; a file
    holding other control characters cannot be both shown inert and applied)."""
    plain = "import torch\n\n\n@torch.compile\ndef f(x):\n    s = x.abs().max().item()\n    return x - s\n"
    root = write_tree({"e.py": plain.replace("\n", "\r\n").encode()})
    result = subprocess.run([*graphmend_cmd, "check", "--no-cache", "--diff", "e.py"], cwd=root, capture_output=True,
                            timeout=120, env=diff_env(GITHUB_ACTIONS="true"))
    patch = result.stdout
    assert b"\\x0d" not in patch and b"detach()\r\n" in patch, result.stderr
    subprocess.run(["git", "apply", "--check", "-"], cwd=root, input=patch, check=True, timeout=60)


def test_the_baseline_written_is_named_as_one_shown_line(write_tree, graphmend_cmd):
    """review6: `--update-baseline` names the configured path; the configuration is the tree's own."""
    name = "b\x1b[31mRED\n::error::forged.json"
    root = write_tree({"pyproject.toml": f"[tool.graphmend]\nbaseline = {json.dumps(name)}\n",
                       "m.py": "x = 1\n"})
    result = run(graphmend_cmd, root, "check", "--no-cache", "--update-baseline", "m.py")
    assert result.returncode == 0, result.stderr
    assert commands_or_controls(result.stderr) == [] and "Wrote 0 finding(s) to the baseline" in result.stderr
