"""`graphmend verify`'s flags: the CLI builds every subcommand's parser at start-up, and these
need none of the machinery that runs a verification (command.py imports it when verify runs)."""

from __future__ import annotations

import argparse

from graphmend_bot.verify.sandbox import SANDBOX_USER
from graphmend_bot.verify.settings import DEVICES, DTYPES


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
