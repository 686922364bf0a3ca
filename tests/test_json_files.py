"""The JSON readers (baseline, census, budget, review bundle) read regular files only, and never
past their cap (review7 finding 7: `check --baseline /dev/zero` ran out of memory, a FIFO given as
the baseline hung, since the cap trusted st_size and a device reports 0)."""

from __future__ import annotations

import os
import resource
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from graphmend_bot.baseline import load_baseline
from graphmend_bot.census.budget import load_budget
from graphmend_bot.census.record import load_census
from graphmend_bot.github.review.bundle import read_bundle
from graphmend_bot.json_files import JsonFileError, read_json_file

MODEL = "import torch\n\n\n@torch.compile\ndef f(x):\n    print(x)\n    return x\n"


def _limited_memory() -> None:
    # The old code read /dev/zero until memory ran out: keep that from taking the machine with it.
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))


@pytest.mark.parametrize(("special", "kind"), [("/dev/zero", "a character device"), ("fifo.json", "a FIFO")])
def test_a_device_or_fifo_as_the_baseline_is_one_line_and_exit_2(tmp_path, graphmend_cmd, special, kind):
    (tmp_path / "model.py").write_text(MODEL)
    os.mkfifo(tmp_path / "fifo.json")
    result = subprocess.run([*graphmend_cmd, "check", "--no-cache", "--baseline", special, "model.py"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=60, preexec_fn=_limited_memory)
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("graphmend: invalid configuration: baseline ") and result.stderr.count("\n") == 1
    assert result.stderr.endswith(f"{special}: cannot read: not a regular file ({kind})\n")


def _finishes(read: Callable[[], object], fifo: Path) -> BaseException | None:
    """What `read` raised, failing the test when it hangs (the old code waited on the FIFO forever)."""
    outcome: list[BaseException | None] = []

    def target() -> None:
        try:
            read()
            outcome.append(None)
        except BaseException as error:  # handed to the test
            outcome.append(error)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(10)
    if thread.is_alive():  # release the reader: a writer opens and closes, so it reads EOF
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        thread.join(10)
        pytest.fail("the reader waited on a FIFO")
    return outcome[0]


@pytest.mark.parametrize("reader", [load_baseline, load_census, load_budget, read_bundle, lambda path: read_json_file(path, 1 << 20)],
                         ids=["baseline", "census", "budget", "bundle", "any"])
def test_every_json_reader_refuses_a_fifo_without_waiting_on_it(tmp_path, reader):
    fifo = tmp_path / "data.json"
    os.mkfifo(fifo)
    error = _finishes(lambda: reader(fifo), fifo)
    assert isinstance(error, ValueError) and "not a regular file (a FIFO)" in str(error), error


def test_no_read_goes_past_the_cap_whatever_size_the_file_claims():
    proc_file = Path("/proc/self/status")  # a regular file whose size says 0
    assert proc_file.stat().st_size == 0
    with pytest.raises(JsonFileError, match="larger than"):
        read_json_file(proc_file, 64)


def test_a_missing_file_and_bad_json_keep_their_messages(tmp_path):
    with pytest.raises(JsonFileError, match="no such file") as missing:
        read_json_file(tmp_path / "absent.json", 1 << 20)
    assert missing.value.missing
    (tmp_path / "bad.json").write_bytes(b"\xff{")
    with pytest.raises(JsonFileError, match="unreadable: 'utf-8' codec"):
        read_json_file(tmp_path / "bad.json", 1 << 20)
    (tmp_path / "good.json").write_text('{"a": [1]}')
    assert read_json_file(tmp_path / "good.json", 1 << 20) == {"a": [1]}
