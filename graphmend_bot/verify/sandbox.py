"""Run code under measurement as another user, in its own PID, network, IPC and mount namespaces.

Without it the measured code runs as the caller: in `graphmend approve measure` that is the CI
runner's user, and a process it forks could outlive the step and read later steps' secrets from
`/proc/<pid>/environ` (the upload step's `ACTIONS_RUNTIME_TOKEN`, checkout's `INPUT_TOKEN`). In
the sandbox the measured process

- runs as `nobody` with no supplementary groups, no capabilities and `no_new_privs` (setpriv), so
  it cannot read the runner user's private files, signal or trace its processes, or gain privilege
  from sudo or another set-user-ID program;
- sees only its own processes: a new PID namespace with its own /proc (`unshare --pid
  --mount-proc`), so no runner process exists for it, by /proc or by kill;
- has no network: a new network namespace holds only a loopback interface that is down;
- gets only the environment given to it (`env -i`), never the caller's;
- ends with everything it started: PID 1 of the namespace is a small root shell that runs the
  measured command under `timeout`, then kills every other process of the namespace (`kill -9 -1`),
  and the kernel kills whatever is left when PID 1 exits. A double-forked, setsid daemon is still in
  the namespace, so it dies too, before the caller reads anything the sandbox wrote.

Creating namespaces and switching user needs root: the sandbox runs as root when the caller is
root, through `sudo -n` otherwise (GitHub-hosted runners allow it). When neither works, or the
kernel refuses a namespace, `open_sandbox`/`sandbox_problem` say why and nothing is run.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

SANDBOX_USER = "nobody"
# Binaries that run as root are looked up here, never on the caller's PATH.
SYSTEM_PATH = "/usr/sbin:/usr/bin:/sbin:/bin"
# Left to the measured command after the caller's own timeout, so that the namespace ends even
# when the caller cannot signal root's processes (sudo).
GRACE_S = 10.0

# PID 1 of the new namespaces, as root: hand the work folder to the sandbox user, run the command
# as that user, kill every other process in the namespace, hand the folder back, exit with the
# command's status. `chown -h` never follows a link the measured code left.
_INIT = """set -u
PATH=/usr/sbin:/usr/bin:/sbin:/bin
work=$1 user=$2 owner=$3 limit=$4
shift 4
chown -R -h -- "$user" "$work" || exit 125
timeout --signal=KILL "$limit" setpriv --reuid="${user%:*}" --regid="${user#*:}" --clear-groups \\
  --inh-caps=-all --bounding-set=-all --no-new-privs -- env -i "$@"
status=$?
kill -9 -1 2>/dev/null
chown -R -h -- "$owner" "$work"
exit "$status"
"""


class SandboxError(Exception):
    """The sandbox cannot run here; the message says why and what would make it work."""


@dataclass(frozen=True)
class Sandbox:
    uid: int  # the sandbox user
    gid: int
    owner: str  # "uid:gid" of the caller, who gets the work folder back
    elevate: tuple[str, ...]  # () when the caller is root, else the sudo prefix

    def command(self, argv: Sequence[str], environment: Mapping[str, str], work: Path,
                limit_s: float) -> list[str]:
        """The command line that runs `argv` in the sandbox with exactly `environment`, in `work`
        (a folder the sandbox user may write, handed back to the caller afterwards)."""
        assignments = [f"{name}={value}" for name, value in environment.items()]  # names hold no '='
        return [
            *self.elevate, _system_binary("unshare"), "--pid", "--fork", "--kill-child", "--net", "--ipc",
            "--mount-proc", "--", _system_binary("sh"), "-c", _INIT, "graphmend-sandbox",
            str(work), f"{self.uid}:{self.gid}", self.owner, f"{limit_s + GRACE_S:g}s", *assignments, *argv,
        ]


def open_sandbox(search_path: str = SYSTEM_PATH) -> Sandbox:
    """The sandbox of this machine, or SandboxError naming what is missing."""
    missing = [name for name in ("unshare", "setpriv", "timeout", "chown", "env", "sh")
               if shutil.which(name, path=search_path) is None]
    if missing:
        raise SandboxError(f"the sandbox needs {', '.join(missing)} (util-linux and coreutils) in {search_path}")
    try:
        user = pwd.getpwnam(SANDBOX_USER)
    except KeyError:
        raise SandboxError(f"the sandbox runs the measured code as the user {SANDBOX_USER!r}, which does not exist") from None
    if user.pw_uid == 0:
        raise SandboxError(f"the user {SANDBOX_USER!r} is root here")
    elevate: tuple[str, ...] = ()
    if os.geteuid() != 0:
        sudo = shutil.which("sudo", path=search_path)
        if sudo is None:
            raise SandboxError("the sandbox needs root (namespaces, another user): run as root, or install sudo and "
                               "allow this user to run it without a password")
        elevate = (sudo, "-n", "--")
    return Sandbox(user.pw_uid, user.pw_gid, f"{os.getuid()}:{os.getgid()}", elevate)


def sandbox_problem(sandbox: Sandbox, python: str, code: str = "import torch") -> str:
    """Why `python -c code` cannot run in the sandbox ("" when it can): no root, a kernel that
    refuses the namespaces, or an interpreter (or torch) the sandbox user cannot read."""
    with tempfile.TemporaryDirectory(prefix="graphmend-sandbox-probe-") as scratch:
        share_with_sandbox(Path(scratch))
        command = sandbox.command([python, "-s", "-P", "-c", code], {"PATH": SYSTEM_PATH}, Path(scratch), 60)
        try:
            done = subprocess.run(command, env={"PATH": SYSTEM_PATH}, cwd=scratch, capture_output=True, text=True,
                                  timeout=60 + 2 * GRACE_S, check=False)
        except (OSError, subprocess.TimeoutExpired) as error:
            return f"the sandbox did not start: {error}"
    if done.returncode == 0:
        return ""
    tail = " ".join(done.stderr.strip().splitlines()[-2:]) or f"exit status {done.returncode}"
    return f"`{python} -c '{code}'` failed in the sandbox (as {SANDBOX_USER}, in new namespaces): {tail}"


def share_with_sandbox(folder: Path) -> None:
    """Let the sandbox user enter and read `folder` and everything in it (tempfile makes folders
    0700): the sources and the measurement child are copied into such a folder, since the caller's
    own folders (a home, $RUNNER_TEMP) may be closed to other users. Links are left alone."""
    folder.chmod(folder.stat().st_mode | 0o755)
    for parent, folders, files in os.walk(folder):  # never into a linked folder
        for name, bits in [*((name, 0o755) for name in folders), *((name, 0o444) for name in files)]:
            path = os.path.join(parent, name)
            if not os.path.islink(path):
                os.chmod(path, os.stat(path).st_mode | bits)


def _system_binary(name: str) -> str:
    found = shutil.which(name, path=SYSTEM_PATH)
    if found is None:
        raise SandboxError(f"the sandbox needs {name} in {SYSTEM_PATH}")
    return found
