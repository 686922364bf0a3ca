"""A review judges a change by the base commit's baseline, never by the one the change brings.

The baseline hides the findings it holds. Read from the pull request's own checkout, a pull request
could add its new breaks to the baseline file (`check --update-baseline`, one more changed file in
a long JSON diff) and its review would say nothing. So the review reads the file at the configured
path from the base commit, as the census gate reads its budget there: a change to the baseline
takes effect once it is merged, like any change to what the base accepts.
"""

from __future__ import annotations

import base64
import binascii
import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path, PurePath
from typing import TYPE_CHECKING

from graphmend_bot.baseline import MAX_BASELINE_BYTES, baseline_path
from graphmend_bot.config import Config, ConfigError

if TYPE_CHECKING:  # `graphmend review` runs without PyGithub: only the Action's reader needs it
    from github.Repository import Repository

# The baseline's bytes at the base commit, by its path relative to the repository; None when the
# base has no such file.
ReadAtBase = Callable[[str], bytes | None]


def with_base_baseline(config: Config, root: Path, read_at_base: ReadAtBase,
                       notice: Callable[[str], None]) -> Config:
    """`config` whose baseline is the base commit's file at its path (`root`: the repository's top).

    A baseline the base lacks but the change adds applies from its merge on: the change is reviewed
    without one, and `notice` says so. One that neither has stays the configuration error it is."""
    path = baseline_path(config)
    if path is None:
        return config
    relative = os.path.relpath(os.path.abspath(path), os.path.abspath(root))
    if relative.startswith(os.pardir):
        raise ConfigError(f"baseline {path} is outside the repository: a review reads it from the base commit")
    name = PurePath(relative).as_posix()
    content = read_at_base(name)
    if content is None:
        if path.exists():
            notice(f"the baseline {name} is not in the base commit: it applies once this change is merged, "
                   "so every finding in the changed files is reported")
            return replace(config, baseline=None)
        return config  # in neither: the check says it does not exist
    if len(content) > MAX_BASELINE_BYTES:
        raise ConfigError(f"baseline {name} at the base commit: larger than {MAX_BASELINE_BYTES >> 20} MiB")
    return replace(config, baseline_bytes=content)


def read_through_api(repo: Repository, commit_sha: str) -> ReadAtBase:
    """ReadAtBase from GitHub's contents API; a file past its 1 MiB limit comes as the blob itself."""
    from github import UnknownObjectException

    def read(name: str) -> bytes | None:
        try:
            content = repo.get_contents(name, ref=commit_sha)
        except UnknownObjectException:
            return None
        if isinstance(content, list) or content.type != "file":
            return None
        if content.size > MAX_BASELINE_BYTES:
            raise ConfigError(f"baseline {name} at the base commit: larger than {MAX_BASELINE_BYTES >> 20} MiB")
        try:
            if content.encoding == "base64":
                return content.decoded_content
            return base64.b64decode(repo.get_git_blob(content.sha).content)
        except (binascii.Error, AssertionError):
            raise ConfigError(f"baseline {name} at the base commit: GitHub served it undecodable") from None
    return read
