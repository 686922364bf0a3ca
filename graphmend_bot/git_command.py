"""Every git command graphmend runs: run so that the repository's own configuration runs nothing.

graphmend runs git in trees it did not write: a downloaded project it checks, a pull request's
checkout. A repository's `.git/config` can name commands that git runs even when it only reads
(review16's finding 5: `core.fsmonitor` ran on the `git ls-files` of `graphmend check`). So each
command here runs with
- the fsmonitor hook, hooks, the pager and signature checking off (settings given on the command's
  environment, GIT_CONFIG_KEY_n, which win over every config file);
- for `diff`, `show` and `log`: `--no-ext-diff --no-textconv` (external diff and textconv drivers);
- the filter drivers the repository's own config defines (scope local or worktree) emptied: a clean
  or smudge command set to "" converts nothing, and a `process` one set to "" cannot start, so the
  command that needs it fails, having run nothing. The user's own drivers (global config: git-lfs,
  say) are theirs to trust and are kept.
The system config is still read (GIT_CONFIG_NOSYSTEM is not set): the machine's administrator
writes it, not the repository, and it may hold the `safe.directory` entries git needs.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

SAFE_SETTINGS = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("core.pager", "cat"),
    ("log.showSignature", "false"),
)
_NO_DRIVERS = ("--no-ext-diff", "--no-textconv")
_DRIVEN = ("diff", "show", "log")
_REPOSITORY_SCOPES = ("local", "worktree")
_FILTER_COMMANDS = r"^filter\..+\.(clean|smudge|process)$"


def run_git(
    args: Sequence[str], cwd: Path | str, settings: Sequence[tuple[str, str]] = (), **options: Any
) -> subprocess.CompletedProcess[Any]:
    """`git ARGS` in `cwd` (output captured, no check), with nothing the repository configures run;
    `settings` are more (key, value) config settings, `options` go to subprocess.run (text,
    encoding, timeout, env...)."""
    command, *rest = args
    if command in _DRIVEN:
        rest = [*_NO_DRIVERS, *rest]
    env = dict(options.pop("env", None) or os.environ)
    given = [
        *settings,
        *SAFE_SETTINGS,
        *((name, "") for name in _repository_filters(cwd, env, options.get("timeout"))),
    ]
    # GIT_CONFIG_KEY_n/VALUE_n rather than `-c`: a key is taken whole, even one whose driver name holds "="
    first = int(env.get("GIT_CONFIG_COUNT") or 0)
    for index, (key, value) in enumerate(given, start=first):
        env[f"GIT_CONFIG_KEY_{index}"], env[f"GIT_CONFIG_VALUE_{index}"] = key, value
    env["GIT_CONFIG_COUNT"] = str(first + len(given))
    return subprocess.run(
        ["git", command, *rest], cwd=cwd, env=env, capture_output=True, check=False, **options
    )


def _repository_filters(cwd: Path | str, env: dict[str, str], timeout: float | None) -> list[str]:
    """The filter commands (`filter.NAME.clean`...) the repository's own config files set."""
    listed = subprocess.run(
        ["git", "config", "--show-scope", "--null", "--name-only", "--get-regexp", _FILTER_COMMANDS],
        cwd=cwd,
        env=env,
        capture_output=True,
        check=False,
        timeout=timeout,
    )
    fields = listed.stdout.decode("utf-8", "surrogateescape").split("\0")
    return [
        name for scope, name in zip(fields[::2], fields[1::2], strict=False) if scope in _REPOSITORY_SCOPES
    ]
