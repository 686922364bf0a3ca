"""The pytest plugin behind `graphmend census` (registered as the `pytest11` entry point).

Off by default. `pytest --graphmend-census` records, while the project's tests run, what
TorchDynamo says about each outermost module (and configured entry point) the tests call, and
writes one JSON census file (`--graphmend-census-file`, default graphmend-census.json). It never
changes a test's outcome: anything the census cannot do is recorded, not raised.

This module imports neither torch nor graphmend's engine until the option is given, so it costs
nothing in test runs that do not ask for it.
"""

from __future__ import annotations

import os
import site
import subprocess
import sys
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from graphmend_bot.git_command import run_git

DEFAULT_FILE = "graphmend-census.json"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("graphmend", "graphmend census of torch.compile graph breaks")
    group.addoption("--graphmend-census", action="store_true", default=False,
                    help="explain the first call of each outermost nn.Module with TorchDynamo and record its "
                         "graph breaks")
    group.addoption("--graphmend-census-file", default=DEFAULT_FILE, metavar="FILE",
                    help=f"where to write the census (default: {DEFAULT_FILE})")
    group.addoption("--graphmend-census-entry", action="append", default=[], metavar="MODULE:FUNCTION",
                    help="also census this function (repeatable; added to the configuration's entry-points)")
    group.addoption("--graphmend-census-root", default=None, metavar="DIR",
                    help="the repository root that paths in the census are relative to (default: pytest's rootdir)")
    group.addoption("--graphmend-census-commit", default=None, metavar="SHA",
                    help="the commit the tests run on, recorded in the census (default: git's HEAD, else "
                         "GITHUB_SHA); the review uses the census only for this commit")
    group.addoption("--graphmend-census-changed-since", default=None, metavar="BASE",
                    help="pull-request mode: explain only calls that reach a file changed since the commit BASE "
                         "(git diff of the working tree); the census is partial, completed with BASE's census")
    group.addoption("--graphmend-census-changed", action="append", default=[], metavar="PATH",
                    help="with --graphmend-census-changed-since COMMIT: the changed files (relative to the census "
                         "root), instead of asking git (repeatable)")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--graphmend-census"):
        config.pluginmanager.register(CensusPlugin(config), "graphmend-census")


def _commit(root: Path, given: str | None) -> tuple[str, str]:
    """The commit the tests run on, and a problem to report ("" for none): the option, else git's
    HEAD (what is checked out: on `pull_request`, GITHUB_SHA is the merge commit, not the head),
    else GITHUB_SHA."""
    from graphmend_bot.census.record import is_commit

    if given:  # an empty value (an unset workflow expression) means "not given"
        sha = given.strip().lower()
        if is_commit(sha):
            return sha, ""
        return "", f"--graphmend-census-commit {given[:80]!r} is not a hexadecimal commit id: no commit recorded"
    try:
        done = run_git(["rev-parse", "HEAD"], root, text=True, timeout=10)
        if done.returncode == 0 and is_commit(done.stdout.strip()):
            return done.stdout.strip(), ""
    except (OSError, subprocess.TimeoutExpired):
        pass
    sha = os.environ.get("GITHUB_SHA", "").strip().lower()
    return (sha, "") if is_commit(sha) else ("", "")


def _installed_packages(root: Path) -> list[str]:
    """Where the environment installs packages (a venv inside the repository included), unless the
    census root is itself inside one (a census of an installed library's own code)."""
    places = {*site.getsitepackages(), site.getusersitepackages(), sys.prefix, sys.exec_prefix}
    return sorted(p for p in places if p and not root.is_relative_to(Path(p).resolve()))


