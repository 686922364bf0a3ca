"""A check of given files sees the project around them (issue 24.1): the CLI, the pre-commit hook
(which passes only the changed files) and `--fix` of one file."""

import json
import os
import subprocess
import textwrap
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent

NET = """
    import torch
    from torch import nn

    from pkg.utils import check_range


    class Net(nn.Module):
        def forward(self, x):
            x = check_range(x, 3.0)
            if x.sum() > 0:
                x = x * 2
            return x
"""
UTILS = """
    import torch


    def check_range(x, limit):
        if x.min() < -limit:
            print("out of range")
        return x
"""
PROJECT = {"pkg/__init__.py": "", "pkg/net.py": NET, "pkg/utils.py": UTILS}


def run(cmd, cwd, *args):
    return subprocess.run([*cmd, *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def git_project(write_tree, files=PROJECT):
    root = write_tree(files)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def test_check_of_one_file_reports_the_helper_its_project_traces(write_tree, graphmend_cmd):
    root = git_project(write_tree)
    whole = run(graphmend_cmd, root, "check", ".")
    assert "pkg/utils.py:5:8: GM101" in whole.stdout and "pkg/net.py:10:12: GM101" in whole.stdout
    one = run(graphmend_cmd, root, "check", "pkg/utils.py")
    assert one.returncode == 1, one.stderr
    assert "pkg/utils.py:5:8: GM101" in one.stdout
    assert "pkg/utils.py:6:9: GM401" in one.stdout
    assert "pkg/net.py" not in one.stdout  # findings only in the given paths
    assert "in 1 file(s)" in one.stdout


def test_check_from_a_subfolder_finds_the_project_root_by_its_config(write_tree, graphmend_cmd):
    root = write_tree({**PROJECT, "pyproject.toml": "[tool.graphmend]\nexclude = []\n"})
    one = run(graphmend_cmd, root / "pkg", "check", "utils.py")
    assert one.returncode == 1, one.stderr
    assert "utils.py:5:8: GM101" in one.stdout


def test_exclusions_apply_to_the_given_file_and_to_its_context(write_tree, graphmend_cmd):
    # the model scope: left to `auto`, a package with no nn.Module would be a library, whose
    # public helper is traced code (public_api.py)
    config = '[tool.graphmend]\nexclude = ["pkg/net.py"]\nscope = "model"\n'
    root = git_project(write_tree, {**PROJECT, "pyproject.toml": config})
    # net.py excluded: nothing traces the helper, as in `check .`
    assert run(graphmend_cmd, root, "check", "pkg/utils.py").returncode == 0
    assert run(graphmend_cmd, root, "check", "pkg/net.py").returncode == 0


def test_exclusions_are_relative_to_the_config_folder_from_any_working_directory(write_tree, graphmend_cmd):
    """As ruff's: `pkg/*` names the project's pkg/, from a subfolder or from outside the project too
    (review4's finding 8: from pkg/, `check ..` reported everything the pattern excludes)."""
    root = git_project(write_tree, {**PROJECT, "pyproject.toml": '[tool.graphmend]\nexclude = ["pkg/*"]\n'})
    for cwd, path in [(root, "."), (root / "pkg", ".."), (root / "pkg", "."), (root / "pkg", "utils.py"),
                      (root.parent, root.name), (root.parent, f"{root.name}/pkg/utils.py")]:
        done = run(graphmend_cmd, cwd, "check", "--no-cache", path)
        assert done.returncode == 0 and "No graph breaks found in 0 file(s)." in done.stdout, (cwd, path, done.stdout)


def test_a_name_pattern_never_matches_the_folders_the_project_sits_in(tmp_path, graphmend_cmd):
    """`legacy` excludes the project's legacy folders, not every file of a project checked out under
    a folder of that name."""
    root = tmp_path / "legacy" / "project"
    for name, text in {**PROJECT, "pkg/legacy/__init__.py": "", "pkg/legacy/old.py": UTILS,
                       ".graphmend.yml": 'exclude: ["legacy"]\nscope: library\n'}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(text).lstrip("\n"))
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for cwd, path in [(root, "."), (tmp_path, "legacy/project")]:
        done = run(graphmend_cmd, cwd, "check", "--no-cache", path)
        assert done.returncode == 1, (cwd, path, done.stdout)
        assert "pkg/utils.py:5:8: GM101" in done.stdout and "old.py" not in done.stdout


def test_a_config_outside_the_checked_tree_matches_paths_from_the_working_directory(write_tree, graphmend_cmd):
    """The bot loads a base's configuration from a scratch folder and runs from the workspace: its
    patterns keep to the working directory there."""
    tree = write_tree({**{f"project/{name}": text for name, text in PROJECT.items()},
                       "elsewhere/.graphmend.yml": 'exclude: ["pkg/net.py"]\nscope: model\n'})
    config = str(tree / "elsewhere" / ".graphmend.yml")
    done = run(graphmend_cmd, tree / "project", "check", "--no-cache", "--config", config, ".")
    assert done.returncode == 0 and "No graph breaks found in 2 file(s)." in done.stdout, done.stdout


def test_errors_elsewhere_in_the_project_are_not_reported(write_tree, graphmend_cmd):
    root = git_project(write_tree, {**PROJECT, "broken.py": "def (:\n"})
    one = run(graphmend_cmd, root, "check", "pkg/utils.py")
    assert "broken.py" not in one.stdout + one.stderr
    assert "pkg/utils.py:5:8: GM101" in one.stdout


def test_pre_commit_hook_with_the_changed_file_reports_the_helper(write_tree, graphmend_cmd):
    """pre-commit runs the hook's `entry` with the staged file names appended, from the repository's top."""
    root = git_project(write_tree)
    hooks = {hook["id"]: hook for hook in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())}
    entry = hooks["graphmend"]["entry"].split()
    assert entry[:2] == ["graphmend", "check"]
    done = run([*graphmend_cmd, *entry[1:]], root, "pkg/utils.py")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "pkg/utils.py:6:9: GM401" in done.stdout


