"""Differential fuzzing of graphmend against Dynamo (Csmith-style): random small probe modules
from the grammar in fuzz_grammar.py (constructs x contexts), each compiled by TorchDynamo on the
pinned torch (the oracle: its break lines, as the wild corpus measures them) and checked by
`graphmend check`; every line where the two disagree is printed, then a summary grouped by
(construct, context, kind), most frequent first.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/differential_fuzz.py --seed 1 --count 300 [--json out.json]

Kinds: MISS (Dynamo breaks, graphmend silent), FP (graphmend reports a statement the eager call
ran and Dynamo did not break on: what the corpus's strict executed precision counts), FP-mode (the
same, but every finding there names a mode the probe did not run in, `(in training mode)`: the
corpus's mode precision sets these apart), FP-unrun (a statement the call never ran: the corpus
does not count it). A program that raises eagerly is
counted as invalid and skipped. Programs go to --out (a scratch folder, rewritten each run);
nothing is cached across runs.

Measured (seeds 11 and 12, 500 programs each, all valid): at 33676062, FP 51, FP-mode 12, FP-unrun
42, MISS 29; after the fixes it found (a container's truth, conditions on NumPy values, a local
bound to None), FP 17, FP-mode 12, FP-unrun 37, MISS 21. What is left: `x.requires_grad and
<tensor>` (no mode named), a Python operand before the tensor one that is false in the run, lambda
bodies (never analysed), `inspect.signature` of a builtin, `id(t)` compared with a number.

With the grammar's block of the wild test half's no-rule families (fuzz_grammar.WILD_CONSTRUCTS),
seeds 21 and 22 (500 programs each, 499 valid) at d5b42206: FP 6+10, FP-mode 8+4, FP-unrun 8+16,
MISS 30+28; after the fixes they found (a tensor's `.numpy()` is an array, NumPy draws of one
number, `_thread`'s skipped C functions), MISS 17+17, FP 6+10, FP-mode 8+4, FP-unrun 10+18 (the
new findings in arms the call did not run). What is left of the block: `.nbytes`/`.strides` of an
array used in an operation (a lazy attribute Dynamo breaks on where it is used), an index from
`torch.bucketize`/`searchsorted` of a value of unknown rank (`y[0, 0]`), `getattr(self, NAME).item()`,
a `map`/`zip`/`filter` built before a break and iterated after it (GB0811, or GB4347 for `next`),
a NumPy array as a size tuple (`tuple(np.array(...))`).

The value-source block (`--y-sources kinds`, seed 31, 300 programs, all valid): at c0d885c3 FP 6,
FP-mode 3, FP-unrun 12, MISS 8; after `getattr(self, "buf")` read as `self.buf` and `.item()`,
`.tolist()`, `.nonzero()`, `.storage_offset()` on values nothing types (analysis/value_sources.py),
FP 5, FP-mode 3, FP-unrun 12, MISS 5. Left: a helper returning an element of its `*args` (left
untyped on purpose, analysis/function.py), and constructs (`id`, `inspect.signature`, logging).

The held dict-view block (fuzz_grammar.VIEW_CONSTRUCTS, `--only held_view`, seed 41, 4000 drawn, 92
kept, all valid): at e4df8a41 MISS 46, FP 0; with GM676, MISS 1, FP 1, FP-unrun 7 (findings in arms
the call did not run). Left: a view iterated in a nested function (`def inner(y): for v in VIEWS`),
which Dynamo reports at the call `y = inner(y)`. Seed 11 (120 programs, the whole grammar): FP 6 and
FP-unrun 3 before and after, MISS 7 -> 5 (the block's two).

The opaque-source block (fuzz_grammar.OPAQUE_CONSTRUCTS, `--only opaque_`, seed 41, 2000 drawn, 86
kept, all valid): at e4df8a41 MISS 35, FP 0; after `.item()`/`.tolist()` on values from outside the
tree (analysis/opaque_sources.py) MISS 0, FP 0, FP-unrun 10 (arms the call did not run). Seed 42,
300 programs of every block: MISS 15 -> 11, FP 6 -> 6, FP-mode 1 -> 1, FP-unrun 9 -> 12 (only the
block's constructs changed).

The spelling block (fuzz_grammar.SPELL_CONSTRUCTS, `--only spell_`: constructs rules know spelled
through an alias, `getattr`, an unbound or dunder method, `operator`, a lambda, a partial, an
attribute or element holding the tensor; beside near misses), seed 52, 2000 drawn, 340 kept, all
valid: at e53325f9 MISS 122, FP 1, FP-unrun 15; after analysis/call_spellings.py MISS 30, FP 1,
FP-unrun 27 (arms the call did not run). Seed 42, 300 programs of every block: MISS 28 -> 9, FP 4
-> 4, FP-unrun 11 -> 13 (only the block's constructs changed). Left: `functools.partial` of a torch
function or `torch.Tensor.item` called through the local, a bound method held in a local (`get =
t.item`), `.item()`/`.nonzero()` on an attribute of an object of the tree (`Box(y).t`), `map(float, t)`.
At 1726a8e4 (319 kept, all valid) MISS 27, FP 0, FP-unrun 21; after a partial of a torch function
(or of `torch.Tensor.M`, a builtin) and a held bound method of torch.Tensor's API read as the plain call
(analysis/held_callables.py), and `map(F, xs)` consumed in place read as `(F(v) for v in xs)`, MISS 9,
FP 0, FP-unrun 24 (arms the call did not run). Left: `Box(y).t.item()` and `.nonzero(as_tuple=True)`
in some contexts, a `map` held in a local or iterated by a `for`.

The precision block (fuzz_grammar.PRECISION_CONSTRUCTS, `--only prec_`, seed 51, 2500 drawn, 273
kept, all valid): at e53325f9 FP 48, FP-mode 2, FP-unrun 13, MISS 0; after `self.cfg.get(k)` read as
an element of the dict (value_sources.mapping_get) and flags kept on / attributes kept None by
default named as modes (off_flags.py: `(when `self.fast` is false)`, `(when `self.mask` is not
None)`, also after `self.mask and ...`), FP 13, FP-mode 26, FP-unrun 13, MISS 0. Seed 42, 300
programs of every block: FP 9 -> 4, FP-mode 1 -> 6, MISS 6 -> 6. Left: `getattr(self, "missing",
None) is not None and ...` on an attribute never stored, the same tests in a nested function, lambda
or comprehension (no class flags there).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import importlib.util
import io
import json
import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import torch  # noqa: E402
from fuzz_grammar import KIND_Y_SOURCES, Program, generate  # noqa: E402
from ground_truth import Tree, dynamo_breaks, executed_lines  # noqa: E402

from graphmend_bot.analysis.modes import modes_named  # noqa: E402
from graphmend_bot.config import Config  # noqa: E402
from graphmend_bot.engine import check  # noqa: E402


def statement_keys(source: str) -> dict[int, int]:
    """line -> first line of the innermost statement holding it (an `if` header is its own)."""
    best: dict[int, tuple[int, int]] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.stmt) and node.end_lineno is not None:
            end = node.lineno
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.stmt):  # a compound statement's own lines end at its body
                    end = child.lineno - 1
                    break
            else:
                end = node.end_lineno
            for line in range(node.lineno, end + 1):
                span = end - node.lineno
                if line not in best or span < best[line][0]:
                    best[line] = (span, node.lineno)
    return {line: start for line, (_, start) in best.items()}


def load(path: Path):
    spec = importlib.util.spec_from_file_location(f"gm_fuzz_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # `logging.getLogger(__name__)` and pickling look it up
    spec.loader.exec_module(module)
    return module


def measure(path: Path) -> tuple[dict[int, str], set[int]]:
    """Dynamo's break lines (line -> "GBnnnn reason") and the lines one eager call runs."""
    module = load(path)
    tree = Tree([str(path)])
    quiet = io.StringIO()
    with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
        torch.manual_seed(0)
        module.Probe()(*module.inputs())  # raises if the program is invalid
        torch.manual_seed(0)
        explained = dynamo_breaks(module.Probe(), tuple(module.inputs()), {}, tree)
        torch.manual_seed(0)
        ran = executed_lines(module.Probe(), tuple(module.inputs()), {}, tree)
    here = str(path.resolve())
    breaks = {b.location[1]: f"{b.gb_id or '?'} {b.reason}" for b in explained.breaks if b.location and b.location[0] == here}
    return breaks, ran.get(here, set())


