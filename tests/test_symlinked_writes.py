"""`--fix` and `--add-noqa` never write through a symlink to a file outside the project (review4's
finding 11: `link.py -> ../outside/victim.py` had --fix rewrite victim.py); a project reached
through a symlink, or files linked within it, are written as before."""

import subprocess

MODEL = 'import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n    def forward(self, x):\n        print("x")\n        return x\n'
GUARDED = "        if not torch.compiler.is_compiling():\n            print(\"x\")\n"


def run(cmd, cwd, *args):
    return subprocess.run([*cmd, *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def project_with_a_link_out(tmp_path):
    (tmp_path / "outside").mkdir()
    victim = tmp_path / "outside" / "victim.py"
    victim.write_text(MODEL)
    root = tmp_path / "project"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "model.py").write_text(MODEL)
    (root / "link.py").symlink_to("../outside/victim.py")
    return root, victim


def test_fix_leaves_a_file_outside_the_project_alone_saying_so(tmp_path, graphmend_cmd):
    root, victim = project_with_a_link_out(tmp_path)
    result = run(graphmend_cmd, root, "check", "--no-cache", "--fix", ".")
    assert victim.read_text() == MODEL
    assert GUARDED in (root / "model.py").read_text()  # the project's own file is fixed
    assert ("link.py: error: fixes skipped: its real path is outside the project (a symlink out of it), "
            "where a fix never writes") in result.stdout
    assert "link.py:7:9: GM401" in result.stdout and "fixable with `--fix`" not in result.stdout
    assert result.returncode == 1  # its finding is still there
    assert "Fixed 1 graph break(s) in 1 file(s)." in result.stderr


def test_diff_shows_no_rewrite_of_it(tmp_path, graphmend_cmd):
    root, _victim = project_with_a_link_out(tmp_path)
    result = run(graphmend_cmd, root, "check", "--no-cache", "--diff", ".")
    assert "+++ b/model.py" in result.stdout and "link.py" not in result.stdout
    assert "link.py: fixes skipped: its real path is outside the project" in result.stderr


def test_add_noqa_leaves_it_alone_saying_so(tmp_path, graphmend_cmd):
    root, victim = project_with_a_link_out(tmp_path)
    result = run(graphmend_cmd, root, "check", "--no-cache", "--add-noqa", ".")
    assert victim.read_text() == MODEL
    assert "# graphmend: ignore[GM401]" in (root / "model.py").read_text()
    assert ("link.py: skipped: its real path is outside the project (a symlink out of it), "
            "where --add-noqa never writes") in result.stderr
    assert "Added 1 `# graphmend: ignore` comment(s) in 1 file(s)." in result.stderr


def test_a_project_reached_through_a_symlink_and_links_within_it_are_written(tmp_path, graphmend_cmd):
    root = tmp_path / "project"
    (root / "pkg").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "pkg" / "real.py").write_text(MODEL)
    (root / "alias").symlink_to("pkg", target_is_directory=True)
    (tmp_path / "linked").symlink_to("project", target_is_directory=True)
    result = run(graphmend_cmd, tmp_path / "linked", "check", "--no-cache", "--fix", "alias/real.py")
    assert GUARDED in (root / "pkg" / "real.py").read_text(), result.stdout + result.stderr
    assert "fixes skipped" not in result.stdout + result.stderr
    (root / "pkg" / "real.py").write_text(MODEL)
    result = run(graphmend_cmd, tmp_path, "check", "--no-cache", "--add-noqa", "linked")
    assert "# graphmend: ignore[GM401]" in (root / "pkg" / "real.py").read_text(), result.stderr


def test_a_file_outside_any_project_is_written_in_its_own_folder(tmp_path, graphmend_cmd):
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "model.py").write_text(MODEL)
    result = run(graphmend_cmd, tmp_path, "check", "--no-cache", "--fix", "scripts/model.py")
    assert GUARDED in (tmp_path / "scripts" / "model.py").read_text(), result.stdout + result.stderr


def test_update_baseline_never_writes_through_a_symlink(tmp_path, graphmend_cmd):
    """review14's finding 9: a checkout holding `bl.json -> ../victim.txt` and `baseline: bl.json`
    had `--update-baseline` overwrite victim.txt; a link within the project is refused as well."""
    root, victim = project_with_a_link_out(tmp_path)
    (root / ".graphmend.yml").write_text("baseline: bl.json\n")
    for target in ("../outside/victim.py", "model.py"):
        (root / "bl.json").unlink(missing_ok=True)
        (root / "bl.json").symlink_to(target)
        result = run(graphmend_cmd, root, "check", "--no-cache", "--update-baseline")
        assert result.returncode == 2 and "bl.json is a symlink: it is never written through" in result.stderr
        assert victim.read_text() == MODEL and (root / "model.py").read_text() == MODEL
    result = run(graphmend_cmd, root, "check", "--no-cache", "--baseline", "bl.json", "--update-baseline")
    assert result.returncode == 2 and victim.read_text() == MODEL and (root / "model.py").read_text() == MODEL


def test_update_baseline_replaces_only_a_baseline_outside_the_project(tmp_path, graphmend_cmd):
    """`baseline: ../x` may name a file outside the project (a baseline beside a package), but a
    configuration naming `../outside/victim.py` must not make --update-baseline overwrite it."""
    root, victim = project_with_a_link_out(tmp_path)
    (root / "link.py").unlink()
    (root / ".graphmend.yml").write_text("baseline: ../outside/victim.py\n")
    result = run(graphmend_cmd, root, "check", "--no-cache", "--update-baseline")
    assert result.returncode == 2 and "is outside the project and not a graphmend baseline" in result.stderr
    assert victim.read_text() == MODEL
    (root / ".graphmend.yml").write_text("baseline: ../outside/baseline.json\n")
    for _ in range(2):  # made, then replaced
        result = run(graphmend_cmd, root, "check", "--no-cache", "--update-baseline")
        assert result.returncode == 0 and "Wrote 1 finding(s)" in result.stderr, result.stderr
