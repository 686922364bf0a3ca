import os
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import settings

REPO = Path(__file__).resolve().parent.parent

# CI (.ci/run) explores a fixed sequence of examples, so a run that passed on a developer's
# machine cannot fail on the merge gate by drawing a new one; local runs keep random examples,
# which is where the property tests find bugs (a failure there prints its reproducer).
settings.register_profile("ci", derandomize=True, print_blob=True)
settings.load_profile(os.environ.get("GRAPHMEND_HYPOTHESIS_PROFILE", "default"))


@pytest.fixture
def write_tree(tmp_path: Path):
    """Write {relative path: source} into tmp_path (dedented) and return tmp_path."""

    def write(files: dict[str, str | bytes]) -> Path:
        for name, content in files.items():
            path = tmp_path / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(textwrap.dedent(content).lstrip("\n"), encoding="utf-8")
        return tmp_path

    return write


@pytest.fixture
def graphmend_cmd() -> list[str]:
    return [sys.executable, "-m", "graphmend_bot.cli"]