def test_fix_of_one_file_writes_only_that_file(write_tree, graphmend_cmd):
    root = git_project(write_tree)
    net_before = (root / "pkg/net.py").read_text()
    done = run(graphmend_cmd, root, "check", "--fix", "--exit-zero", "pkg/utils.py")
    assert done.returncode == 0, done.stderr
    assert "torch.compiler.is_compiling()" in (root / "pkg/utils.py").read_text()
    assert (root / "pkg/net.py").read_text() == net_before
    assert "in 1 file(s)" in done.stderr


def test_a_file_in_a_folder_the_walk_skips_is_checked_alone(write_tree, graphmend_cmd):
    """An installed package under .venv is not part of the project around it (the walk skips it)."""
    root = git_project(write_tree, {**PROJECT, **{f".venv/lib/site-packages/{k}": v for k, v in PROJECT.items()}})
    alone = run(graphmend_cmd, root / ".venv/lib/site-packages", "check", "--no-cache", "pkg/utils.py")
    assert alone.returncode == 0, alone.stdout  # nothing traces the helper in the file alone
    assert not (root / ".graphmend_cache").exists()


def test_a_pattern_with_a_slash_names_a_folder_or_a_file_under_the_root(write_tree, monkeypatch):
    from graphmend_bot.analysis.files import discover

    root = write_tree({"pkg/legacy/old.py": "", "pkg/new.py": "", "other/pkg/legacy/kept.py": "", "scripts/run.py": ""})
    monkeypatch.chdir(root / "pkg")
    found, _ = discover([str(root)], ["pkg/legacy", "./scripts/"], str(root))
    assert sorted(os.path.relpath(f.path, root) for f in found) == ["other/pkg/legacy/kept.py", "pkg/new.py"]


