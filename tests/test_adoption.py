"""Adopting graphmend on existing code (issue 29.3): --statistics, --add-noqa, a baseline."""

import json
import subprocess

import pytest

MODEL = """
    import torch
    from torch import nn

    class M(nn.Module):
        def forward(self, x):
            print("a")
            print("b")
            if x.sum() > 0:
                x = x * 2
            return x.sum().item()
"""


def run(cmd, cwd, *args):
    return subprocess.run([*cmd, *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_statistics_counts_findings_per_rule(write_tree, graphmend_cmd):
    root = write_tree({"model.py": MODEL})
    result = run(graphmend_cmd, root, "check", "--statistics", ".")
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "2  GM401  GB0059  print-in-traced-code",
        "1  GM101  GB0170  data-dependent-if",
        "1  GM301  GB0124  tensor-item",
    ]
    as_json = json.loads(run(graphmend_cmd, root, "check", "--statistics", "--output-format", "json", ".").stdout)
    assert as_json[0] == {"code": "GM401", "name": "print-in-traced-code", "graph_break_id": "GB0059", "count": 2}


def test_add_noqa_acknowledges_every_finding_in_place(write_tree, graphmend_cmd):
    root = write_tree({"model.py": MODEL.replace('print("b")', 'print("b")  # graphmend: ignore[GM301]')})
    result = run(graphmend_cmd, root, "check", "--add-noqa", ".")
    assert result.returncode == 0
    assert "Added 4 `# graphmend: ignore` comment(s) in 1 file(s)." in result.stderr
    text = (root / "model.py").read_text()
    assert '        print("a")  # graphmend: ignore[GM401]\n' in text
    assert '        print("b")  # graphmend: ignore[GM301, GM401]\n' in text  # merged into the comment there
    assert "        if x.sum() > 0:  # graphmend: ignore[GM101]\n" in text
    assert run(graphmend_cmd, root, "check", ".").returncode == 0
    again = run(graphmend_cmd, root, "check", "--add-noqa", ".")
    assert "Added 0" in again.stderr and (root / "model.py").read_text() == text


def test_add_noqa_never_writes_into_a_string_or_after_a_backslash(write_tree, graphmend_cmd):
    """A comment appended inside a multi-line string would change the program: the next line of the
    finding that takes one is used, or none."""
    root = write_tree({"model.py": '''
        import torch
        from torch import nn

        class M(nn.Module):
            def forward(self, x):
                print("""two
        lines""", x.shape)
                y = x + \\
                    x.sum().item()
                return y
    '''})
    before = (root / "model.py").read_text()
    result = run(graphmend_cmd, root, "check", "--add-noqa", ".")
    text = (root / "model.py").read_text()
    assert '\nlines""", x.shape)  # graphmend: ignore[GM401]\n' in text
    assert "            x.sum().item()  # graphmend: ignore[GM301]\n" in text
    assert text.replace("  # graphmend: ignore[GM401]", "").replace("  # graphmend: ignore[GM301]", "") == before
    assert result.returncode == 0 and run(graphmend_cmd, root, "check", ".").returncode == 0


def test_add_noqa_then_check_finds_nothing_when_a_hidden_break_shapes_the_frame(write_tree, graphmend_cmd):
    """After the unsupported `with` (GB0142), Dynamo (torch 2.13) runs the rest of the frame
    eagerly: the `.item()` in its body is no break. Acknowledging the `with` keeps it so."""
    root = write_tree({"model.py": """
        import numpy as np
        import torch
        from torch import nn

        class M(nn.Module):
            def forward(self, x):
                with np.errstate(all="raise"):
                    y = x * 2
                    n = y.sum().item()
                return y + n
    """})
    first = run(graphmend_cmd, root, "check", ".")
    assert first.returncode == 1 and "GM612" in first.stdout and "GM301" not in first.stdout
    assert run(graphmend_cmd, root, "check", "--add-noqa", ".").returncode == 0
    assert "# graphmend: ignore[GM612]" in (root / "model.py").read_text()
    again = run(graphmend_cmd, root, "check", ".")
    assert again.returncode == 0, again.stdout


def test_a_baseline_hides_old_findings_and_survives_line_shifts(write_tree, graphmend_cmd):
    """The commit adding one print is judged by that print, not the file's old findings."""
    root = write_tree({"model.py": MODEL})
    written = run(graphmend_cmd, root, "check", "--baseline", "base.json", "--update-baseline", ".")
    assert written.returncode == 0 and "Wrote 4 finding(s)" in written.stderr
    assert run(graphmend_cmd, root, "check", "--baseline", "base.json", ".").returncode == 0
    # Lines above shift every finding down; one new print is added among the old ones.
    write_tree({"model.py": MODEL.replace("import torch", "import torch\n    import os\n\n").replace(
        'print("b")', 'print("b")\n            print("new")')})
    result = run(graphmend_cmd, root, "check", "--baseline", "base.json", ".")
    assert result.returncode == 1
    assert [line.split(": ", 1)[1][:5] for line in result.stdout.splitlines() if ": GM" in line] == ["GM401"]
    assert 'print("new")' in result.stdout
    assert "Found 1 graph break(s) in 1 file(s)." in result.stdout and "4 more in the baseline, not shown." in result.stdout
    # A changed line is a new finding; a third identical print is one more than the baseline holds.
    write_tree({"model.py": MODEL.replace('print("a")', 'print("a")\n            print("a")')})
    assert run(graphmend_cmd, root, "check", "--baseline", "base.json", ".").stdout.count("GM401") == 1


def test_the_configured_baseline_is_relative_to_its_config_and_used_by_review(write_tree, graphmend_cmd):
    root = write_tree({"pkg/.graphmend.yml": "baseline: ../gm-baseline.json\n", "pkg/model.py": MODEL})
    # Outside the project (pkg/, the configuration's folder) it is written only when named on the command line.
    assert run(graphmend_cmd, root / "pkg", "check", "--update-baseline", ".").returncode == 2
    assert run(graphmend_cmd, root / "pkg", "check", "--baseline", "../gm-baseline.json", "--update-baseline",
               ".").returncode == 0
    assert (root / "gm-baseline.json").is_file()
    assert run(graphmend_cmd, root, "check", "pkg").returncode == 0
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    # The base holds the configuration and the baseline (a review reads the base's); the model is the change.
    subprocess.run(["git", "add", "pkg/.graphmend.yml", "gm-baseline.json"], cwd=root, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "0"],
                   cwd=root, check=True)
    review = run(graphmend_cmd, root, "review", "--base", "HEAD", "pkg")
    assert review.returncode == 0, review.stdout + review.stderr


