"""Everything that talks to GitHub: event -> plan -> PyGithub calls, with I/O kept at the edge.

`run_bot` is imported on first use: `graphmend review` runs the bot's planning (github/review/)
without talking to GitHub, and importing bot.py would load PyGithub (a fifth of a second)."""

from typing import Any

__all__ = ["run_bot"]


def __getattr__(name: str) -> Any:
    if name == "run_bot":
        from graphmend_bot.github.bot import run_bot

        return run_bot
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
