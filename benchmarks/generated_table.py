"""The command line every generator of a checked-in table shares: write the table, or with
`--check` exit 1 when the file is not what the installed torch generates."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path


def write_or_check(description: str, table: Path, generate: Callable[[], str]) -> int:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--check", action="store_true", help="exit 1 when the table is out of date")
    options = parser.parse_args()
    text = generate()
    if options.check:
        if table.read_text() != text:
            print(f"{table} is out of date: run the generator without --check")
            return 1
        return 0
    table.write_text(text)
    print(f"wrote {table}")
    return 0
