"""Prove a refactoring changed no output: every report format, the fixes and the rule docs, byte for byte.

same_findings.py compares the finding lists of one check; this compares what a user sees. The
revision's `graphmend_bot`, `examples/` and `tests/fixtures/` are exported (`git archive`), and
both the revision's code and this tree's run the same commands, with `--no-cache`, on the
revision's copies of the two folders (outside any git repository, so the worktree around them
plays no part) and on transformers' models/:

- `check` in every `--output-format` (text, json, sarif, github), `--statistics`, `--show-fixes`,
  `--diff` and `--diff --unsafe-fixes`;
- `review --base HEAD` in every `--output-format` (text, markdown, json), in a throwaway git
  repository whose base commit is empty, so every finding is on a new line (examples/ and the fixtures);
- `rules` and `rule CODE` for every code `rules` lists.

stdout, stderr and the exit status of each must be identical. `--quick` leaves out transformers'
`--show-fixes` and `--diff` runs (four minutes of CPU each); `--keep DIR` keeps the revision's
outputs there and reuses them on the next run against the same commit (`--record-only`: only
record them, so this tree can change meanwhile). `--ab N` then times a
whole-tree `check` of transformers' models/ N times per side, alternating (see same_findings.py).
Usage:

    .venv/bin/python benchmarks/same_outputs.py [--ref main] [--this REV] [--quick] [--keep DIR] [--ab 3]

Exit status 1 when an output differs; the first lines of each difference are printed.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from check_speed import default_tree
from same_findings import ROOT, byte_compile, export, run_check

CHECK_FORMATS = ("text", "json", "sarif", "github")
REVIEW_FORMATS = ("text", "markdown", "json")
WORK_FOLDER = re.compile(re.escape(tempfile.gettempdir().encode()) + rb"/graphmend-outputs-[^/]+/work")
FIXED_DATE = "2000-01-01T00:00:00+00:00"
GIT = ["git", "-c", "user.name=same-outputs", "-c", "user.email=same@example.invalid", "-c", "commit.gpgsign=false"]


@dataclass(frozen=True)
class Command:
    name: str  # also the file its output is kept in
    argv: tuple[str, ...]
    cwd: str  # relative to the work folder


def commands(rule_codes: list[str], transformers: Path, quick: bool) -> Iterator[Command]:
    trees = [("examples", "trees", "examples"), ("fixtures", "trees", "fixtures"), ("transformers", "", str(transformers))]
    for label, cwd, path in trees:
        for output_format in CHECK_FORMATS:
            yield Command(f"check-{label}-{output_format}", ("check", "--no-cache", "--output-format", output_format, path), cwd)
        yield Command(f"check-{label}-statistics", ("check", "--no-cache", "--statistics", path), cwd)
        if quick and label == "transformers":
            continue
        yield Command(f"check-{label}-show-fixes", ("check", "--no-cache", "--show-fixes", path), cwd)
        yield Command(f"check-{label}-diff", ("check", "--no-cache", "--diff", path), cwd)
        yield Command(f"check-{label}-diff-unsafe", ("check", "--no-cache", "--diff", "--unsafe-fixes", path), cwd)
    for label in ("examples", "fixtures"):
        for output_format in REVIEW_FORMATS:
            yield Command(f"review-{label}-{output_format}",
                          ("review", "--no-cache", "--base", "HEAD", "--output-format", output_format, "."), f"repos/{label}")
    yield Command("rules", ("rules",), "")
    for code in rule_codes:
        yield Command(f"rule-{code}", ("rule", code), "")


def prepare(ref: str, work: Path) -> None:
    """The revision's examples/ and tests/fixtures/ as plain folders, and each as a git repository
    whose only commit is empty (the review's base), its files untracked (new in the review)."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "examples", "tests/fixtures"],
                             check=True, capture_output=True)
    exported = work / "exported"
    exported.mkdir()
    subprocess.run(["tar", "-x", "-C", str(exported)], input=archive.stdout, check=True)
    for label, source in (("examples", exported / "examples"), ("fixtures", exported / "tests" / "fixtures")):
        shutil.copytree(source, work / "trees" / label)
        repository = work / "repos" / label
        shutil.copytree(source, repository)
        subprocess.run([*GIT, "init", "-q"], cwd=repository, check=True)
        # Fixed dates: the base commit, which the review prints, is then the same in every run,
        # so outputs kept with --keep stay comparable with a later run's.
        subprocess.run([*GIT, "commit", "-q", "--allow-empty", "-m", "base"], cwd=repository, check=True,
                       env={**os.environ, "GIT_AUTHOR_DATE": FIXED_DATE, "GIT_COMMITTER_DATE": FIXED_DATE})