def compare(program: Program, breaks: dict[int, str], ran: set[int], reported: dict[int, set[str]],
            moded: set[int]) -> list[dict]:
    """The statements where Dynamo and graphmend disagree (`moded`: lines whose findings all name a mode)."""
    keys = statement_keys(program.source)
    dynamo = {keys.get(line, line): why for line, why in breaks.items()}
    ours: dict[int, set[str]] = {}
    for line, codes in reported.items():
        ours.setdefault(keys.get(line, line), set()).update(codes)
    moded_keys = {keys.get(line, line) for line in moded} - {keys.get(line, line) for line in reported if line not in moded}
    ran_keys = {keys.get(line, line) for line in ran}
    rows = []
    for line in sorted(dynamo.keys() | ours.keys()):
        if (line in dynamo) == (line in ours):
            continue
        kind = "MISS" if line in dynamo else ("FP-unrun" if line not in ran_keys else "FP-mode" if line in moded_keys else "FP")
        rows.append({"line": line, "kind": kind, "dynamo": dynamo.get(line, "-"),
                     "graphmend": ", ".join(sorted(ours.get(line, ()))) or "-",
                     "text": program.source.splitlines()[line - 1].strip()})
    return rows


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--out", default="/tmp/gm_differential_fuzz", help="scratch folder for the programs")
    parser.add_argument("--only", nargs="*", default=(), help="keep programs whose construct name contains one of these")
    parser.add_argument("--json", help="write every program's disagreements here")
    parser.add_argument("--quiet", action="store_true", help="print only the summary")
    parser.add_argument("--y-sources", choices=("all", "kinds"), default="all",
                        help="kinds: every program takes `y` from the value-source block (kind inference)")
    args = parser.parse_args(argv)
    drawn = generate(args.seed, args.count) if args.y_sources == "all" else generate(args.seed, args.count, KIND_Y_SOURCES, 1.0)
    programs = [p for p in drawn
                if not args.only or any(o in p.construct.name for o in args.only)]
    out = Path(args.out) / f"seed{args.seed}"
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("p*.py"):
        old.unlink()
    paths = []
    for i, program in enumerate(programs):
        path = out / f"p{i:04d}.py"
        path.write_text(program.source)
        paths.append(path)
    started = time.perf_counter()
    result = check([str(p) for p in paths], Config(), jobs=1)
    reported: dict[str, dict[int, set[str]]] = {}
    plain: set[tuple[str, int]] = set()  # findings that name no mode
    for finding in result.findings:
        if not modes_named(finding.message):
            plain.add((str(Path(finding.path).resolve()), finding.location.row))
        reported.setdefault(str(Path(finding.path).resolve()), {}).setdefault(finding.location.row, set()).add(
            f"{finding.code} {finding.gb_id}")
    static_seconds = time.perf_counter() - started
    classes: Counter[tuple[str, str, str]] = Counter()
    by_construct: Counter[tuple[str, str]] = Counter()
    details: dict[tuple[str, str, str], Counter[str]] = {}
    records, invalid, agreeing = [], 0, 0
    for path, program in zip(paths, programs):
        try:
            breaks, ran = measure(path)
        except Exception as error:  # an invalid program (it raises eagerly, or Dynamo fails): skip it
            invalid += 1
            if not args.quiet:
                print(f"== {path.name} {program.construct.name} @ {program.context}: invalid: "
                      f"{type(error).__name__}: {str(error)[:120]}")
            continue
        here = reported.get(str(path.resolve()), {})
        rows = compare(program, breaks, ran, here, {line for line in here if (str(path.resolve()), line) not in plain})
        records.append({"path": path.name, "construct": program.construct.name, "family": program.construct.family,
                        "context": program.context, "disagreements": rows})
        agreeing += not rows
        for row in rows:
            key = (program.construct.name, program.context, row["kind"])
            classes[key] += 1
            by_construct[(program.construct.name, row["kind"])] += 1
            detail = row["graphmend"] if row["kind"] != "MISS" else row["dynamo"]
            details.setdefault(key, Counter())[detail[:60]] += 1
        if rows and not args.quiet:
            print(f"== {path.name} {program.construct.name} @ {program.context}")
            for row in rows:
                print(f"  {row['kind']:8} {row['line']:3} {row['text'][:60]:60} | dynamo: {row['dynamo'][:50]:50} "
                      f"| graphmend: {row['graphmend']}")
    valid = len(programs) - invalid
    print(f"\nprograms: {len(programs)} (valid {valid}, invalid {invalid}), agreeing {agreeing}, "
          f"disagreeing {valid - agreeing}; graphmend check {static_seconds:.1f} s")
    kinds = Counter(kind for (_, _, kind), n in classes.items() for _ in range(n))
    print("disagreements by kind:", dict(sorted(kinds.items())))
    print("\nby construct (all contexts):")
    for (name, kind), n in by_construct.most_common():
        print(f"  {n:4} {kind:8} {name}")
    print("\nby (construct, context, kind):")
    for (name, context, kind), n in classes.most_common():
        top = ", ".join(f"{d} x{c}" for d, c in details[(name, context, kind)].most_common(2))
        print(f"  {n:4} {kind:8} {name:22} {context:36} {top}")
    if args.json:
        Path(args.json).write_text(json.dumps({"seed": args.seed, "count": args.count, "invalid": invalid,
                                               "programs": records}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
