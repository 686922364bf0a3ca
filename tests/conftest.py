import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


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
