"""`graphmend verify` on GraphMend's Table 2 models: cold-start and steady-state speedups.

The original arm imports the installed transformers 4.52.4; the rewritten arm imports a copy of
the package fixed by graphmend (the approach of benchmarks/hf_table2.py, whose `fix_copy` does the
fixing), placed in the arm's root so it shadows the installed one. Both arms build the 11 model
families of DESIGN.md section 4 with benchmarks/hf_models.py and run through `verify`: one fresh
process per model and arm, each with an empty TORCHINDUCTOR_CACHE_DIR, graph counts from
torch._dynamo.explain, outputs judged by the equivalence policy (eager bit-identical, compiled
against a float64 reference of the original; gradients too with --backward), cold start = first
compiled call (compile included), steady state = median of `--repeat` calls after `--warmup`.
Coverage: the rewritten lines are those where the fixed copy differs from the installed package;
the report says how many of them the 11 models executed, and whether the run proves the rewrite.

    .venv/bin/python benchmarks/verify_table2.py                    # CPU, inductor; then CUDA if present
    .venv/bin/python benchmarks/verify_table2.py t5 bart --repeat 50
    .venv/bin/python benchmarks/verify_table2.py --devices cuda --mode reduce-overhead
    .venv/bin/python benchmarks/verify_table2.py --json results.json
    .venv/bin/python benchmarks/verify_table2.py --backward          # gradients too
    .venv/bin/python benchmarks/verify_table2.py --fix-scope models --keep /tmp/arms   # fix only the 13 model folders
    .venv/bin/python benchmarks/verify_table2.py --fixed /tmp/arms/rewritten          # reuse that fixed copy
    .venv/bin/python benchmarks/verify_table2.py --fixed /tmp/hf/site   # after hf_table2.py --keep /tmp/hf
    .venv/bin/python benchmarks/verify_table2.py --bot-flow t5 biogpt    # the bot's fix set, measure, decide

--bot-flow (benchmarks/table2_bot_flow.py): the fix set the bot commits with `fixes: verified` and
the models as verify entry points, measured by `graphmend approve measure`, judged by `decide`.

Speedup = original / rewritten. GraphMend's anchors (NVIDIA GPUs): cold start up to 26x (5x on
average), steady state up to 1.39x.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCHMARKS = Path(__file__).resolve().parent
REPO = BENCHMARKS.parent
sys.path[:0] = [str(REPO), str(BENCHMARKS)]

from graphmend_bot.verify import ArmSource, EntryPoint, Settings, VerifyReport, verify  # noqa: E402
from graphmend_bot.verify.coverage import RewrittenLine, tree_changes  # noqa: E402
from graphmend_bot.verify.progress import ProgressBar  # noqa: E402
from graphmend_bot.verify.proof import proves_rewrite  # noqa: E402
from graphmend_bot.verify.render import ratio, render_table, report_json  # noqa: E402

GRAPHMEND_COLD_MAX, GRAPHMEND_COLD_MEAN, GRAPHMEND_STEADY_MAX = 26.0, 5.0, 1.39


# --fix-scope models: the folders of the Table 2 families (Grounding DINO's Swin and BERT too) and
# transformers' top-level modules (modeling_rope_utils, ...), instead of all 1,875 files.
MODEL_FOLDERS = (
    "t5", "biogpt", "blenderbot", "bart", "marian", "pegasus", "phi3", "whisper", "layoutlmv3",
    "longformer", "grounding_dino", "swin", "bert",
)  # fmt: skip


def fix_model_folders(site: Path, unsafe: bool) -> tuple[float, Any]:
    """Like hf_table2.fix_copy, on the Table 2 folders and top-level modules only (much faster)."""
    from hf_table2 import transformers_config

    from graphmend_bot.rewrite import fix_outcome, write_changes

    package = site / "transformers"
    paths = [str(package / "models" / name) for name in MODEL_FOLDERS]
    paths += [str(path) for path in sorted(package.glob("*.py"))]
    start = time.perf_counter()
    outcome = fix_outcome(paths, transformers_config(), unsafe=unsafe)
    write_changes(outcome.changes)
    return time.perf_counter() - start, outcome


def rewritten_lines(rewritten: ArmSource) -> list[RewrittenLine]:
    """Where the fixed copy differs from the installed transformers (the original arm imports
    the installed one, so diffing the two arm folders would count every line of the copy)."""
    import transformers

    installed = Path(transformers.__file__).parent
    return tree_changes(installed, rewritten.root / "transformers", prefix="transformers/")


def prepare_arms(
    work: Path, unsafe: bool, fixed: Path | None, scope: str = "package"
) -> tuple[ArmSource, ArmSource, str]:
    """original/: hf_models.py; rewritten/: hf_models.py + a fixed copy of transformers."""
    import transformers
    from hf_table2 import fix_copy

    original, rewritten = work / "original", work / "rewritten"
    for root in (original, rewritten):
        root.mkdir(parents=True)
        shutil.copy2(BENCHMARKS / "hf_models.py", root / "hf_models.py")
    if fixed is not None:
        shutil.copytree(fixed / "transformers", rewritten / "transformers")
        note = f"the fixed transformers copy in {fixed}"
        return (
            ArmSource(original, f"installed transformers {transformers.__version__}"),
            ArmSource(rewritten, note),
            note,
        )
    installed = Path(transformers.__file__).parent
    shutil.copytree(installed, rewritten / "transformers", ignore=shutil.ignore_patterns("__pycache__"))
    fixer = fix_copy if scope == "package" else fix_model_folders
    seconds, outcome = fixer(rewritten, unsafe=unsafe)
    fixes = sum(change.breaks_removed for change in outcome.changes)
    kind = "safe and unsafe" if unsafe else "safe"
    where = "" if scope == "package" else " (Table 2 model folders + top-level modules)"
    note = f"{fixes} {kind} fixes in {len(outcome.changes)} files{where} of transformers {transformers.__version__} ({seconds:.1f} s)"
    return (
        ArmSource(original, f"installed transformers {transformers.__version__}"),
        ArmSource(rewritten, f"fixed copy: {note}"),
        note,
    )


def summary(report: VerifyReport) -> list[str]:
    measured = [r for r in report.results if r.original.ok and r.rewritten.ok]
    cold = [ratio(r.original.cold_start_s, r.rewritten.cold_start_s) for r in measured]
    steady = [ratio(r.original.steady_state_s, r.rewritten.steady_state_s) for r in measured]
    cold_values = [value for value in cold if value is not None]
    steady_values = [value for value in steady if value is not None]
    lines = [*policy_lines(report), *coverage_lines(report)]
    if not cold_values or not steady_values:
        return ["no entry point was measured in both arms", *lines]
    improved = [r for r in measured if r.verdict == "improved"]
    cold_improved = [ratio(r.original.cold_start_s, r.rewritten.cold_start_s) or 0.0 for r in improved]
    return [
        f"models measured: {len(measured)} of {len(report.results)}; graphs reduced on {len(improved)}; "
        f"outputs pass the equivalence policy on {sum(bool(r.outputs_equal) for r in measured)}",
        f"cold start  (original / rewritten): max {max(cold_values):.2f}x, mean {statistics.mean(cold_values):.2f}x, "
        f"geomean {statistics.geometric_mean(cold_values):.2f}x"
        + (
            f"; mean over models with fewer graphs {statistics.mean(cold_improved):.2f}x"
            if cold_improved
            else ""
        )
        + f"   (GraphMend: up to {GRAPHMEND_COLD_MAX:g}x, {GRAPHMEND_COLD_MEAN:g}x on average)",
        f"steady state (original / rewritten): max {max(steady_values):.2f}x, mean {statistics.mean(steady_values):.2f}x, "
        f"geomean {statistics.geometric_mean(steady_values):.2f}x   (GraphMend: up to {GRAPHMEND_STEADY_MAX:g}x)",
        *lines,
    ]


def policy_lines(report: VerifyReport) -> list[str]:
    """Per rule: on how many models every check passed, and the largest relative error seen."""
    by_rule: dict[str, list[bool]] = {}
    worst: dict[str, float] = {}
    for result in report.results:
        if result.comparison is None:
            continue
        passed: dict[str, bool] = {}
        for check in result.comparison.checks:
            passed[check.rule] = passed.get(check.rule, True) and check.passed
            if check.max_rel is not None:
                worst[check.rule] = max(worst.get(check.rule, 0.0), check.max_rel)
        for rule, ok in passed.items():
            by_rule.setdefault(rule, []).append(ok)
    return [
        f"policy {rule}: passed on {sum(oks)} of {len(oks)} models (largest max rel error {worst.get(rule, 0.0):.3g})"
        for rule, oks in sorted(by_rule.items())
    ]


def coverage_lines(report: VerifyReport) -> list[str]:
    coverage = report.coverage
    files = len({line.path for line in coverage.lines})
    proof = proves_rewrite(report_json(report))
    lines = [
        f"coverage: {len(coverage.covered)} of {len(coverage.lines)} rewritten lines (in {files} files) "
        f"executed by an entry point; proven: {'yes' if proof.proven else 'no'}"
    ]
    by_file: dict[str, int] = {}
    for line in coverage.uncovered:
        by_file[line.path] = by_file.get(line.path, 0) + 1
    lines += [f"  never executed: {count} line(s) in {path}" for path, count in sorted(by_file.items())[:20]]
    return lines


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", help="model families (default: all 11)")
    parser.add_argument(
        "--devices", default=None, help="comma-separated: cpu,cuda (default: cpu, and cuda if present)"
    )
    parser.add_argument("--backend", default="inductor")
    parser.add_argument("--mode", default=None, help="torch.compile mode, e.g. reduce-overhead")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per model and arm")
    parser.add_argument(
        "--safe-only", action="store_true", help="apply only safe fixes (default: safe and unsafe)"
    )
    parser.add_argument(
        "--fixed",
        metavar="DIR",
        type=Path,
        help="reuse a fixed copy: DIR/transformers (e.g. DIR/site from `hf_table2.py --keep DIR`) instead of fixing",
    )
    parser.add_argument(
        "--fix-scope",
        choices=("package", "models"),
        default="package",
        help="fix the whole transformers package (hf_table2's approach) or only the Table 2 model folders",
    )
    parser.add_argument("--keep", metavar="DIR", type=Path, help="build the arms in DIR and keep them")
    parser.add_argument("--backward", action="store_true", help="also judge the gradients of sum(outputs)")
    parser.add_argument("--json", metavar="FILE", help="also write every report as JSON here")
    parser.add_argument(
        "--bot-flow",
        action="store_true",
        help="the bot's own flow: its verified fix set, `approve measure`, `decide` (CPU; table2_bot_flow.py)",
    )
    args = parser.parse_args(argv)

    import torch
    from hf_models import MODELS

    names = args.models or list(MODELS)
    unknown = [name for name in names if name not in MODELS]
    if unknown:
        print(f"unknown model(s): {', '.join(unknown)}; known: {', '.join(MODELS)}", file=sys.stderr)
        return 2
    if args.fixed is not None and not (args.fixed / "transformers" / "__init__.py").is_file():
        print(f"--fixed {args.fixed}: no transformers package there", file=sys.stderr)
        return 2
    if args.bot_flow:
        return bot_flow(args, names)
    devices = (
        args.devices.split(",") if args.devices else ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    )
    results = {}
    with contextlib.ExitStack() as stack:
        if args.keep is not None:
            if args.keep.exists() and any(args.keep.iterdir()):
                print(f"--keep {args.keep}: not empty", file=sys.stderr)
                return 2
            scratch = str(args.keep)
        else:
            scratch = stack.enter_context(tempfile.TemporaryDirectory(prefix="graphmend-verify-table2-"))
        original, rewritten, note = prepare_arms(
            Path(scratch), not args.safe_only, args.fixed, args.fix_scope
        )
        print(f"rewritten arm: {note}", flush=True)
        lines = rewritten_lines(rewritten)
        for device in devices:
            settings = Settings(
                device=device,
                seeds=(0,),  # hf_models seeds every model itself
                backend=args.backend,
                mode=args.mode,
                warmup=args.warmup,
                repeat=args.repeat,
                timeout=args.timeout,
                backward=args.backward,
            )
            entries = [EntryPoint(name, f"hf_models:{name}", settings) for name in names]
            progress = ProgressBar(2 * len(entries))
            report = verify(entries, original, rewritten, progress=progress, rewritten_lines=lines)
            progress.finish()
            print(f"\n== {device}, backend {args.backend}" + (f", mode {args.mode}" if args.mode else ""))
            table = render_table(report)
            print(table[: table.index("\n\n", table.index("entry point"))])  # the table without details
            for result in report.results:
                for reason in result.reasons:
                    print(f"  {result.entry.name}: {reason}")
            print("\n".join(summary(report)), flush=True)
            results[device] = report_json(report)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


def bot_flow(args: argparse.Namespace, names: list[str]) -> int:
    from table2_bot_flow import run

    settings = {"device": (args.devices or "cpu").split(",")[0], "seeds": [0], "backend": args.backend,
                "mode": args.mode, "warmup": args.warmup, "repeat": args.repeat, "timeout": args.timeout,
                "backward": args.backward}
    with contextlib.ExitStack() as stack:
        if args.keep is not None:
            if args.keep.exists() and any(args.keep.iterdir()):
                print(f"--keep {args.keep}: not empty", file=sys.stderr)
                return 2
            scratch = args.keep
        else:
            scratch = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="graphmend-table2-bot-")))
        report = run(scratch, BENCHMARKS, names, settings)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2), encoding="utf-8")
    return 0 if report else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
