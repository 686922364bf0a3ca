"""Reading a JSON file that may be hostile or broken: size-capped, every failure one ValueError."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


class JsonFileError(ValueError):
    """Why the file could not be read; `missing` when it does not exist."""

    def __init__(self, message: str, missing: bool = False) -> None:
        super().__init__(message)
        self.missing = missing


def read_json_file(path: Path, max_bytes: int) -> Any:
    try:
        if path.stat().st_size > max_bytes:
            raise JsonFileError(f"larger than {max_bytes >> 20} MiB")
        return json.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        raise JsonFileError("no such file", missing=True) from None
    except JsonFileError:
        raise
    # ValueError: JSONDecodeError, and a number past Python's limit for int conversion (4,300 digits).
    except (OSError, ValueError, RecursionError) as error:
        raise JsonFileError(f"unreadable: {error}") from None
