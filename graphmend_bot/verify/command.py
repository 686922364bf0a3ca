"""`graphmend verify`: its flags, and the one function the CLI calls."""

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
    SANDBOX_USER,
    Sandbox,
    SandboxError,
    open_sandbox,
    sandbox_problem,
    share_with_sandbox,
)
from graphmend_bot.verify.settings import (
    DEVICES,
    DTYPES,
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


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--entrypoint",
        action="append",
        default=[],
        metavar="MODULE:CALLABLE",
        help="a factory returning (fn_or_module, args[, kwargs]); repeatable; replaces the configured ones",
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument(
        "--against",
        metavar="REF",
        help="compare the working tree (rewritten arm) with this git ref (original arm) instead of applying fixes",
    )
    source.add_argument(
        "--original",
        metavar="DIR",
        help="use DIR as the original arm and the working tree as the rewritten arm",
    )
    parser.add_argument(
        "--unsafe-fixes", action="store_true", help="also apply unsafe fixes to the rewritten arm"
    )
    parser.add_argument("--device", choices=DEVICES, help="where to run (default from config, else auto)")
    parser.add_argument(
        "--dtype", choices=DTYPES, help="cast floating-point modules and inputs to this dtype"
    )
    parser.add_argument("--seeds", type=_int_list, metavar="N,N", help="seeds whose outputs are compared")
    parser.add_argument(
        "--rtol", type=float, help="eager outputs' relative tolerance (default: 0, bit-identical)"
    )
    parser.add_argument(
        "--atol", type=float, help="eager outputs' absolute tolerance (default: 0, bit-identical)"
    )
    parser.add_argument(
        "--compiled-multiplier",
        type=float,
        help="compiled outputs may be this many times the original's error vs fp64 (default: 2, 3 if small/half)",
    )
    parser.add_argument(
        "--compiled-tol",
        type=float,
        help="compiled outputs' floor is tol/10 x the output's RMS (default per dtype)",
    )
    parser.add_argument(
        "--backward",
        action="store_const",
        const=True,
        default=None,
        help="also compare the gradients of the sum of the outputs (default from config, else off)",
    )
    parser.add_argument("--backend", help="torch.compile backend (default: inductor)")
    parser.add_argument("--mode", help="torch.compile mode, e.g. reduce-overhead (CUDA graphs on CUDA)")
    parser.add_argument("--warmup", type=int, help="calls before timing the steady state (default 3)")
    parser.add_argument("--repeat", type=int, help="timed steady-state calls, median reported (default 20)")
    parser.add_argument("--timeout", type=float, help="seconds allowed per arm and entry point (default 600)")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_const", const="json", dest="format", help="print JSON")
    output.add_argument(
        "--markdown", action="store_const", const="markdown", dest="format", help="print Markdown"
    )
    parser.add_argument("--output-file", "-o", metavar="FILE", help="write the report here instead of stdout")
    parser.add_argument("--config", metavar="FILE", help="pyproject.toml or .graphmend.yml to use")
    parser.add_argument(
        "--repository",
        metavar="DIR",
        help="the working tree to verify (default: the current directory); lets a caller run verify "
        "from a neutral folder, so nothing in DIR is importable by graphmend itself",
    )
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")
    parser.add_argument(
        "--sandbox",
        action="store_true",
        help=f"run the measured code as {SANDBOX_USER!r} in its own PID, network and mount namespaces, killing "
        "every process it starts (needs root or `sudo -n`; refuses to measure without it). `approve measure` "
        "always sets it",
    )
    parser.add_argument(
        "--python",
        metavar="PATH",
        help="the interpreter (with torch) that runs the measured code (default: the one running graphmend); "
        "with --sandbox, one every user can read",
    )


def _int_list(text: str) -> list[int]:
    try:
        return [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None


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
