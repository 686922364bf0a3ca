"""Files named `*.py` that are no regular file (a device, a FIFO) are never read, and no read goes
past the size cap, whatever size the file claims (review4's finding 5: `zero.py -> /dev/zero` made
the CLI run out of memory, `rnd.py -> /dev/urandom` made it run until killed)."""

import os
import resource
import subprocess
import sys

import pytest

from graphmend_bot.analysis import files
from graphmend_bot.analysis.files import SkippedFile, read_source
from graphmend_bot.rewrite.python_io import notice_once
from graphmend_bot.rewrite.shapes import run_eagerly

MODEL = """
    import torch
    from torch import nn


    class Net(nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                x = x * 2
            print("forward")
            return x
"""


def _limited_memory() -> None:
    # The old code read /dev/zero until memory ran out: keep that from taking the machine with it.
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))


def run(cmd, cwd, *args):
    return subprocess.run([*cmd, *args], cwd=cwd, capture_output=True, text=True, timeout=60,
                          preexec_fn=_limited_memory)


@pytest.fixture
def tree_with_special_files(write_tree):
    root = write_tree({"model.py": MODEL})
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "zero.py").symlink_to("/dev/zero")
    (root / "random.py").symlink_to("/dev/urandom")
    os.mkfifo(root / "pipe.py")
    return root


def test_devices_and_fifos_are_skipped_saying_so_and_the_run_goes_on(tree_with_special_files, graphmend_cmd):
    result = run(graphmend_cmd, tree_with_special_files, "check", "--no-cache", ".")
    assert "Traceback" not in result.stdout + result.stderr
    assert result.returncode == 1, result.stderr  # the finding, not an internal error
    assert "model.py:7:12: GM101" in result.stdout
    assert "zero.py: error: skipped: not a regular file (a character device)" in result.stdout
    assert "random.py: error: skipped: not a regular file (a character device)" in result.stdout
    assert "pipe.py: error: skipped: not a regular file (a FIFO)" in result.stdout


def test_a_fifo_or_device_named_on_the_command_line_is_said_to_be_no_regular_file(tree_with_special_files,
                                                                                  graphmend_cmd):
    """Named one by one (pre-commit's way), they were walked as folders: "cannot read directory: Not a
    directory", a message about something the user never named."""
    result = run(graphmend_cmd, tree_with_special_files, "check", "--no-cache", "pipe.py", "zero.py", "model.py")
    assert result.returncode == 1 and "model.py:7:12: GM101" in result.stdout
    assert "pipe.py: error: skipped: not a regular file (a FIFO)" in result.stdout
    assert "zero.py: error: skipped: not a regular file (a character device)" in result.stdout
    assert "directory" not in result.stdout + result.stderr


def test_a_check_of_one_file_analyses_the_tree_around_it_without_reading_them(tree_with_special_files,
                                                                               graphmend_cmd):
    result = run(graphmend_cmd, tree_with_special_files, "check", "--no-cache", "model.py")
    assert result.returncode == 1, result.stderr
    assert "model.py:7:12: GM101" in result.stdout
    assert "zero.py" not in result.stdout  # not a given path: not reported either


def test_fix_and_diff_finish_too(tree_with_special_files, graphmend_cmd):
    result = run(graphmend_cmd, tree_with_special_files, "check", "--no-cache", "--diff", ".")
    assert "Traceback" not in result.stdout + result.stderr
    assert "+        if not torch.compiler.is_compiling():" in result.stdout, result.stderr


def test_no_read_goes_past_the_cap_whatever_size_the_file_claims(tmp_path, monkeypatch):
    """A /proc file is a regular file of size 0 with content: the read itself stops at the cap + 1."""
    monkeypatch.setattr(files, "MAX_FILE_BYTES", 64)
    link = tmp_path / "status.py"
    link.symlink_to("/proc/self/status")
    with pytest.raises(SkippedFile, match="over the 0 MiB limit"):
        read_source(str(link))


def test_a_regular_file_through_a_symlink_at_the_cap_is_still_read(tmp_path, monkeypatch):
    monkeypatch.setattr(files, "MAX_FILE_BYTES", 64)
    real = tmp_path / "real.py"
    real.write_text("x = 1\n" + "#" * (64 - 7) + "\n")
    assert real.stat().st_size == 64
    (tmp_path / "link.py").symlink_to(real)
    assert read_source(str(tmp_path / "link.py")) == real.read_text()
    real.write_text(real.read_text() + "\n")
    with pytest.raises(SkippedFile, match="over the"):
        read_source(str(tmp_path / "link.py"))


SCAN_PACKAGE = """
import sys
from graphmend_bot.rewrite.python_io import notice_once
from graphmend_bot.rewrite.shapes import run_eagerly
print(run_eagerly._package_sets_capture_flag(sys.argv[1]), notice_once._read(sys.argv[1] + "/pipe.py"),
      notice_once._read(sys.argv[1] + "/zero.py"))
"""


def test_the_rewrites_other_reads_skip_them_too(tmp_path):
    """The scans a rewrite makes beyond the checked files (the package's capture flag, a relative
    import's module) read as read_source does: a FIFO there blocked them forever."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    os.mkfifo(package / "pipe.py")
    (package / "zero.py").symlink_to("/dev/zero")
    done = subprocess.run([sys.executable, "-c", SCAN_PACKAGE, str(package)], capture_output=True, text=True,
                          timeout=60, preexec_fn=_limited_memory)
    assert done.stdout.split() == ["False", "None", "None"], done.stderr


def test_the_capture_flag_scan_keeps_to_the_size_cap(tmp_path, monkeypatch):
    monkeypatch.setattr(files, "MAX_FILE_BYTES", 64)
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    flags = "import torch\ntorch._dynamo.config.capture_dynamic_output_shape_ops = True\n"
    (package / "flags.py").write_text(flags)
    run_eagerly._package_sets_capture_flag.cache_clear()
    assert not run_eagerly._package_sets_capture_flag(str(package))  # over the (patched) cap: not read
    monkeypatch.setattr(files, "MAX_FILE_BYTES", 1024)
    run_eagerly._package_sets_capture_flag.cache_clear()
    assert run_eagerly._package_sets_capture_flag(str(package))
    assert notice_once._read.__wrapped__(str(package / "flags.py")) == flags
