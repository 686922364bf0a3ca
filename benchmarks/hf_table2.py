"""GraphMend's Table 2, offline: break counts before/after `graphmend check --fix` on transformers.

1. A child process imports the installed transformers 4.52.4, builds the 11 model families of
   DESIGN.md section 4 (benchmarks/hf_models.py), counts graph breaks with
   torch._dynamo.explain and saves every eager output tensor.
2. This process copies the installed transformers package, runs the fixer on the copy (only the
   files the engine flags are parsed with libcst) and writes the rewrites; the time is reported.
3. A second child imports the *copy* (PYTHONPATH; the two transformers never share a process),
   counts again, saves its outputs; every tensor is compared bit for bit (torch.equal, dtype,
   shape).
Each remaining break is classified: the engine reports a finding on that line (detected, no fix
offered) or it does not (a detection miss).

    .venv/bin/python benchmarks/hf_table2.py                 # safe + unsafe fixes (like --unsafe-fixes)
    .venv/bin/python benchmarks/hf_table2.py --safe-only     # only safe fixes
    .venv/bin/python benchmarks/hf_table2.py --keep DIR      # keep the fixed copy in DIR
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCHMARKS = Path(__file__).resolve().parent
REPO = BENCHMARKS.parent

# DESIGN.md section 4: GraphMend's own result per family.
GRAPHMEND_AFTER = {
    "t5": 0, "biogpt": 0, "blenderbot": 0, "bart": 0, "marian": 0, "pegasus_causal_lm": 0,
    "phi3_longrope": 0, "whisper": 0, "layoutlmv3": 0, "longformer": 3, "grounding_dino": 7,
}


# -- child process: count breaks and save outputs with whichever transformers is importable ---------


def flatten(value: Any, prefix: str, out: dict[str, Any]) -> None:
    import torch

    if isinstance(value, torch.Tensor):
        out[prefix] = value.detach().clone()
    elif isinstance(value, dict):
        for key, item in value.items():
            flatten(item, f"{prefix}.{key}", out)
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            flatten(item, f"{prefix}[{index}]", out)
    elif hasattr(value, "to_legacy_cache"):
        flatten(value.to_legacy_cache(), f"{prefix}.cache", out)
    elif value is not None and not isinstance(value, bool | int | float | str):
        out[prefix] = f"<{type(value).__name__}>"
    else:
        out[prefix] = value


def worker(output_path: str, names: list[str]) -> None:
    import logging
    import warnings

    import torch
    import transformers

    sys.path.insert(0, str(BENCHMARKS))
    import hf_models

    logging.disable(logging.WARNING)
    transformers.logging.set_verbosity_error()
    results: dict[str, Any] = {"transformers": transformers.__file__, "models": {}}
    for name in names:
        model, args, kwargs = hf_models.MODELS[name]()
        counted = hf_models.explain_model(model, args, kwargs)
        reasons = []
        for reason in counted.break_reasons:
            frame = reason.user_stack[-1] if reason.user_stack else None
            reasons.append({
                "reason": reason.reason.splitlines()[0][:160],
                "file": os.path.realpath(frame.filename) if frame else "",
                "line": frame.lineno if frame else 0,
            })
        torch._dynamo.reset()
        model, args, kwargs = hf_models.MODELS[name]()  # fresh model and inputs, same seeds
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outputs: dict[str, Any] = {}
            flatten(model(*args, **kwargs), "output", outputs)
        results["models"][name] = {"breaks": counted.graph_break_count, "reasons": reasons, "outputs": outputs}
        print(f"  {name}: {counted.graph_break_count} breaks", file=sys.stderr, flush=True)
    torch.save(results, output_path)


def run_worker(python: str, output: Path, names: list[str], pythonpath: str | None) -> dict[str, Any]:
    import torch

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (pythonpath, str(REPO), env.get("PYTHONPATH")) if p)
    subprocess.run([python, __file__, "--worker", str(output), *names], env=env, check=True)
    loaded: dict[str, Any] = torch.load(output, weights_only=False)
    return loaded


# -- the parent -------------------------------------------------------------------------------------


def identical(before: dict[str, Any], after: dict[str, Any]) -> tuple[bool, str]:
    import torch

    if before.keys() != after.keys():
        return False, f"different outputs: {sorted(before.keys() ^ after.keys())[:3]}"
    for key, value in before.items():
        other = after[key]
        if isinstance(value, torch.Tensor):
            if not isinstance(other, torch.Tensor) or value.dtype != other.dtype or value.shape != other.shape:
                return False, f"{key}: dtype/shape differ"
            same = torch.equal(value, other) or (
                value.is_floating_point()
                and torch.equal(value.isnan(), other.isnan())
                and torch.equal(value.nan_to_num(), other.nan_to_num())
            )
            if not same:
                return False, f"{key}: values differ (max abs diff {(value - other).abs().max().item():.3g})"
        elif value != other:
            return False, f"{key}: {value!r} != {other!r}"
    return True, f"{len(before)} tensors"


def transformers_config() -> Any:
    """The configuration transformers' maintainers would write: they skip their own deprecation
    notices under compile (utils/deprecation.py, `deprecate_kwarg`), so `deprecation-notices: guard`."""
    from graphmend_bot.config import Config

    return Config(deprecation_notices="guard")


def fix_copy(site: Path, unsafe: bool) -> tuple[float, Any]:
    from graphmend_bot.rewrite import fix_outcome, write_changes

    start, cpu = time.perf_counter(), _cpu_seconds()
    outcome = fix_outcome([str(site / "transformers")], transformers_config(), unsafe=unsafe)
    write_changes(outcome.changes)
    seconds = time.perf_counter() - start
    print(f"  wall {seconds:.1f} s, CPU {_cpu_seconds() - cpu:.1f} s (this process and its workers)")
    return seconds, outcome


def _cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def classify(reasons: list[dict[str, Any]], outcome: Any) -> list[str]:
    flagged: dict[tuple[str, int], list[str]] = {}
    for finding in outcome.remaining.findings:
        for row in range(finding.location.row, finding.end_location.row + 1):
            flagged.setdefault((os.path.realpath(finding.path), row), []).append(finding.code)
    lines = []
    for reason in reasons:
        codes = flagged.get((reason["file"], reason["line"]))
        where = f"{Path(reason['file']).name}:{reason['line']}"
        verdict = f"detected ({', '.join(sorted(set(codes)))}), no fix" if codes else "NOT DETECTED"
        lines.append(f"    {where:<40} {verdict:<28} {reason['reason'][:70]}")
    return lines


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--safe-only", action="store_true", help="apply only safe fixes")
    parser.add_argument("--keep", metavar="DIR", help="keep the fixed transformers copy here")
    parser.add_argument("models", nargs="*", help="model families (default: all 11)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(BENCHMARKS))
    if args.worker:
        worker(args.worker, args.models)
        return 0
    import hf_models
    import transformers

    names = args.models or list(hf_models.MODELS)
    installed = Path(transformers.__file__).parent
    temp = Path(args.keep or tempfile.mkdtemp(prefix="graphmend-hf-"))
    site = temp / "site"
    if site.exists():
        shutil.rmtree(site)
    shutil.copytree(installed, site / "transformers", ignore=shutil.ignore_patterns("__pycache__"))
    print(f"transformers {transformers.__version__} at {installed}; copy at {site}", flush=True)
    print("counting breaks with the installed transformers...", flush=True)
    before = run_worker(sys.executable, temp / "before.pt", names, None)
    print(f"fixing the copy ({'safe fixes only' if args.safe_only else 'safe and unsafe fixes'})...", flush=True)
    seconds, outcome = fix_copy(site, unsafe=not args.safe_only)
    fixed = sum(change.breaks_removed for change in outcome.changes)
    print(f"fixed {fixed} findings in {len(outcome.changes)} files in {seconds:.1f} s ({outcome.passes} passes)")
    print("counting breaks with the fixed copy...", flush=True)
    after = run_worker(sys.executable, temp / "after.pt", names, str(site))
    assert Path(after["transformers"]).resolve().is_relative_to(site.resolve()), after["transformers"]

    print(f"\n{'model':<20} {'before':>6} {'after':>6} {'GraphMend':>9}  outputs identical")
    totals = [0, 0, 0]
    details: list[str] = []
    all_identical = True
    for name in names:
        b, a = before["models"][name], after["models"][name]
        same, note = identical(b["outputs"], a["outputs"])
        all_identical &= same
        graphmend = GRAPHMEND_AFTER.get(name, 0)
        totals[0] += b["breaks"]
        totals[1] += a["breaks"]
        totals[2] += graphmend
        print(f"{name:<20} {b['breaks']:>6} {a['breaks']:>6} {graphmend:>9}  {'yes' if same else 'NO'} ({note})")
        if a["reasons"]:
            details.append(f"  {name}:")
            details.extend(classify(a["reasons"], outcome))
    print(f"{'total':<20} {totals[0]:>6} {totals[1]:>6} {totals[2]:>9}  {'all' if all_identical else 'NOT all'}")
    print(f"eliminated: {totals[0] - totals[1]} of {totals[0]} (GraphMend: {totals[0] - totals[2]}); "
          f"whole package fixed in {seconds:.1f} s")
    if details:
        print("\nremaining breaks (innermost user frame):")
        print("\n".join(details))
    summary = {"before": totals[0], "after": totals[1], "graphmend_after": totals[2],
               "identical": all_identical, "fix_seconds": round(seconds, 1)}
    print("\n" + json.dumps(summary))
    if not args.keep:
        shutil.rmtree(temp, ignore_errors=True)
    return 0 if all_identical else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
