"""Which lines of the code under test run in the child (the `coverage` request), torch-free.

Loaded by path by child.py (see its `_load_by_path`), like protocol.py: standard library only,
no graphmend_bot imports.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Mapping
from typing import Any


class LineRecorder:
    """Which of the wanted lines of the wanted files (paths relative to root) run, while on.

    A global trace function that hands a line tracer only to frames of those files, so the cost
    elsewhere is one dictionary look-up per call. Compiled calls are never recorded: Dynamo
    replaces the frames it traces, so only eager execution is evidence that a line runs."""

    def __init__(self, root: str, wanted: Mapping[str, list[int]]) -> None:
        self.files = {os.path.realpath(os.path.join(root, path)): path for path in wanted}
        self.wanted = {path: set(lines) for path, lines in wanted.items()}
        self.hit: dict[str, set[int]] = {path: set() for path in wanted}
        self.known: dict[str, str | None] = {}
        self.previous: Any = None

    def __enter__(self) -> LineRecorder:
        if self.files:
            self.previous = sys.gettrace()
            threading.settrace(self.trace_call)
            sys.settrace(self.trace_call)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.files:
            sys.settrace(self.previous)
            threading.settrace(self.previous)

    def trace_call(self, frame: Any, event: str, arg: Any) -> Any:
        filename = frame.f_code.co_filename
        path = self.known[filename] if filename in self.known else self.lookup(filename)
        if path is None:
            return None
        hit = self.hit[path]
        hit.add(frame.f_lineno)  # a `def` line, as a call reports it

        def trace_line(frame: Any, event: str, arg: Any) -> Any:
            if event == "line":
                hit.add(frame.f_lineno)
            return trace_line

        return trace_line

    def lookup(self, filename: str) -> str | None:
        path = self.files.get(os.path.realpath(filename))
        self.known[filename] = path
        return path

    def covered(self) -> dict[str, list[int]]:
        return {path: sorted(self.hit[path] & self.wanted[path]) for path in self.wanted}


