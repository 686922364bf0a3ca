"""Reading a JSON file that may be hostile or broken: a regular file only, size-capped, every
failure one ValueError."""

from __future__ import annotations

import errno
import json
from pathlib import Path
from typing import Any

from graphmend_bot.analysis.files import NotRegularFile, OversizedFile, UnreadFile, read_regular_file


class JsonFileError(ValueError):
    """Why the file could not be read; `missing` when it does not exist."""

    def __init__(self, message: str, missing: bool = False) -> None:
        super().__init__(message)
        self.missing = missing


def read_json_file(path: Path, max_bytes: int) -> Any:
    """The JSON value in `path`. A device or FIFO given as the file (`--baseline /dev/zero`) is
    refused before any read: its size says nothing, and reading it would never end or never return."""
    try:
        data = read_regular_file(str(path), max_bytes)
    except UnreadFile as error:
        if error.errno == errno.ENOENT:
            raise JsonFileError("no such file", missing=True) from None
        raise JsonFileError(f"unreadable: {error.strerror}") from None
    except OversizedFile:
        raise JsonFileError(f"larger than {max_bytes >> 20} MiB") from None
    except NotRegularFile as error:
        raise JsonFileError(f"not a regular file ({error.kind})") from None
    return json_value(data)


def json_value(data: bytes) -> Any:
    """The JSON value `data` holds; JsonFileError when it holds none."""
    try:
        return json.loads(data.decode("utf-8"))
    # ValueError: bad UTF-8, JSONDecodeError, and a number past Python's limit for int conversion (4,300 digits).
    except (ValueError, RecursionError) as error:
        raise JsonFileError(f"unreadable: {error}") from None
