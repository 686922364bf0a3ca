"""Run every entry point in both arms (one fresh child process each), compare, decide.

Arms run one after the other, never in parallel, so timings do not compete for the machine. The
original arm also computes the float64 reference; the rewritten arm records which rewritten lines
run (coverage.py). The children speak protocol.py; the verdict is judgement.judge_arms's: an
entry point passes when no graph was added and every output (and, with `backward`, every
gradient) passes the equivalence policy (policy.py).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from graphmend_bot.verify.compare import Comparison, compare_outputs
from graphmend_bot.verify.coverage import (
    Coverage,
    RewrittenLine,
    lines_by_file,
    measure_coverage,
    tree_changes,
)
from graphmend_bot.verify.environment import child_environment
from graphmend_bot.verify.judgement import (  # noqa: F401 - the verdicts, re-exported for callers
    ERROR,
    IMPROVED,
    OUTPUTS_DIFFER,
    PASSING,
    REGRESSED,
    UNCHANGED,
    Equivalence,
    Verdict,
    judge_arms,
    measured_equivalence,
)
from graphmend_bot.verify.protocol import ArmResult, ChildRequest, ProtocolError
from graphmend_bot.verify.sandbox import GRACE_S, SYSTEM_PATH, Sandbox, share_with_sandbox
from graphmend_bot.verify.settings import EntryPoint
from graphmend_bot.verify.sources import ArmSource

CHILD = Path(__file__).with_name("child.py")
# What the child loads, by path under graphmend_bot/: copied next to the sources in a sandbox.
CHILD_FILES = (
    "verify/child.py",
    "verify/protocol.py",
    "verify/line_recorder.py",
    "verify/user_code.py",
    "census/dynamo.py",
)
ARMS = ("original", "rewritten")
STDERR_TAIL_LINES = 8

Progress = Callable[[str], None]


@dataclass
class EntryResult:
    entry: EntryPoint
    original: ArmResult
    rewritten: ArmResult
    comparison: Comparison | None  # None when an arm failed
    judgement: Verdict
    notes: list[str] = field(default_factory=list)  # what the reader should know; not failures

    @property
    def verdict(self) -> str:
        return self.judgement.outcome

    @property
    def reasons(self) -> list[str]:
        return self.judgement.reasons

    @property
    def passed(self) -> bool:
        return self.judgement.passed

    @property
    def outputs_equal(self) -> bool | None:
        return self.comparison.equal if self.comparison is not None else None


@dataclass
class VerifyReport:
    original: ArmSource
    rewritten: ArmSource
    results: list[EntryResult]
    rewritten_lines: list[RewrittenLine] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(result.passed for result in self.results)

    @property
    def coverage(self) -> Coverage:
        return measure_coverage(
            self.rewritten_lines, {result.entry.name: result.rewritten.covered for result in self.results}
        )


def verify(
    entries: Sequence[EntryPoint],
    original: ArmSource,
    rewritten: ArmSource,
    progress: Progress | None = None,
    python: str = sys.executable,
    rewritten_lines: Sequence[RewrittenLine] | None = None,
    sandbox: Sandbox | None = None,
) -> VerifyReport:
    """Measure every entry point in both arms and compare them.

    `rewritten_lines` are the lines whose execution proves the rewrite; by default every line
    where a .py file of the rewritten arm differs from the original arm's. With `sandbox`, each
    measurement runs in it (sandbox.py); the arms' roots must then be readable by its user."""
    if rewritten_lines is None:
        rewritten_lines = tree_changes(original.root, rewritten.root)
    wanted = lines_by_file(rewritten_lines)
    results: list[EntryResult] = []
    with tempfile.TemporaryDirectory(prefix="graphmend-verify-") as scratch:
        child = CHILD
        if sandbox is not None:
            child = stage_child(Path(scratch) / "child")
            share_with_sandbox(Path(scratch))
        for index, entry in enumerate(entries):
            arms: dict[str, ArmResult] = {}
            for arm, source in zip(ARMS, (original, rewritten), strict=True):
                if progress is not None:
                    progress(f"{entry.name}: {arm}")
                workdir = Path(scratch) / f"{index}-{arm}"
                if arm == "original":
                    arms[arm] = run_arm(entry, source.root, workdir, python, reference=True, sandbox=sandbox,
                                        child=child)
                else:
                    arms[arm] = run_arm(entry, source.root, workdir, python, coverage=wanted, sandbox=sandbox,
                                        child=child)
            results.append(judge(entry, arms["original"], arms["rewritten"]))
    return VerifyReport(original, rewritten, results, list(rewritten_lines))