class CensusPlugin:
    def __init__(self, config: pytest.Config) -> None:
        from graphmend_bot.census.dynamo import Tree
        from graphmend_bot.census.recorder import Recorder

        self.config = config
        self.problems: list[str] = []
        root = Path(config.getoption("--graphmend-census-root") or config.rootpath).resolve()
        output = Path(config.getoption("--graphmend-census-file"))
        self.output = output if output.is_absolute() else Path(config.invocation_params.dir) / output
        self.entry_points = [*self._configured_entry_points(root), *config.getoption("--graphmend-census-entry")]
        commit, problem = _commit(root, config.getoption("--graphmend-census-commit"))
        if problem:
            self.problems.append(problem)
        changed = self._changed(root)
        self.recorder = Recorder(root, Tree([str(root)], exclude=_installed_packages(root)), commit, changed)
        self.recorder.install()
        # Wrapped now, before the tests import them (`from pkg import fn` keeps what it got); the
        # ones that cannot be imported yet (a conftest sets sys.path) are tried after collection.
        self.checkpointed, self.checkpoint_failed = 0, False
        self.pending = [spec for spec in self.entry_points if self.recorder.wrap_entry_point(spec)]

    def _changed(self, root: Path) -> tuple[str, set[str]] | None:
        """Pull-request mode's (base commit, changed files), or None for a whole census (also when the
        changed files cannot be known: then every call is explained, and the reason reported)."""
        from graphmend_bot.census.changed import changed_since
        from graphmend_bot.census.record import CensusError, is_commit, relative_path

        base, given = self.config.getoption("--graphmend-census-changed-since"), self.config.getoption(
            "--graphmend-census-changed")
        if not base:
            if given:
                self.problems.append("--graphmend-census-changed needs --graphmend-census-changed-since COMMIT: "
                                     "every call explained")
            return None
        try:
            if not given:
                return changed_since(root, base)
            if not is_commit(base.strip().lower()):
                raise CensusError(f"--graphmend-census-changed-since {base[:80]!r} is not a hexadecimal commit id")
            return base.strip().lower(), {relative_path(path, "--graphmend-census-changed") for path in given}
        except CensusError as error:
            self.problems.append(f"pull-request mode off, every call explained: {error}")
            return None

    def _configured_entry_points(self, root: Path) -> list[str]:
        from graphmend_bot.config import ConfigError, load_config

        try:
            return list(load_config(start=root).entry_points)
        except ConfigError as error:
            self.problems.append(f"configuration ignored: {error}")
            return []

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """After collection the project's modules are imported: wrap the entry points."""
        for spec in self.pending:
            problem = self.recorder.wrap_entry_point(spec)
            if problem:
                self.problems.append(problem)

    def pytest_runtest_logfinish(self, nodeid: str, location: tuple[str, int | None, str]) -> None:
        """After a test that explained a call, the census so far is written (marked incomplete): a
        crash that kills pytest later (a segfault in an extension) keeps what the earlier tests showed."""
        calls = len(self.recorder.census.calls)
        if calls == self.checkpointed or self.checkpoint_failed:
            return
        from graphmend_bot.census.record import write_census

        try:
            write_census(self.recorder.finish(complete=False), self.output)
            self.checkpointed = calls
        except OSError:
            self.checkpoint_failed = True  # reported once, by the final write

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, Any, None]:
        self.recorder.current_test = item.nodeid
        yield
        self.recorder.current_test = ""

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        from graphmend_bot.census.record import write_census

        self.recorder.uninstall()
        census = self.recorder.finish()
        try:
            write_census(census, self.output)
        except OSError as error:
            self.problems.append(f"cannot write {self.output}: {error.strerror}")
            return
        self.written = (len(census.calls), len(census.breaks))

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        written = getattr(self, "written", None)
        if written is not None:
            calls, breaks = written
            failed = sum(1 for call in self.recorder.census.calls if call.error)
            terminalreporter.write_line(
                f"graphmend census: {calls} call(s) explained ({failed} could not be), {breaks} graph-break "
                f"line(s) -> {self.output}")
            if self.recorder.census.partial:
                terminalreporter.write_line(
                    f"graphmend census: partial, {len(self.recorder.census.changed_files)} file(s) changed since "
                    f"{self.recorder.census.changed_since[:12]}: {self.recorder.unchanged_calls} call(s) reach none "
                    "and were not explained (the base census has them)")
            if self.recorder.skipped:
                terminalreporter.write_line(
                    f"graphmend census: not explained (no project code runs in them): "
                    f"{', '.join(sorted(self.recorder.skipped)[:10])}")
        for problem in self.problems:
            terminalreporter.write_line(f"graphmend census: {problem}")
