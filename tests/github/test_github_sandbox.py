"""Issue 25.1: code measured by `approve measure` must not outlive its step, see the runner's
processes (their /proc/<pid>/environ holds later steps' tokens) or reach the network.

The measured program forks a daemon (double fork, setsid) that keeps looking: every process's
environment for a canary token held by a stand-in for the upload step, and a TCP listener of the
test's on 127.0.0.1. Run without the sandbox, the same program finds both and outlives its parent
(so the probes work); in the sandbox it finds neither and is dead when the measurement returns.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from approveworld import fix_pr_world, measure, sandbox_python
from fake_github import FakeGitHub
from test_github_approve import BRANCH, CONFIG, GOOD, MODEL

from graphmend_bot.cli import main
from graphmend_bot.verify.environment import child_environment
from graphmend_bot.verify.sandbox import (
    GRACE_S,
    SYSTEM_PATH,
    Sandbox,
    SandboxError,
    open_sandbox,
    sandbox_problem,
    share_with_sandbox,
)

# The daemon: forked twice and detached (setsid) from the measured process, it records every
# 50 ms what it can see and reach, so a daemon still alive after the step keeps writing.
DAEMON = '''
import json, os, socket, time

def _graphmend_daemon(shared_folder, canary, port):
    if os.fork():
        return
    os.setsid()
    if os.fork():
        os._exit(0)
    while True:
        seen, stolen = [], []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as handle:
                    seen.append(handle.read().replace(b"\\0", b" ").decode(errors="replace"))
                with open(f"/proc/{pid}/environ", "rb") as handle:
                    if canary.encode() in handle.read():
                        stolen.append(pid)
            except OSError:
                pass
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            network = "connected"
        except OSError as error:
            network = f"{type(error).__name__}: {error}"
        state = {"pid": os.getpid(), "uid": os.getuid(), "seen": seen, "stolen": stolen, "network": network,
                 "time": time.time(), "environment": dict(os.environ)}
        with open(f"{shared_folder}/{os.getpid()}.tmp", "w") as handle:
            json.dump(state, handle)
        os.replace(f"{shared_folder}/{os.getpid()}.tmp", f"{shared_folder}/daemon-{os.getpid()}.json")
        time.sleep(0.05)
'''

# A measured program: start the daemon, wait until it has looked once, exit (the step ends).
PROGRAM = DAEMON + '''
import sys, glob
_graphmend_daemon(sys.argv[1], sys.argv[2], int(sys.argv[3]))
for _ in range(400):
    if glob.glob(sys.argv[1] + "/daemon-*.json"):
        break
    time.sleep(0.05)
'''


class Listener:
    """A TCP listener on 127.0.0.1 that counts the connections it accepts."""

    def __init__(self) -> None:
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.socket.settimeout(0.2)
        self.port = self.socket.getsockname()[1]
        self.accepted = 0
        self.running = True
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while self.running:
            try:
                self.socket.accept()[0].close()
                self.accepted += 1
            except OSError:
                pass

    def close(self) -> None:
        self.running = False
        self.thread.join()
        self.socket.close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    server = Listener()
    yield server
    server.close()


@pytest.fixture
def upload_step() -> Iterator[str]:
    """A stand-in for a later step of the job (upload-artifact) holding its runtime token."""
    canary = f"canary-{os.getpid()}-{time.time_ns()}"
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(900)"],
                               env={"PATH": SYSTEM_PATH, "ACTIONS_RUNTIME_TOKEN": canary, "INPUT_TOKEN": canary})
    yield canary
    process.kill()
    process.wait()


def _sandbox_or_skip() -> tuple[Sandbox, str]:
    """The sandbox and an interpreter it can run (the standard library is enough here), or a skip
    that says exactly why not."""
    try:
        sandbox = open_sandbox()
    except SandboxError as error:
        pytest.skip(f"no sandbox on this machine: {error}")
    problems = []
    for python in (sys.executable, sys._base_executable, "/usr/bin/python3"):
        problem = sandbox_problem(sandbox, python, "pass")
        if not problem:
            return sandbox, python
        problems.append(problem)
    pytest.skip(f"the sandbox cannot run here: {'; '.join(problems)}")


def _daemon_reports(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(path.read_text()) for path in sorted(folder.glob("daemon-*.json"))]


def _still_writing(folder: Path, wait_s: float = 0.6) -> bool:
    """Whether a daemon still reports: its file changes within `wait_s`."""
    before = {path.name: path.stat().st_mtime_ns for path in folder.glob("daemon-*.json")}
    time.sleep(wait_s)
    after = {path.name: path.stat().st_mtime_ns for path in folder.glob("daemon-*.json")}
    return after != before


def _host_processes_of(uid: int, needle: str) -> list[str]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.stat(f"/proc/{pid}").st_uid != uid:
                continue
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if needle in command:
            found.append(f"{pid}: {command}")
    return found


def test_the_probes_work_unsandboxed(tmp_path: Path, shared_folder: Path, listener: Listener, upload_step: str) -> None:
    """The control: without the sandbox the daemon steals the canary, connects, and outlives the step."""
    program = tmp_path / "program.py"
    program.write_text(PROGRAM)
    done = subprocess.run([sys.executable, str(program), str(shared_folder), upload_step, str(listener.port)],
                          timeout=60, check=False)
    assert done.returncode == 0
    [report] = _daemon_reports(shared_folder)
    assert report["stolen"] and report["network"] == "connected" and listener.accepted
    assert _still_writing(shared_folder)


def test_a_daemon_of_the_measured_code_sees_no_runner_process_no_network_and_dies_with_the_step(
        shared_folder: Path, listener: Listener, upload_step: str) -> None:
    sandbox, python = _sandbox_or_skip()
    with tempfile.TemporaryDirectory(prefix="graphmend-sandbox-test-") as scratch:
        work = Path(scratch)
        (work / "program.py").write_text(PROGRAM)
        share_with_sandbox(work)
        hostile_environment = {**os.environ, "ACTIONS_RUNTIME_TOKEN": upload_step, "LANG": "C.UTF-8",
                               "DATABASE_URL": f"postgres://user:{upload_step}@db/prod"}
        command = sandbox.command([python, "-s", "-P", str(work / "program.py"), str(shared_folder), upload_step,
                                   str(listener.port)], child_environment(hostile_environment, {}), work, 60)
        done = subprocess.run(command, env={"PATH": SYSTEM_PATH}, capture_output=True, text=True, timeout=120,
                              check=False)
        assert done.returncode == 0, done.stderr
        assert all(path.owner() == Path(scratch).owner() for path in work.rglob("*"))  # handed back
    [report] = _daemon_reports(shared_folder)
    # Another user, in a PID namespace of its own: no process of the runner exists for it.
    assert report["uid"] == sandbox.uid != os.getuid()
    assert report["stolen"] == [] and upload_step not in json.dumps(report["environment"])
    assert not any("pytest" in command or "time.sleep(900)" in command for command in report["seen"]), report["seen"]
    assert len(report["seen"]) <= 5, report["seen"]  # the namespace's init, timeout, the program, the daemon
    # No network: the listener on the host's loopback is out of reach.
    assert report["network"] != "connected" and listener.accepted == 0
    # And the daemon died when the measured program did: it reports no more, and no process of the
    # sandbox user runs it.
    assert not _still_writing(shared_folder)
    assert _host_processes_of(sandbox.uid, str(shared_folder)) == []


def test_approve_measure_kills_a_daemon_of_the_pull_requests_code(tmp_path: Path, fake_github: FakeGitHub,
                                                                  shared_folder: Path, listener: Listener,
                                                                  upload_step: str) -> None:
    """The same daemon, forked by the pull request's model when `approve measure` imports it, on the
    CPU as both verify workflows (GPU and CPU variants) run the same measure action."""
    python, why = sandbox_python()
    if not python:
        pytest.skip(f"no sandbox for torch here: {why}")
    fork = DAEMON + f"_graphmend_daemon({str(shared_folder)!r}, {upload_step!r}, {listener.port})\n"
    world = fix_pr_world(tmp_path, fake_github, {"tinynet.py": MODEL.format(body=BRANCH), ".graphmend.yml": CONFIG},
                         {"tinynet.py": fork + MODEL.format(body=GOOD)})
    report_file = tmp_path / "verify.json"
    done = measure(world, report_file, ACTIONS_CACHE_URL="https://cache.example/")
    assert done.returncode == 0, done.log
    [measured] = json.loads(report_file.read_text())["entry_points"]
    assert measured["rewritten"]["ok"], measured
    reports = _daemon_reports(shared_folder)
    assert reports, "the pull request's code did not run"
    for report in reports:
        assert report["uid"] != os.getuid() and report["stolen"] == [] and report["network"] != "connected"
        assert not any("graphmend" in command and "approve" in command for command in report["seen"]), report
    assert listener.accepted == 0
    assert not _still_writing(shared_folder)
    # A daemon forked by the measurement keeps its command line: the child under verify's scratch.
    assert _host_processes_of(open_sandbox().uid, "graphmend-verify-") == []


def test_verify_refuses_to_measure_when_the_sandbox_cannot_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                               ) -> None:
    """Fail closed: an interpreter the sandbox cannot run (or no root, no namespaces) means nothing is
    measured, never a measurement outside the sandbox."""
    ran = tmp_path / "ran"
    (tmp_path / "entry.py").write_text(f"open({str(ran)!r}, 'w').close()\ndef factory():\n    return abs, (1,)\n")
    code = main(["verify", "--repository", str(tmp_path), "--original", str(tmp_path), "--entrypoint",
                 "entry:factory", "--device", "cpu", "--sandbox", "--python", str(tmp_path / "no-python")])
    assert code == 2
    error = capsys.readouterr().err
    assert "--sandbox:" in error and "nothing was measured" in error
    assert not ran.exists()


def test_without_root_or_the_tools_there_is_no_sandbox(tmp_path: Path) -> None:
    with pytest.raises(SandboxError, match="unshare, setpriv"):
        open_sandbox(search_path=str(tmp_path))


def test_the_sandbox_command_runs_as_another_user_in_new_namespaces_with_only_the_given_environment() -> None:
    sandbox = Sandbox(uid=65534, gid=65534, owner="1001:1001", elevate=("/usr/bin/sudo", "-n", "--"))
    command = sandbox.command(["/usr/bin/python3", "child.py"], {"PATH": "/usr/bin", "LANG": "C"}, Path("/w"), 30)
    assert command[:3] == ["/usr/bin/sudo", "-n", "--"]  # root through sudo: the caller is not root
    unshare = command[3:command.index("--", 3)]
    assert {"--pid", "--fork", "--net", "--mount-proc", "--kill-child"} <= set(unshare)
    script = command[command.index("-c") + 1]
    assert "setpriv --reuid=" in script and "--no-new-privs" in script and "env -i" in script
    assert "kill -9 -1" in script  # whatever the measured code left running
    # PID 1's arguments: the work folder, the sandbox user, who gets the folder back, the time limit
    # (the caller's plus a grace), then exactly the given environment and the command.
    assert command[-8:] == ["/w", "65534:65534", "1001:1001", "40s", "PATH=/usr/bin", "LANG=C",
                            "/usr/bin/python3", "child.py"]


def test_outside_the_sandbox_a_daemon_holding_stderr_cannot_hang_verify(tmp_path: Path, shared_folder: Path,
                                                                        listener: Listener) -> None:
    """`graphmend verify` without --sandbox (a developer's own code): the measured process times out,
    its group is killed, but a setsid daemon keeps the stderr pipe open; waiting for it forever hung
    the measurement (and `approve measure --no-sandbox` with it). Now it gives up GRACE_S + 5 s later."""
    (tmp_path / "forks.py").write_text(DAEMON + f"_graphmend_daemon({str(shared_folder)!r}, 'x', {listener.port})\n"
                                       "def factory():\n    import time\n    time.sleep(600)\n")
    script = ("import sys; from pathlib import Path\n"
              "from graphmend_bot.verify.runner import run_arm\n"
              "from graphmend_bot.verify.settings import EntryPoint, Settings\n"
              f"result = run_arm(EntryPoint('forks', 'forks:factory', Settings(device='cpu', timeout=20)), "
              f"Path({str(tmp_path)!r}), Path({str(tmp_path / 'work')!r}))\n"
              "print(result.error_kind)\n")
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=180, check=False)
    assert done.stdout.strip() == "timeout", done.stderr
    assert time.monotonic() - started < 20 + GRACE_S + 5 + 30  # the timeout, the wait for stderr, start-up
    assert _daemon_reports(shared_folder)  # the daemon did start (the fixture kills it)
