"""Everything that talks to GitHub: event -> plan -> PyGithub calls, with I/O kept at the edge."""

from graphmend_bot.github.bot import run_bot

__all__ = ["run_bot"]
