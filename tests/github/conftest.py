from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_github import FakeGitHub

from graphmend_bot.analysis.files import READ_ROOT_VARIABLE


@pytest.fixture
def fake_github() -> Iterator[FakeGitHub]:
    fake = FakeGitHub().start()
    try:
        yield fake
    finally:
        fake.stop()


@pytest.fixture(autouse=True)
def unconfined_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bot confines its process's reads to the workspace for good (analyse.py); a test that runs
    it in-process must not leave that confinement to the tests after it."""
    monkeypatch.setenv(READ_ROOT_VARIABLE, "")


@pytest.fixture
def shared_folder() -> Iterator[Path]:
    """A folder any user may write, under the system's temporary folder (pytest's own are closed
    to other users): where code measured in the sandbox, as `nobody`, records what it saw."""
    folder = Path(tempfile.mkdtemp(prefix="graphmend-shared-"))
    folder.chmod(0o1777)
    yield folder
    for report in folder.glob("daemon-*.json"):  # a daemon left running by a failed assertion
        with contextlib.suppress(ProcessLookupError, PermissionError, ValueError, KeyError):
            os.kill(json.loads(report.read_text())["pid"], 9)
    shutil.rmtree(folder, ignore_errors=True)
