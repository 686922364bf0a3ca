"""The Python the project runs on decides the breaks that exist only before 3.12 (review18 #8):
the nearest pyproject.toml's requires-python, or `target-version`, never graphmend's own Python."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from graphmend_bot.analysis.python_target import lowest_required, parse_version
from graphmend_bot.analysis.summary_cache import SummaryCache
from graphmend_bot.config import Config, ConfigError, parse_config
from graphmend_bot.engine import check

FIXTURES = Path(__file__).parent / "fixtures" / "rules"
VERSION_BOUND = ["GM612_cached_property_first_read.py", "GM624_break_in_dict_view_comprehension.py"]


def _project(tmp_path: Path, requires: str | None) -> Path:
    project = tmp_path / "project"
    project.mkdir(parents=True)
    if requires is not None:
        (project / "pyproject.toml").write_text(f'[project]\nname = "p"\nrequires-python = "{requires}"\n')
    for name in VERSION_BOUND:
        shutil.copy(FIXTURES / name, project / name)
    return project


def _codes(project: Path, config: Config | None = None, cache: SummaryCache | None = None) -> list[str]:
    result = check([str(project)], config or Config(), jobs=1, cache=cache)
    assert not result.errors, result.errors
    return sorted(f.code for f in result.findings if f.code in ("GM612", "GM624"))


def test_a_project_on_python_3_12_gets_no_finding_that_breaks_only_before_it(tmp_path: Path) -> None:
    cache = SummaryCache(tmp_path / "cache")
    older = _codes(_project(tmp_path / "a", ">=3.10"), cache=cache)
    assert older.count("GM612") >= 2 and older.count("GM624") >= 2
    newer = _project(tmp_path / "b", ">=3.12,<4")
    assert _codes(newer, cache=cache) == []
    # The setting wins over requires-python, and the cache keeps the answers apart.
    assert _codes(newer, Config(target_version="3.11"), cache=cache) == older
    assert _codes(newer, cache=cache) == []


def test_no_requires_python_means_the_running_python(tmp_path: Path) -> None:
    assert _codes(_project(tmp_path, None)) == _codes(_project(tmp_path / "x", ">=3.11"))


@pytest.mark.parametrize(("requires", "expected"), [
    (">=3.9", (3, 9)), ("~=3.10", (3, 10)), (">=3.8, !=3.9.*", (3, 8)), ("==3.12.*", (3, 12)), ("<3.13", None),
])
def test_the_lowest_version_requires_python_admits(tmp_path: Path, requires: str, expected: object) -> None:
    (tmp_path / "pyproject.toml").write_text(f'[project]\nrequires-python = "{requires}"\n')
    assert lowest_required(tmp_path / "pyproject.toml") == expected


def test_target_version_is_checked() -> None:
    assert parse_version("py312") == (3, 12) and parse_version("3.11") == (3, 11)
    assert parse_config({"target-version": "py312"}).target_version == "py312"
    with pytest.raises(ConfigError, match="target-version must be a Python 3 version"):
        parse_config({"target-version": "3.x"})


@pytest.mark.parametrize("typo", ["py31", "3.1", "py36"])
def test_a_target_version_older_than_any_torch_runs_on_is_refused(typo: str) -> None:
    """`py31` (for py311) used to be read as Python 3.1, silently judged as before 3.12."""
    with pytest.raises(ConfigError, match=r"target-version must be a Python 3 version from 3\.7 on"):
        parse_config({"target-version": typo})


def test_a_file_named_from_a_subfolder_is_judged_by_the_project_above(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pre-commit style, `graphmend check m.py` run in `project/pkg/` with no configuration and no
    `.git`: the relative path's parents were only `.`, so the project's requires-python was never
    found and the answer depended on the folder the command ran in."""
    project = _project(tmp_path, ">=3.12")
    package = project / "pkg"
    package.mkdir()
    shutil.move(project / VERSION_BOUND[0], package / VERSION_BOUND[0])
    monkeypatch.chdir(project)
    from_root = check([str(Path("pkg") / VERSION_BOUND[0])], Config(), jobs=1)
    monkeypatch.chdir(package)
    from_package = check([VERSION_BOUND[0]], Config(), jobs=1)
    assert not from_root.errors and not from_package.errors
    assert [f.code for f in from_package.findings] == [f.code for f in from_root.findings] == []
