"""`graphmend approve measure`: on the self-hosted GPU runner, where the pull request's code runs.

So this step holds nothing worth stealing and trusts nothing from the checkout:

- it refuses to start while any credential is in its environment (`secret_variables`);
- the checkout's HEAD must be the commit preflight passed on;
- entry points and verify settings come from the base commit's configuration (`git show BASE:...`);
- `graphmend verify` runs as `python -I -m graphmend_bot.cli` in a neutral folder, the checkout
  passed with `--repository`, so no module in the checkout (`graphmend_bot/cli.py`, `pip/`) can
  stand in for graphmend's;
- `graphmend verify --sandbox` runs each measurement as another user in its own PID, network and
  mount namespaces with an allow-listed environment, and kills every process it started before
  the step goes on (verify/sandbox.py); where the sandbox cannot run, nothing is measured.
  `--no-sandbox` is for code you trust (tests, a local try-out); the verify action never passes it.

The report it writes is judged later by `submit`, which treats it as untrusted.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

from graphmend_bot.exit_codes import EXIT_MEASURED, EXIT_REFUSED
from graphmend_bot.git_command import run_git
from graphmend_bot.github.approval.base_config import write_config
from graphmend_bot.github.approval.gate import valid_sha
from graphmend_bot.github.core.outputs import Log
from graphmend_bot.report.github import inert_line
from graphmend_bot.verify.environment import child_environment, secret_variables


def measure(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    log = Log()
    problem = _refusal(args, env)
    if problem:
        log.error(f"graphmend approve measure: refused: {problem}")
        return EXIT_REFUSED
    checkout, report = Path(args.checkout).resolve(), Path(args.report).resolve()
    report.unlink(missing_ok=True)  # a stale report must never pass for this run's
    with tempfile.TemporaryDirectory(prefix="graphmend-measure-") as scratch:
        neutral = Path(scratch)
        config = write_config(neutral, lambda name: _show(checkout, args.base_sha, name))
        command = [sys.executable, "-I", "-m", "graphmend_bot.cli", "verify", "--repository", str(checkout),
                   "--against", args.base_sha, "--config", str(config), "--json", "--output-file", str(report),
                   "--quiet", *([] if args.no_sandbox else ["--sandbox"]), *_passthrough(args)]
        done = subprocess.run(command, cwd=neutral, env=child_environment(env, {}), capture_output=True, text=True,
                              check=False)
    # Its stderr quotes the measured code's own (a crash's tail): shown, never obeyed as workflow commands.
    sys.stderr.writelines(inert_line(line) + "\n" for line in done.stderr.splitlines())
    if not report.is_file():
        tail = " ".join(done.stderr.strip().splitlines()[-3:]) or f"exit status {done.returncode}"
        log.error(f"graphmend approve measure: `graphmend verify` produced no report: {tail}")
        return EXIT_REFUSED
    log.info(f"measured {args.head_sha[:7]} against {args.base_sha[:7]}: report in {report}")
    return EXIT_MEASURED


def _refusal(args: argparse.Namespace, env: Mapping[str, str]) -> str:
    secrets = secret_variables(env)
    if secrets:
        return (f"credentials in the environment ({', '.join(secrets)}): this step runs the pull request's code "
                "and must hold no token; remove them from the job (the review is submitted by a separate job)")
    for flag, value in (("--head-sha", args.head_sha), ("--base-sha", args.base_sha)):
        if not valid_sha(value):
            return f"{flag} {value!r} is not a full commit SHA"
    checkout = Path(args.checkout)
    if not checkout.is_dir():
        return f"--checkout {checkout}: not a directory"
    head = _git(checkout, "rev-parse", "HEAD")
    if head != args.head_sha:
        return (f"the checkout in {checkout} is not the head of the pull request ({args.head_sha[:7]}, found "
                f"{head[:7] or 'no commit'}): check out that commit with its history (`fetch-depth: 0`)")
    if _git(checkout, "rev-parse", "--verify", "--quiet", f"{args.base_sha}^{{commit}}") != args.base_sha:
        return f"the base commit {args.base_sha[:7]} is not in the checkout's history (`fetch-depth: 0`)"
    return ""


def _show(checkout: Path, sha: str, name: str) -> bytes | None:
    """A file of commit `sha` at the repository root, or None when it has none."""
    done = run_git(["show", f"{sha}:{name}"], checkout, env=_git_environment())
    return done.stdout if done.returncode == 0 else None


def _git(checkout: Path, *arguments: str) -> str:
    done = run_git(arguments, checkout, text=True, env=_git_environment())
    return done.stdout.strip() if done.returncode == 0 else ""


def _git_environment() -> dict[str, str]:
    # No pager, no prompts, and none of the caller's GIT_* redirections.
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat",
            "HOME": os.environ.get("HOME", "/")}


def _passthrough(args: argparse.Namespace) -> list[str]:
    out: list[str] = []
    for spec in args.entrypoint or []:
        out += ["--entrypoint", spec]
    if args.device is not None:
        out += ["--device", args.device]
    if args.timeout is not None:
        out += ["--timeout", str(args.timeout)]
    if args.python is not None:
        out += ["--python", args.python]
    return out
