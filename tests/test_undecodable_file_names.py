"""A file whose name is not UTF-8 (Python's surrogate `\\udcff` for the byte 0xff) is reported like any
other (review14's finding 3): the fingerprints of findings and baseline entries hashed its name with
a strict encode, and JSON, SARIF, the baseline and the review ended in an internal error, every
finding lost."""

import json
import subprocess
import textwrap

from tests.github.gitrepo import GIT_ENV

BAD_NAME = "bad\udcffname.py"
MODEL = """
    import torch
    from torch import nn


    class A(nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                return x
            return -x
"""


def run(cmd, cwd, *args):
    return subprocess.run([*cmd, *args], cwd=cwd, capture_output=True, timeout=120)


def test_json_and_sarif_report_the_undecodable_name(write_tree, graphmend_cmd):
    root = write_tree({BAD_NAME: MODEL})
    for output_format in ("json", "sarif"):
        result = run(graphmend_cmd, root, "check", "--no-cache", "--output-format", output_format, ".")
        assert result.returncode == 1, result.stderr
        assert "bad\\udcffname.py" in result.stdout.decode(), output_format  # a JSON escape, never a raw byte
    [finding] = json.loads(
        run(graphmend_cmd, root, "check", "--no-cache", "--output-format", "json", ".").stdout
    )
    assert finding["filename"].endswith(BAD_NAME) and finding["code"] == "GM101"


def test_the_baseline_holds_and_hides_the_undecodable_name(write_tree, graphmend_cmd):
    root = write_tree({BAD_NAME: MODEL, ".graphmend.yml": "baseline: baseline.json\n"})
    written = run(graphmend_cmd, root, "check", "--no-cache", "--update-baseline")
    assert written.returncode == 0, written.stderr
    [entry] = json.loads((root / "baseline.json").read_text("utf-8"))["findings"]
    assert entry["path"] == BAD_NAME
    checked = run(graphmend_cmd, root, "check", "--no-cache")
    assert checked.returncode == 0 and b"1 more in the baseline" in checked.stdout, checked.stdout


def test_review_reports_a_break_in_the_undecodable_file(tmp_path, graphmend_cmd):
    def git(*args):
        subprocess.run(["git", *args], cwd=tmp_path, env=GIT_ENV, check=True, capture_output=True)

    git("init", "-q")
    (tmp_path / "keep.py").write_text("x = 1\n", encoding="utf-8")
    git("add", "-A")
    git("commit", "-q", "-m", "base")
    (tmp_path / BAD_NAME).write_text(textwrap.dedent(MODEL), encoding="utf-8")
    git("add", "-A")
    for output_format in ("text", "json", "markdown"):
        review = run(
            graphmend_cmd,
            tmp_path,
            "review",
            "--base",
            "HEAD",
            "--no-cache",
            "--output-format",
            output_format,
        )
        assert review.returncode == 1 and b"internal error" not in review.stderr, (
            output_format,
            review.stderr,
        )
        assert b"GM101" in review.stdout, output_format
