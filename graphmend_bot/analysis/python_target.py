"""The Python version the checked project runs on, not the one running graphmend.

Some breaks exist only before Python 3.12: a `functools.cached_property` read takes an RLock
(GM612), and comprehensions are frames of their own (GM624, GM611). The pre-commit hook runs on
the user's Python and the Action on 3.11, so each would judge the same project differently; the
answer follows the project instead: `target-version` when configured, else the lowest version
its pyproject.toml's `requires-python` admits (as ruff does), else the running interpreter.
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

from graphmend_bot.analysis import cached_property_reads, skipped_frames

_VERSION = re.compile(r"(?:py)?3\.?(\d{1,2})")
# A lower bound of a requires-python specifier: `>=3.9`, `~=3.10`, `==3.12.*`, `>3.8`.
_LOWER_BOUND = re.compile(r"(?:>=|~=|==|>)\s*3\.(\d{1,2})")


# The oldest Python a target can name (ruff's `py37`): `py31` or `3.1` is a typo for 3.11 or 3.10,
# and judging it as "before 3.12" would hide the mistake.
_OLDEST_MINOR = 7


def parse_version(text: str) -> tuple[int, int] | None:
    """`3.11`, `311`, `py311` -> (3, 11); None for anything else, and for a 3.x older than 3.7."""
    match = _VERSION.fullmatch(text.strip())
    return (3, int(match.group(1))) if match and int(match.group(1)) >= _OLDEST_MINOR else None


def lowest_required(pyproject: Path) -> tuple[int, int] | None:
    """The lowest Python 3 version `[project] requires-python` admits; None when it says none."""
    try:
        document = tomllib.loads(pyproject.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    project = document.get("project")
    requires = project.get("requires-python") if isinstance(project, dict) else None
    if not isinstance(requires, str):
        return None
    bounds = [int(minor) for minor in _LOWER_BOUND.findall(requires)]
    return (3, max(bounds)) if bounds else None


def project_version(configured: str | None, folders: list[Path]) -> tuple[int, int]:
    """What the project runs on: the configured version, the nearest pyproject.toml's lower bound
    above the first of `folders`, or the running interpreter's."""
    if configured and (version := parse_version(configured)):
        return version
    for folder in folders[:1]:
        folder = folder.absolute()  # `m.py` run from the project's subfolder: its parents are the cwd's
        for candidate in (folder, *folder.parents):
            if (candidate / "pyproject.toml").is_file():
                found = lowest_required(candidate / "pyproject.toml")
                if found:
                    return found
                break
    return sys.version_info[0], sys.version_info[1]


def judged_as() -> tuple[bool, bool]:
    """The version-dependent facts summaries are made with now (part of their cache key)."""
    return cached_property_reads.READ_TAKES_LOCK, skipped_frames.COMPREHENSIONS_ARE_FRAMES


def apply(version: tuple[int, int]) -> None:
    """Judge the breaks that depend on the Python version as `version` has them (read by the
    summaries, which the worker processes fork from this one)."""
    cached_property_reads.READ_TAKES_LOCK = version < (3, 12)
    skipped_frames.COMPREHENSIONS_ARE_FRAMES = version < (3, 12)
