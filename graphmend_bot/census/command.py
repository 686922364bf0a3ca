"""`graphmend census [PYTEST ARGS ...]`: the project's tests under pytest with the census plugin.

With `--compare BASE`, the census written is then compared with BASE's (compare.py) and the exit
status is the comparison's; `--head FILE` compares an existing census instead of running the tests.
`--budget FILE` (graphmend-breaks.json, budget.py) accepts the breaks it expects, with or without a
base census; `--update-budget` writes the census's breaks (the one just recorded, or `--head`'s) to it.
`--changed-since BASE` is the plugin's pull-request mode (`--graphmend-census-changed-since`).

pytest runs in a child process of this interpreter (the environment graphmend is installed in, which
must be the project's test environment), so the project's own conftest and plugins behave as in a
plain `python -m pytest`. A census file left by an earlier run is removed first: a run that writes
none must not leave an old one looking like its own.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from graphmend_bot.census.budget import BUDGET_FILE, write_budget
from graphmend_bot.census.compare import EXIT_UNUSABLE, compare_files
from graphmend_bot.census.record import CensusError, load_census

EXIT_NO_CENSUS = 2


def census_command(file: str, pytest_args: Sequence[str], commit: str | None = None, entries: Sequence[str] = (),
                   base: str | None = None, head: str | None = None, output_format: str = "text",
                   budget: str | None = None, update_budget: bool = False, changed_since: str | None = None) -> int:
    """`graphmend census`: pytest's status, or with `base` (or `budget`) the comparison's (a gate on
    added breaks), or with `update_budget` the budget written."""
    if base is None and budget is None and not update_budget:
        if head is not None:
            print("graphmend: --head names the census to compare with --compare BASE_CENSUS; none given",
                  file=sys.stderr)
            return EXIT_UNUSABLE
        return run_census(file, pytest_args, commit, entries, changed_since=changed_since)
    if head is None:
        status = run_census(file, pytest_args, commit, entries, pytest_output=sys.stderr,
                            changed_since=changed_since)  # stdout: the comparison
        if status == EXIT_NO_CENSUS and not Path(file).is_file():
            return EXIT_UNUSABLE
        if status:
            print(f"graphmend: the tests exited with {status}; the census covers the calls they made",
                  file=sys.stderr)
        head = file
    if update_budget:
        return update_budget_file(Path(head), Path(budget or BUDGET_FILE))
    return compare_files(Path(base) if base is not None else None, Path(head), output_format,
                         Path(budget) if budget is not None else None)


def update_budget_file(head: Path, budget: Path) -> int:
    """Write the census's breaks as the budget; 0, or EXIT_UNUSABLE with a message."""
    try:
        census = load_census(Path(head))
    except CensusError as error:
        print(f"graphmend: budget not written: {error}", file=sys.stderr)
        return EXIT_UNUSABLE
    if not census.complete:
        print(f"graphmend: budget not written: the census {head} is incomplete (its test run stopped early)",
              file=sys.stderr)
        return EXIT_UNUSABLE
    count = write_budget(census, budget)
    print(f"graphmend: wrote {count} expected graph break(s) to {budget}", file=sys.stderr)
    return 0


def run_census(file: str, pytest_args: Sequence[str], commit: str | None = None,
               entries: Sequence[str] = (), pytest_output: TextIO | None = None, changed_since: str | None = None) -> int:
    """pytest's exit status when it wrote the census, else EXIT_NO_CENSUS with a message. `changed_since`:
    the base of pull-request mode (the plugin checks it and says why when it cannot be used)."""
    output = Path(file)
    output.unlink(missing_ok=True)
    command = [sys.executable, "-m", "pytest", "--graphmend-census", f"--graphmend-census-file={output}"]
    if commit:
        command.append(f"--graphmend-census-commit={commit}")
    command += [f"--graphmend-census-entry={entry}" for entry in entries]
    if changed_since is not None:  # one `=` argument: a value starting with "-" stays a value
        command.append(f"--graphmend-census-changed-since={changed_since}")
    args = list(pytest_args)
    command += args[1:] if args[:1] == ["--"] else args
    status = subprocess.run(command, check=False, stdout=pytest_output).returncode
    if status < 0:  # killed by a signal: the shell's convention, as a process exit status can be no less than 0
        status = 128 - status
    if not output.is_file():
        print(f"graphmend: pytest exited with {status} and wrote no census at {output}", file=sys.stderr)
        return EXIT_NO_CENSUS
    if status > 5:  # killed, or not one of pytest's own statuses (0-5): the session did not finish
        print(f"graphmend: pytest exited with {status} before the end of the session; {output} holds what "
              "the tests that ran before showed", file=sys.stderr)
    return status