def run(code_root: Path, command: Command, work: Path) -> bytes:
    """The command's stdout, stderr and exit status, as one comparable blob (the temporary work
    folder, which absolute paths in JSON name, written as `<work>`)."""
    environment = {**os.environ, "PYTHONPATH": str(code_root)}
    environment.pop("GRAPHMEND_CACHE_DIR", None)
    completed = subprocess.run([sys.executable, "-m", "graphmend_bot.cli", *command.argv], capture_output=True,
                               env=environment, cwd=work / command.cwd)
    blob = (b"== stdout\n" + completed.stdout + b"\n== stderr\n" + completed.stderr
            + f"\n== exit status {completed.returncode}\n".encode())
    return blob.replace(str(work).encode(), b"<work>")


def rule_codes(code_root: Path) -> list[str]:
    listing = subprocess.run([sys.executable, "-c", "from graphmend_bot.rules import ALL_RULES_BY_CODE as r; print(*r)"],
                             capture_output=True, text=True, check=True, env={**os.environ, "PYTHONPATH": str(code_root)},
                             cwd=tempfile.gettempdir())  # not this worktree: `-c` puts the folder first on the path
    return listing.stdout.split()


def show_difference(name: str, before: bytes, after: bytes) -> None:
    lines = difflib.unified_diff(before.decode(errors="replace").splitlines(), after.decode(errors="replace").splitlines(),
                                 "ref", "this tree", lineterm="", n=1)
    print(f"DIFFERS: {name}")
    for line in list(lines)[:20]:
        print(f"  {line}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", default="main", help="git revision to compare against (default: main)")
    parser.add_argument("--this", metavar="REV", help="compare this revision instead of the working tree "
                        "(its code exported, so the tree can change while it runs)")
    parser.add_argument("--quick", action="store_true", help="leave out transformers' fix runs")
    parser.add_argument("--keep", type=Path, help="keep (and reuse) the revision's outputs in this folder")
    parser.add_argument("--record-only", action="store_true", help="with --keep: only run the revision's code")
    parser.add_argument("--ab", type=int, default=0, metavar="N", help="then time a whole-tree check N times per side")
    args = parser.parse_args()
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", args.ref], capture_output=True, text=True,
                            check=True).stdout.strip()
    transformers = default_tree()
    differing = 0
    with tempfile.TemporaryDirectory(prefix="graphmend-outputs-") as folder:
        reference, work, here = Path(folder) / "ref", Path(folder) / "work", ROOT
        reference.mkdir()
        work.mkdir()
        export(commit, reference)
        byte_compile(reference)
        if args.this:
            here = Path(folder) / "this"
            here.mkdir()
            export(args.this, here)
        byte_compile(here)
        prepare(commit, work)
        kept = args.keep / commit if args.keep else None
        if kept:
            kept.mkdir(parents=True, exist_ok=True)
        codes = rule_codes(reference)
        if rule_codes(here) != codes:
            print(f"DIFFERS: the rule codes ({' '.join(codes)} vs {' '.join(rule_codes(here))})")
            differing += 1
        every = list(commands(codes, transformers, args.quick))
        for command in every:
            saved = kept / command.name if kept else None
            if saved and saved.exists():
                before = WORK_FOLDER.sub(b"<work>", saved.read_bytes())
            else:
                before = run(reference, command, work)
                if saved:
                    saved.write_bytes(before)
            if args.record_only:
                continue
            after = run(here, command, work)
            if before != after:
                differing += 1
                show_difference(command.name, before, after)
        print(f"{len(every) - differing} of {len(every)} outputs identical ({commit[:10]} vs {args.this or 'this tree'}"
              f"{', quick' if args.quick else ''})" if not args.record_only else f"{len(every)} outputs recorded")
        if args.ab:
            timings: dict[str, list[float]] = {"ref": [], "here": []}
            for _ in range(args.ab):
                for side, code_root in (("ref", reference), ("here", here)):
                    timed = run_check(code_root, transformers)
                    timings[side].append(timed.main_cpu + timed.worker_cpu)
            for side, label in (("ref", args.ref), ("here", "this tree")):
                print(f"{label:>12}: CPU {statistics.median(timings[side]):6.2f} s median "
                      f"({', '.join(f'{t:.2f}' for t in timings[side])})")
            print(json.dumps({"load_average": os.getloadavg()}))
    sys.exit(1 if differing else 0)


if __name__ == "__main__":
    main()