@pytest.mark.parametrize(("content", "message"), [
    (None, "base.json does not exist; write it with `graphmend check --update-baseline`"),
    ("{]", "base.json: cannot read"),
    ('{"version": 1, "findings": [1]}', "not a version 1 graphmend baseline"),
])
def test_a_missing_or_malformed_baseline_is_a_configuration_error(write_tree, graphmend_cmd, content, message):
    root = write_tree({"model.py": MODEL})
    if content is not None:
        (root / "base.json").write_text(content)
    result = run(graphmend_cmd, root, "check", "--baseline", "base.json", ".")
    assert result.returncode == 2
    assert message in result.stderr and "Traceback" not in result.stderr


def test_updating_the_baseline_for_some_files_or_rules_keeps_the_other_entries(write_tree, graphmend_cmd):
    """A pre-commit hook passes a file list: rewriting the baseline for it must not drop the rest (review10 #5)."""
    root = write_tree({"model.py": MODEL, "sub/other.py": MODEL})
    assert "Wrote 8 finding(s)" in run(graphmend_cmd, root, "check", "--baseline", "bl.json", "--update-baseline",
                                       ".").stderr
    written = (root / "bl.json").read_text()
    assert "Wrote 8 finding(s)" in run(graphmend_cmd, root, "check", "--baseline", "bl.json", "--update-baseline",
                                       "sub/other.py").stderr
    assert "Wrote 8 finding(s)" in run(graphmend_cmd, root, "check", "--baseline", "bl.json", "--update-baseline",
                                       "--select", "GM4", ".").stderr
    assert (root / "bl.json").read_text() == written
    assert run(graphmend_cmd, root, "check", "--baseline", "bl.json", ".").returncode == 0
    # One print fixed in sub/other.py: its update drops that entry only.
    write_tree({"sub/other.py": MODEL.replace('print("a")', "pass")})
    assert "Wrote 7 finding(s)" in run(graphmend_cmd, root, "check", "--baseline", "bl.json", "--update-baseline",
                                       "sub/other.py").stderr
    entries = json.loads((root / "bl.json").read_text())["findings"]
    assert sorted((entry["path"], entry["code"]) for entry in entries) == sorted(
        [("model.py", "GM401"), ("model.py", "GM401"), ("model.py", "GM101"), ("model.py", "GM301"),
         ("sub/other.py", "GM401"), ("sub/other.py", "GM101"), ("sub/other.py", "GM301")])
    # An update of a folder drops the entries of its files deleted since.
    write_tree({"sub/more.py": MODEL})
    assert "Wrote 11 finding(s)" in run(graphmend_cmd, root, "check", "--baseline", "bl.json", "--update-baseline",
                                        "sub").stderr
    (root / "sub/more.py").unlink()
    assert "Wrote 7 finding(s)" in run(graphmend_cmd, root, "check", "--baseline", "bl.json", "--update-baseline",
                                       "sub").stderr
    # A whole-project update after a file is deleted drops that file's entries.
    (root / "sub/other.py").unlink()
    assert "Wrote 4 finding(s)" in run(graphmend_cmd, root, "check", "--baseline", "bl.json", "--update-baseline",
                                       ".").stderr


