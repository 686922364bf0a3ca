"""`--fix` and `--add-noqa` never write through a symlink to a file outside the project (review4's
finding 11: `link.py -> ../outside/victim.py` had --fix rewrite victim.py); a project reached
through a symlink, or files linked within it, are written as before."""

import subprocess

import pytest

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
    """`--baseline ../x.json` on the command line may name a file outside the project, but it
    must not make --update-baseline overwrite a file there that is not a graphmend baseline."""
    root, victim = project_with_a_link_out(tmp_path)
    (root / "link.py").unlink()
    not_a_baseline = tmp_path / "outside" / "package.json"
    not_a_baseline.write_text('{"name": "x"}\n')
    result = run(graphmend_cmd, root, "check", "--no-cache", "--baseline", "../outside/package.json", "--update-baseline")
    assert result.returncode == 2 and "is outside the project and not a graphmend baseline" in result.stderr
    assert not_a_baseline.read_text() == '{"name": "x"}\n'
    for _ in range(2):  # made, then replaced
        result = run(graphmend_cmd, root, "check", "--no-cache", "--baseline", "../outside/baseline.json",
                     "--update-baseline")
        assert result.returncode == 0 and "Wrote 1 finding(s)" in result.stderr, result.stderr
    assert victim.read_text() == MODEL


@pytest.mark.parametrize("configured", ["../x.json", "../x", "../.bash_aliases", "{home}/x.json"])
def test_a_configured_baseline_is_never_written_outside_the_project(tmp_path, graphmend_cmd, configured):
    """review15's finding 1: a checkout's `baseline = "../.bash_aliases"` made --update-baseline
    create that file (JSON holding the checkout's source lines, `$(...)` included), which the
    shell then ran. A configuration file names a baseline written only inside the project."""
    root = tmp_path / "home" / "proj"
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "a.py").write_text(MODEL)
    configured = configured.format(home=tmp_path / "home")
    (root / "pyproject.toml").write_text(f'[tool.graphmend]\nbaseline = "{configured}"\n')
    result = run(graphmend_cmd, root, "check", "--no-cache", "--update-baseline")
    assert result.returncode == 2 and "--update-baseline: baseline" in result.stderr, result.stderr
    assert sorted(path.name for path in (tmp_path / "home").iterdir()) == ["proj"]
    assert sorted(path.name for path in root.iterdir()) == [".git", "a.py", "pyproject.toml"]


def test_a_configured_baseline_outside_the_project_through_a_linked_folder_is_refused(tmp_path, graphmend_cmd):
    """The configured path is judged by where it really leads: `ci/bl.json` with `ci` a symlink out."""
    root, _ = project_with_a_link_out(tmp_path)
    (root / "ci").symlink_to("../outside")
    (root / ".graphmend.yml").write_text("baseline: ci/bl.json\n")
    result = run(graphmend_cmd, root, "check", "--no-cache", "--update-baseline")
    assert result.returncode == 2 and "is outside the project" in result.stderr, result.stderr
    assert not (tmp_path / "outside" / "bl.json").exists()


def test_a_baseline_is_written_only_to_a_json_file(tmp_path, graphmend_cmd):
    """Given on the command line too: `--baseline model.py --update-baseline` (a slip) must not
    replace the project's code with JSON."""
    root, victim = project_with_a_link_out(tmp_path)
    for name in ("model.py", "../outside/victim.py", "bl"):
        result = run(graphmend_cmd, root, "check", "--no-cache", "--baseline", name, "--update-baseline")
        assert result.returncode == 2 and "a baseline's file name ends in `.json`" in result.stderr, result.stderr
    assert victim.read_text() == MODEL and (root / "model.py").read_text() == MODEL
    assert not (root / "bl").exists()
