"""A progress indicator on stderr: a redrawn bar on a terminal, one line per step otherwise."""

from __future__ import annotations

import sys
import time
from typing import TextIO

BAR_WIDTH = 24


class ProgressBar:
    def __init__(self, total: int, stream: TextIO | None = None) -> None:
        self.total = max(total, 1)
        self.done = 0
        self.stream = stream or sys.stderr
        self.started = time.monotonic()
        self.interactive = bool(getattr(self.stream, "isatty", lambda: False)())

    def __call__(self, label: str) -> None:
        """A step starts: show it with the number of steps finished so far."""
        self._draw(label)
        self.done += 1

    def finish(self) -> None:
        self.done = self.total
        self._draw("done")
        if self.interactive:
            self.stream.write("\n")
        self.stream.flush()

    def _draw(self, label: str) -> None:
        filled = BAR_WIDTH * min(self.done, self.total) // self.total
        bar = "#" * filled + "." * (BAR_WIDTH - filled)
        elapsed = time.monotonic() - self.started
        line = f"verify [{bar}] {min(self.done, self.total)}/{self.total} {elapsed:5.0f}s  {label}"
        if self.interactive:
            self.stream.write("\r\033[K" + line)
        else:
            self.stream.write(line + "\n")
        self.stream.flush()
