"""discover() names modules once per directory; the names must be those module_name gives each file."""

from pathlib import Path

from graphmend_bot.analysis.files import discover, module_name


def _walked_up(path: Path) -> str:
    """The name as module_name gave it before it remembered directories: each file walked up."""
    path = path.resolve() if not path.is_symlink() else path.absolute()
    parts = [] if path.name == "__init__.py" else [path.stem]
    directory = path.parent
    while (directory / "__init__.py").exists() and directory.parent != directory:
        parts.insert(0, directory.name)
        directory = directory.parent
    return ".".join(parts) or path.stem


def test_discovered_names_match_the_uncached_names_with_symlinks(tmp_path, monkeypatch):
    real = tmp_path / "real" / "pkg" / "sub"
    real.mkdir(parents=True)
    for folder in (real.parent, real):
        (folder / "__init__.py").write_text("")
    (real / "model.py").write_text("x = 1\n")
    outside = tmp_path / "loose"
    outside.mkdir()
    (outside / "helper.py").write_text("y = 2\n")
    # A file symlink is not followed (its name is where it is), a directory symlink is.
    (real / "linked_helper.py").symlink_to(outside / "helper.py")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "alias").symlink_to(real.parent, target_is_directory=True)
    monkeypatch.chdir(tmp_path)

    files, errors = discover([str(tree), "real"])
    assert not errors
    names = {f.path: f.module.split("@")[0] for f in files}  # a second pkg.sub.model gets @path
    assert len(names) == 8  # pkg, pkg.sub, model, linked_helper: twice (real/ and tree/alias/)
    assert names == {f.path: module_name(Path(f.path))[0] for f in files}
    assert names == {f.path: _walked_up(Path(f.path)) for f in files}
    assert names[str(Path("real/pkg/sub/model.py"))] == "pkg.sub.model"
    assert names[str(Path("real/pkg/sub/linked_helper.py"))] == "pkg.sub.linked_helper"
    assert names[str(Path("tree/alias/sub/model.py"))] == "pkg.sub.model"


def test_a_folder_without_init_inside_a_package_is_a_namespace_subpackage(tmp_path):
    inner = tmp_path / "pkg" / "_src" / "frontend"
    inner.mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (inner / "ops.py").write_text("")
    (tmp_path / "pkg" / "my-scripts").mkdir()
    (tmp_path / "pkg" / "my-scripts" / "run.py").write_text("")
    (tmp_path / "loose").mkdir()
    (tmp_path / "loose" / "helper.py").write_text("")
    assert module_name(inner / "ops.py") == ("pkg._src.frontend.ops", False)
    assert module_name(tmp_path / "pkg" / "my-scripts" / "run.py") == ("run", False)  # no identifier: no subpackage
    assert module_name(tmp_path / "loose" / "helper.py") == ("helper", False)  # no package above it

