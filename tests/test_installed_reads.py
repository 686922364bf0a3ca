"""Reading an installed package's compiled modules (analysis/installed_packages.py) gives one answer
whatever the machine's load and whatever the process read before: a read error is retried, one
that persists is said on stderr and never memoised (nor cached by the summary cache), and every
memo is keyed by the read root in force."""

from __future__ import annotations

import errno
import importlib.machinery
import mmap
import textwrap
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from graphmend_bot.analysis import files, installed_packages
from graphmend_bot.analysis.files import READ_ROOT_VARIABLE
from graphmend_bot.analysis.installed_packages import extension_callee, installed_state
from graphmend_bot.analysis.summary_cache import SummaryCache
from graphmend_bot.engine import PARALLEL_THRESHOLD, check
from graphmend_bot.findings import CheckResult
from graphmend_bot.vocabulary.compiled_code import CompiledModule

SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]
WAVELET = CompiledModule("fakecy._core", True)


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A `site-packages` folder on sys.path whose package `fakecy` star-imports a Cython module."""
    root = tmp_path / "site-packages"
    (root / "fakecy").mkdir(parents=True)
    (root / "fakecy" / "__init__.py").write_text("from ._core import *\n")
    (root / "fakecy" / "_core").with_name("_core" + SUFFIX).write_bytes(b"\0cython_function_or_method\0")
    monkeypatch.syspath_prepend(str(root))
    installed_packages.forget()
    yield root
    installed_packages.forget()


def failing_mmap(monkeypatch: pytest.MonkeyPatch, failures: int, code: int = errno.ENOMEM) -> list[int]:
    """Make the next `failures` maps of a module file fail with `code` (as on a loaded machine)."""
    calls: list[int] = []

    def flaky(*args: Any, **kwargs: Any) -> mmap.mmap:
        calls.append(1)
        if len(calls) <= failures:
            raise OSError(code, "injected")
        return mmap.mmap(*args, **kwargs)

    monkeypatch.setattr(installed_packages, "mmap", SimpleNamespace(mmap=flaky, ACCESS_READ=mmap.ACCESS_READ))
    monkeypatch.setattr(installed_packages, "_RETRY_PAUSE_S", 0.0, raising=False)
    return calls


def test_a_transient_read_error_is_retried(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ENOMEM, EMFILE, EAGAIN... say the machine is busy, not that the module is not compiled: on
    main such an error dropped the GM651 of every call into the module for the rest of the process."""
    failing_mmap(monkeypatch, failures=2)
    assert extension_callee("fakecy.Wavelet") == WAVELET


def test_a_package_module_read_under_load_is_retried(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same for the `__init__.py` whose star import leads to the compiled module (EMFILE: the
    process is out of file descriptors for a moment)."""
    calls: list[str] = []

    def busy(path: Any, *args: Any, **kwargs: Any) -> Any:
        if str(path).endswith("__init__.py"):
            calls.append(str(path))
            if len(calls) <= 2:
                raise OSError(errno.EMFILE, "Too many open files")
        return open(path, *args, **kwargs)

    monkeypatch.setattr(files, "open", busy, raising=False)
    monkeypatch.setattr(installed_packages, "_RETRY_PAUSE_S", 0.0, raising=False)
    assert extension_callee("fakecy.Wavelet") == WAVELET
    assert len(calls) == 3


def test_a_read_that_keeps_failing_is_said_and_not_memoised(
    site: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    calls = failing_mmap(monkeypatch, failures=10**6, code=errno.EIO)
    assert extension_callee("fakecy.Wavelet") is None
    assert len(calls) == 1  # EIO is the file's own error: not retried
    assert "cannot read the installed file" in capsys.readouterr().err
    monkeypatch.setattr(installed_packages, "mmap", mmap)
    assert extension_callee("fakecy.Wavelet") == WAVELET  # read again, not the failure remembered


@pytest.mark.parametrize("jobs", [1, 2])
def test_nothing_made_after_a_failed_read_is_cached(
    site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int
) -> None:
    """A warm run must read the module again, not reuse a summary or a whole result that lacks its
    GM651 (jobs=2 with enough files: the summaries are made in a pool of workers)."""
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "model.py").write_text(textwrap.dedent("""\
        import fakecy
        import torch


        class Model(torch.nn.Module):
            def forward(self, x):
                return x * fakecy.Wavelet(2)
        """))
    for index in range(PARALLEL_THRESHOLD if jobs > 1 else 0):
        (tree / f"other{index}.py").write_text(
            f"import torch\n\n\nclass M{index}(torch.nn.Module):\n    def forward(self, x):\n        return x + {index}\n")
    cache = SummaryCache(tmp_path / "cache")
    failing_mmap(monkeypatch, failures=10**6, code=errno.EIO)
    assert "GM651" not in codes(check([str(tree)], jobs=jobs, cache=cache))
    assert not list((tmp_path / "cache").glob("result/*/*.json"))
    monkeypatch.setattr(installed_packages, "mmap", mmap)
    assert "GM651" in codes(check([str(tree)], jobs=jobs, cache=cache))  # not the failed run's entries
    assert list((tmp_path / "cache").glob("result/*/*.json"))


def codes(result: CheckResult) -> list[str]:
    return [finding.code for finding in result.findings]


def test_every_memo_is_keyed_by_the_read_root(site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A process that confines its reads after a first check (the bot) answers as a confined one:
    neither the compiled module judged before nor the installed state digested before is reused."""
    unconfined = installed_state()
    assert extension_callee("fakecy.Wavelet") == WAVELET
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    monkeypatch.setenv(READ_ROOT_VARIABLE, str(workspace))
    assert extension_callee("fakecy.Wavelet") is None
    assert installed_packages.installed_package("fakecy") == []
    assert installed_state() != unconfined
    monkeypatch.delenv(READ_ROOT_VARIABLE)
    assert extension_callee("fakecy.Wavelet") == WAVELET and installed_state() == unconfined