def test_a_whole_project_update_rewrites_a_baseline_that_no_longer_loads(write_tree, graphmend_cmd):
    root = write_tree({"model.py": MODEL, "base.json": "{]"})
    written = run(graphmend_cmd, root, "check", "--baseline", "base.json", "--update-baseline", ".")
    assert written.returncode == 0 and "Wrote 4 finding(s)" in written.stderr
    partial = run(graphmend_cmd, root, "check", "--baseline", "base.json", "--update-baseline", "--select", "GM4", ".")
    assert partial.returncode == 0 and "Wrote 4 finding(s)" in partial.stderr
    (root / "base.json").write_text("{]")  # a partial update keeps entries, so it must read them: an error
    partial = run(graphmend_cmd, root, "check", "--baseline", "base.json", "--update-baseline", "--select", "GM4", ".")
    assert partial.returncode == 2 and "base.json: cannot read" in partial.stderr


def test_update_baseline_needs_a_file(write_tree, graphmend_cmd):
    root = write_tree({"model.py": MODEL})
    result = run(graphmend_cmd, root, "check", "--update-baseline", ".")
    assert result.returncode == 2 and "--update-baseline needs --baseline FILE" in result.stderr


TWIN = """
    import torch
    from torch import nn

    class M(nn.Module):
        def forward(self, x):
            x = x - 1
            print("debug")
            return x
"""


def reported_rows(result):
    return [int(line.split(":")[1]) for line in result.stdout.splitlines() if ": GM401" in line]


def test_an_identical_line_added_near_an_old_one_is_the_new_finding(write_tree, graphmend_cmd):
    """The baseline's stored line decides which of identical lines it holds (review4 #7)."""
    root = write_tree({"model.py": TWIN})
    assert run(graphmend_cmd, root, "check", "--baseline", "base.json", "--update-baseline", ".").returncode == 0
    assert [entry["row"] for entry in json.loads((root / "base.json").read_text())["findings"]] == [7]
    # A line above the old print becomes an identical print: the old one is still at line 7.
    write_tree({"model.py": TWIN.replace("x = x - 1", 'print("debug")')})
    assert reported_rows(run(graphmend_cmd, root, "check", "--baseline", "base.json", ".")) == [6]
    # Inserted above it, equally near its old line: the old one moved down (an edit above moves code down).
    write_tree({"model.py": TWIN.replace("x = x - 1", 'print("debug")\n            x = x - 1')})
    assert reported_rows(run(graphmend_cmd, root, "check", "--baseline", "base.json", ".")) == [6]


def test_an_identical_line_added_nearer_the_old_lines_row_is_still_the_new_finding(write_tree, graphmend_cmd):
    """review7 #8: a print identical to the baselined one is added at the top of forward, and five
    lines above the old one push it further from its stored row than the new one is: the old
    line's neighbours are those the baseline recorded, so it keeps its entry (the row alone blamed
    the old line and hid the new one)."""
    model = TWIN.replace("x = x - 1", "x = x - 1" + "\n            x = x + 2" * 3)  # the print at line 10
    root = write_tree({"model.py": model})
    assert run(graphmend_cmd, root, "check", "--baseline", "base.json", "--update-baseline", ".").returncode == 0
    [entry] = json.loads((root / "base.json").read_text())["findings"]
    assert entry["row"] == 10 and len(entry["above"]) == len(entry["below"]) == 8
    edited = model.replace("x = x - 1", 'print("debug")\n            x = x - 1' + "\n            x = x * 5" * 5)
    write_tree({"model.py": edited})  # the new print at 6, the old one at 16: 4 and 6 lines from row 10
    assert reported_rows(run(graphmend_cmd, root, "check", "--baseline", "base.json", ".")) == [6]


def test_identical_lines_all_in_the_baseline_stay_hidden_however_far_they_moved(write_tree, graphmend_cmd):
    model = TWIN.replace("x = x - 1", 'print("debug")')
    root = write_tree({"model.py": model})
    assert run(graphmend_cmd, root, "check", "--baseline", "base.json", "--update-baseline", ".").returncode == 0
    write_tree({"model.py": model.replace("import torch", "import torch\n" + "    import os\n" * 30)})
    result = run(graphmend_cmd, root, "check", "--baseline", "base.json", ".")
    assert result.returncode == 0 and "2 more in the baseline" in result.stdout


