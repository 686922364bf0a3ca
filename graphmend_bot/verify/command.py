"""`graphmend verify`: the one function the CLI calls (its flags are in arguments.py)."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from graphmend_bot.config import ConfigError, load_config
from graphmend_bot.exit_codes import EXIT_ERROR, EXIT_FAILED, EXIT_PASSED
from graphmend_bot.verify.entry_resolution import unresolved
from graphmend_bot.verify.progress import ProgressBar
from graphmend_bot.verify.render import RENDERERS
from graphmend_bot.verify.runner import verify
from graphmend_bot.verify.sandbox import (
    Sandbox,
    SandboxError,
    open_sandbox,
    sandbox_problem,
    share_with_sandbox,
)
from graphmend_bot.verify.settings import (
    EntryPoint,
    entry_point_from_spec,
    override_settings,
    parse_verify_config,
)
from graphmend_bot.verify.sources import (
    ArmSource,
    SourceError,
    copy_working_tree,
    export_ref,
    rewritten_copy,
    working_tree,
)


def entry_points(args: argparse.Namespace, directory: Path) -> list[EntryPoint]:
    config = load_config(Path(args.config) if args.config else None, start=directory)
    verify_config = parse_verify_config(config.verify, config.source or "<config>")
    overrides = {
        name: getattr(args, name)
        for name in (
            "device",
            "dtype",
            "seeds",
            "rtol",
            "atol",
            "compiled_multiplier",
            "compiled_tol",
            "backward",
            "backend",
            "mode",
            "warmup",
            "repeat",
            "timeout",
        )
    }
    if args.entrypoint:
        settings = override_settings(verify_config.settings, overrides)
        return [entry_point_from_spec(spec, settings) for spec in args.entrypoint]
    return [
        EntryPoint(entry.name, entry.factory, override_settings(entry.settings, overrides))
        for entry in verify_config.entry_points
    ]


def run_verify(args: argparse.Namespace) -> int:
    """Prepare both arms, measure, print the report; 0 passed, 1 failed, 2 unusable input."""
    directory = Path(args.repository).resolve() if args.repository else Path.cwd()
    if not directory.is_dir():
        print(f"graphmend verify: --repository {args.repository}: not a directory", file=sys.stderr)
        return EXIT_ERROR
    try:
        entries = entry_points(args, directory)
    except ConfigError as error:
        print(f"graphmend verify: invalid configuration: {error}", file=sys.stderr)
        return EXIT_ERROR
    if not entries:
        print(
            "graphmend verify: no entry points; pass --entrypoint module:callable or list them under "
            "`verify: entry-points:` in .graphmend.yml ([tool.graphmend.verify] in pyproject.toml)",
            file=sys.stderr,
        )
        return EXIT_ERROR
    python = args.python or sys.executable
    sandbox = None
    if args.sandbox:
        try:
            sandbox = _usable_sandbox(python)
        except SandboxError as error:
            print(f"graphmend verify: --sandbox: {error}; nothing was measured", file=sys.stderr)
            return EXIT_ERROR
    with tempfile.TemporaryDirectory(prefix="graphmend-arms-") as scratch:
        try:
            original, rewritten = _arms(args, directory, Path(scratch))
            if sandbox is not None:
                original, rewritten = _readable_by_sandbox((original, rewritten), Path(scratch))
        except (SourceError, ConfigError) as error:
            print(f"graphmend verify: {error}", file=sys.stderr)
            return EXIT_ERROR
        # Resolved in both arms before anything compiles: a typo is a message now, not after a minute.
        problems = [(entry, unresolved(entry, {"original": original.root, "rewritten": rewritten.root}))
                    for entry in entries]
        for entry, problem in problems:
            if problem is not None:
                print(f"graphmend verify: {entry.name} ({entry.factory}): {problem}", file=sys.stderr)
        if any(problem is not None for _, problem in problems):
            return EXIT_ERROR
        progress = None if args.quiet else ProgressBar(2 * len(entries))
        report = verify(entries, original, rewritten, progress=progress, python=python, sandbox=sandbox)
        if progress is not None:
            progress.finish()
    output = RENDERERS[args.format or "table"](report)
    if args.output_file:
        Path(args.output_file).write_text(output, encoding="utf-8")
    else:
        sys.stdout.write(output)
    for result in report.results:
        if not result.passed:
            print(f"graphmend verify: {result.entry.name}: {'; '.join(result.reasons)}", file=sys.stderr)
    return EXIT_PASSED if report.passed else EXIT_FAILED


def _usable_sandbox(python: str) -> Sandbox:
    sandbox = open_sandbox()
    problem = sandbox_problem(sandbox, python)
    if problem:
        raise SandboxError(problem)
    return sandbox


def _readable_by_sandbox(arms: tuple[ArmSource, ArmSource], scratch: Path) -> tuple[ArmSource, ArmSource]:
    """The arms, each copied under `scratch` unless already there, and `scratch` opened to the
    sandbox user: the caller's own folders may be closed to it, and it must never write them."""
    copies = []
    for index, arm in enumerate(arms):
        if not arm.root.resolve().is_relative_to(scratch.resolve()):
            arm = ArmSource(copy_working_tree(arm.root, scratch / f"copy-{index}"), arm.label)
        copies.append(arm)
    share_with_sandbox(scratch)
    return copies[0], copies[1]


def _arms(args: argparse.Namespace, directory: Path, scratch: Path) -> tuple[ArmSource, ArmSource]:
    if args.against:
        return export_ref(args.against, directory, scratch / "original"), working_tree(directory)
    if args.original:
        original = Path(args.original)
        if not original.is_dir():
            raise SourceError(f"--original {original}: not a directory")
        return ArmSource(original.resolve(), str(original)), working_tree(directory)
    config = load_config(Path(args.config) if args.config else None, start=directory)
    rewritten, _changed = rewritten_copy(directory, scratch / "rewritten", config, unsafe=args.unsafe_fixes)
    return working_tree(directory), rewritten
