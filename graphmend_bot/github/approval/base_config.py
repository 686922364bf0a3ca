"""The configuration of the base commit: what decides entry points, verify settings and the rewrite.

Never the head's: the head is what is being judged. Files are looked up in the order the CLI looks
for them at the repository root; a pyproject.toml counts only with a `[tool.graphmend]` table.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path

from graphmend_bot.config import CONFIG_FILES

EMPTY_CONFIG = ".graphmend.yml", b"{}\n"  # the defaults, when the base has no configuration


def pick_config(read: Callable[[str], bytes | None]) -> tuple[str, bytes]:
    """(file name, bytes) of the base's configuration; `read(name)` is None when the file is absent."""
    for name in CONFIG_FILES:
        data = read(name)
        if data is None:
            continue
        if name == "pyproject.toml" and not _has_graphmend_table(data):
            continue
        return name, data
    return EMPTY_CONFIG


def write_config(folder: Path, read: Callable[[str], bytes | None]) -> Path:
    """The base's configuration written into `folder` (a fresh directory); returns its path."""
    name, data = pick_config(read)
    path = folder / name
    path.write_bytes(data)
    return path


def _has_graphmend_table(data: bytes) -> bool:
    try:
        tool = tomllib.loads(data.decode("utf-8")).get("tool", {})
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError):
        return True  # let loading it report the error, rather than silently use the defaults
    return not isinstance(tool, dict) or "graphmend" in tool  # `tool = 1` too: loading it says what is wrong