def _monorepo(write_tree):
    """Two projects in one repository, each with its own configuration: `a` ignores GM401, `b` GM101."""
    root = write_tree({**{f"a/{name}": text for name, text in PROJECT.items()},
                       **{f"b/{name}": text for name, text in PROJECT.items()},
                       "a/pyproject.toml": '[tool.graphmend]\nignore = ["GM401"]\n',
                       "b/.graphmend.yml": "ignore: [GM101]\n"})
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def test_files_of_several_projects_are_each_checked_with_their_own_configuration(write_tree, graphmend_cmd):
    """pre-commit hands one run the changed files of every project in a monorepo: each file takes the
    configuration nearest it, as in ruff, whatever order the files come in (the first one's
    configuration used to apply to all)."""
    root = _monorepo(write_tree)
    for files in (["a/pkg/utils.py", "b/pkg/utils.py"], ["b/pkg/utils.py", "a/pkg/utils.py"]):
        done = run(graphmend_cmd, root, "check", "--no-cache", *files)
        assert done.returncode == 1, done.stderr
        assert "a/pkg/utils.py:5:8: GM101" in done.stdout and "a/pkg/utils.py:6:9: GM401" not in done.stdout
        assert "b/pkg/utils.py:6:9: GM401" in done.stdout and "b/pkg/utils.py:5:8: GM101" not in done.stdout
        assert "Found 2 graph break(s) in 2 file(s)" in done.stdout
    report = json.loads(run(graphmend_cmd, root, "check", "--no-cache", "--output-format", "json",
                            "a/pkg/utils.py", "b/pkg/utils.py").stdout)
    assert sorted((os.path.relpath(item["filename"], root).split(os.sep)[0], item["code"]) for item in report) == [
        ("a", "GM101"), ("b", "GM401")]


def test_fix_of_files_in_several_projects_follows_each_configuration(write_tree, graphmend_cmd):
    root = _monorepo(write_tree)
    done = run(graphmend_cmd, root, "check", "--fix", "--exit-zero", "b/pkg/utils.py", "a/pkg/utils.py")
    assert done.returncode == 0, done.stderr
    # only b reports the print (a ignores GM401), so only b's is guarded
    assert "is_compiling" in (root / "b/pkg/utils.py").read_text()
    assert "is_compiling" not in (root / "a/pkg/utils.py").read_text()


def test_fix_of_several_projects_reports_once(write_tree, graphmend_cmd):
    """Review 14, finding 5: `--fix` reported once per project, so `-o` kept the last project's
    report and stdout held two JSON documents. The fixes are made per project, the report is one."""
    model = "import torch\nfrom torch import nn\n\n\nclass A(nn.Module):\n    def forward(self, x):\n" \
            "        if x.sum() > 0:\n            return x\n        return -x\n"  # its fix is unsafe: none written
    root = write_tree({f"{project}/{name}": text for project in ("p1", "p2")
                       for name, text in ((".graphmend.yml", "select: [GM1]\n"), ("m.py", model))})
    files = ["p1/m.py", "p2/m.py"]
    done = run(graphmend_cmd, root, "check", "--no-cache", "--fix", "--output-format", "json", "-o", "out.json", *files)
    assert done.returncode == 1, done.stderr
    report = json.loads((root / "out.json").read_text())
    assert sorted(os.path.relpath(item["filename"], root).split(os.sep)[0] for item in report) == ["p1", "p2"]
    assert done.stderr.count("Fixed ") == 1, done.stderr
    done = run(graphmend_cmd, root, "check", "--no-cache", "--fix", "--output-format", "json", *files)
    assert len(json.loads(done.stdout)) == 2  # one document


def test_a_shard_of_several_projects_is_refused_with_a_message(write_tree, graphmend_cmd):
    root = _monorepo(write_tree)
    done = run(graphmend_cmd, root, "check", "--save-result", "out.json", "a/pkg/utils.py", "b/pkg/utils.py")
    assert done.returncode == 2 and "different configurations" in done.stderr
    assert "Traceback" not in done.stderr and not (root / "out.json").exists()


def test_a_missing_path_among_several_projects_is_an_error_not_a_project(write_tree, graphmend_cmd):
    root = _monorepo(write_tree)
    done = run(graphmend_cmd, root, "check", "--diff", "a/pkg/utils.py", "b/pkg/utils.py", "nothere.py")
    assert done.returncode == 2 and "nothere.py: no such file or directory" in done.stderr
    # one summary for both projects: the missing path once made a group of its own, with its own summary
    assert (done.stdout + done.stderr).count("Would fix ") == 1