def run_arm(
    entry: EntryPoint,
    root: Path,
    workdir: Path,
    python: str = sys.executable,
    reference: bool = False,
    coverage: Mapping[str, list[int]] | None = None,
    sandbox: Sandbox | None = None,
    child: Path = CHILD,
) -> ArmResult:
    """One entry point in one arm, in a fresh interpreter with a fresh compiler cache; with the
    float64 reference when `reference`, recording which `coverage` lines ({path: [line]}) ran;
    in `sandbox` when given (`child` is then a copy its user can read: `stage_child`)."""
    outputs, cache = workdir / "outputs", workdir / "inductor-cache"
    outputs.mkdir(parents=True)
    cache.mkdir()
    settings = entry.settings
    request = ChildRequest(
        root=str(root),
        factory=entry.factory,
        device=settings.device,
        dtype=settings.dtype,
        seeds=tuple(settings.seeds),
        backend=settings.backend,
        mode=settings.mode,
        warmup=settings.warmup,
        repeat=settings.repeat,
        no_grad=settings.no_grad,
        backward=settings.backward,
        reference=reference,
        coverage={path: list(lines) for path, lines in (coverage or {}).items()},
        output_dir=str(outputs),
    )
    request_path, result_path = workdir / "request.json", workdir / "result.json"
    request_path.write_text(json.dumps(request.to_json()), encoding="utf-8")
    # The code under test sees an allow-listed environment: never a token, nothing of GitHub Actions.
    environment = child_environment(os.environ, {
        "TORCHINDUCTOR_CACHE_DIR": str(cache),
        "TRITON_CACHE_DIR": str(cache / "triton"),
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
    })
    command = child_command(python, request_path, result_path, child)
    if sandbox is not None:
        # The sandbox user's home and temporary files: the caller's are not its to write.
        (workdir / "tmp").mkdir()
        environment.update(HOME=str(workdir), TMPDIR=str(workdir / "tmp"))
        command = sandbox.command(command, environment, workdir, settings.timeout)
        environment = {"PATH": SYSTEM_PATH}
    try:
        returncode, stderr = _run_child(command, workdir, environment, settings.timeout)
    except subprocess.TimeoutExpired:
        return ArmResult.failed("timeout", f"did not finish within {settings.timeout:g} s (raise `timeout`)")
    except OSError as error:
        return ArmResult.failed("internal", f"cannot start {python}: {error}")
    if sandbox is not None and (result_path.is_symlink() or outputs.is_symlink()):
        # Written by the sandbox user, read by the caller: a link could point at the caller's files.
        return ArmResult.failed("bad-result", "the measurement process left a link where its result belongs")
    if returncode != 0 or not result_path.is_file():
        tail = "\n".join(stderr.strip().splitlines()[-STDERR_TAIL_LINES:])
        return ArmResult.failed("crashed", f"the measurement process exited with code {returncode}: {tail}")
    return read_child_result(result_path, outputs)


def read_child_result(path: Path, output_dir: Path) -> ArmResult:
    """The child's result, parsed strictly (the child ran the code under test); one that is not
    the protocol's is a failed arm that says why, and the other entry points are still measured."""
    try:
        return ArmResult.from_child(json.loads(path.read_bytes().decode("utf-8")), str(output_dir))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:  # ProtocolError is a ValueError
        detail = error if isinstance(error, ProtocolError) else f"not JSON: {type(error).__name__}: {error}"
        return ArmResult.failed("bad-result", f"the measurement process wrote an unusable result: {detail}"[:2000])


def stage_child(destination: Path) -> Path:
    """Copy the child and the files it loads to `destination`; returns the child's path."""
    package = Path(__file__).resolve().parent.parent
    for name in CHILD_FILES:
        target = destination / "graphmend_bot" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(package / name, target)
    share_with_sandbox(destination)
    return destination / "graphmend_bot" / CHILD_FILES[0]


def child_command(python: str, request: Path, result: Path, child: Path = CHILD) -> list[str]:
    """The child's command line. `-s -P` with a neutral working directory: no user site-packages,
    and neither the script's folder nor the working directory on sys.path, so nothing in the code
    under test (a `torch/` or `json.py` of its own) is imported before the child's own imports;
    the child adds the arm's root to sys.path itself, afterwards. Not `-I`: its `-E` would also
    drop the PYTHONHASHSEED set above, and the environment is already the allow-listed one."""
    return [python, "-s", "-P", str(child), str(request), str(result)]


def _run_child(command: list[str], cwd: Path, environment: dict[str, str], timeout: float) -> tuple[int, str]:
    """Run the child in its own process group, so a timeout also ends its compile workers."""
    process = subprocess.Popen(
        command,
        cwd=cwd,
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        _, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        # Under sudo the sandbox's processes are root's: what this cannot kill ends GRACE_S later.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        try:
            process.communicate(timeout=GRACE_S + 5)
        except subprocess.TimeoutExpired:
            # Outside the sandbox, a process that left the group (setsid) can hold stderr open forever.
            process.kill()
            process.wait()
        raise
    return process.returncode, stderr


def judge(entry: EntryPoint, original: ArmResult, rewritten: ArmResult) -> EntryResult:
    """Compare the arms' saved outputs (when both ran) and let the policy decide."""
    settings = entry.settings
    comparisons: list[Comparison] = []

    def compare() -> Equivalence:
        try:
            comparison = compare_outputs(
                original.outputs, rewritten.outputs, settings.tolerances(), settings.compiled_tolerance()
            )
        except Exception as error:  # the files are the code under test's to rewrite: never a traceback
            detail = f"the saved outputs cannot be read: {type(error).__name__}: {str(error).strip()[:300]}"
            comparison = Comparison(False, detail, None)
        comparisons.append(comparison)
        return measured_equivalence(comparison, settings.describe_tolerance())

    verdict = judge_arms(original, rewritten, compare)
    notes = []
    if comparisons and original.reference_error:
        notes.append(
            "no float64 reference (" + original.reference_error + "): compiled results were judged "
            "against the original's eager result instead"
        )
    return EntryResult(entry, original, rewritten, comparisons[0] if comparisons else None, verdict, notes)