def test_a_baseline_without_line_numbers_still_hides_as_many_identical_lines(write_tree, graphmend_cmd):
    """Baselines written before entries had a `row`: identical lines are taken in source order."""
    root = write_tree({"model.py": TWIN})
    assert run(graphmend_cmd, root, "check", "--baseline", "base.json", "--update-baseline", ".").returncode == 0
    document = json.loads((root / "base.json").read_text())
    for entry in document["findings"]:  # as written then: no row, no neighbours
        for key in ("row", "above", "below"):
            entry.pop(key, None)
    (root / "base.json").write_text(json.dumps(document))
    write_tree({"model.py": TWIN.replace("x = x - 1", 'print("debug")')})
    assert reported_rows(run(graphmend_cmd, root, "check", "--baseline", "base.json", ".")) == [7]


COMMENTED = 'import torch\n\n\n@torch.compile\ndef f(x):\n    n = x.item()  # scalar\n    print("x")\n    return x * n\n'
# The baseline main (2335f15) wrote for COMMENTED as a.py: its lines whole, the comment included.
BASELINE_OF_2335F15 = {"comment": "graphmend baseline", "version": 1, "findings": [
    {"fingerprint": "440e4e74f1b30936", "code": "GM301", "path": "a.py", "symbol": "a.f",
     "line": "n = x.item() # scalar", "row": 6, "above": "faf62330", "below": "4ae34b57"},
    {"fingerprint": "f8ee5155bd82ce7b", "code": "GM401", "path": "a.py", "symbol": "a.f",
     "line": 'print("x")', "row": 7, "above": "14c79b31", "below": "7a73806f"}]}


def found(graphmend_cmd, root):
    result = run(graphmend_cmd, root, "check", "--no-cache", "--baseline", "base.json", "a.py")
    return sorted(line.split(": ")[1].split()[0] for line in result.stdout.splitlines() if line.startswith("a.py:"))


def test_a_comment_edited_on_a_baselined_line_leaves_it_baselined(write_tree, graphmend_cmd):
    """review15's finding 5: the review matches a break by its line's code (line_code.py), the
    baseline matched the whole line, so `# scalar` added to a baselined line made it new."""
    root = write_tree({"a.py": COMMENTED.replace("  # scalar", "")})
    assert run(graphmend_cmd, root, "check", "--no-cache", "--baseline", "base.json", "--update-baseline",
               "a.py").returncode == 0
    assert [entry["line"] for entry in json.loads((root / "base.json").read_text())["findings"]] == [
        "n = x.item()", 'print("x")']
    for commented in (COMMENTED, COMMENTED.replace('print("x")', 'print("x")  # a "#" of its own')):
        write_tree({"a.py": commented})
        assert found(graphmend_cmd, root) == []
    write_tree({"a.py": COMMENTED.replace("n = x.item()", "n = x.sum().item()")})  # the code changed: new
    assert found(graphmend_cmd, root) == ["GM301"]
    # A `#` in a string is code: `print("x # y")` is not the baselined `print("x")`.
    write_tree({"a.py": COMMENTED.replace('print("x")', 'print("x # y")')})
    assert found(graphmend_cmd, root) == ["GM401"]


def test_a_baseline_written_with_whole_lines_still_hides_them(write_tree, graphmend_cmd):
    """A baseline main wrote before lines were matched by their code: its entries still hide
    their findings, with the comment as written, edited or removed; an entry reduced to its
    fingerprint (made by hand) is matched by the fingerprint main gave it."""
    root = write_tree({"a.py": COMMENTED, "base.json": json.dumps(BASELINE_OF_2335F15)})
    for comment in ("  # scalar", "  # a float now", ""):
        write_tree({"a.py": COMMENTED.replace("  # scalar", comment)})
        assert found(graphmend_cmd, root) == [], comment
    write_tree({"a.py": COMMENTED.replace("n = x.item()", "n = x.sum().item()")})
    assert found(graphmend_cmd, root) == ["GM301"]
    bare = {**BASELINE_OF_2335F15, "findings": [{"fingerprint": entry["fingerprint"]}
                                                for entry in BASELINE_OF_2335F15["findings"]]}
    write_tree({"a.py": COMMENTED, "base.json": json.dumps(bare)})
    assert found(graphmend_cmd, root) == []
    write_tree({"a.py": COMMENTED.replace("  # scalar", "")})  # a fingerprint is exact: the comment was in it
    assert found(graphmend_cmd, root) == ["GM301"]
