"""A fix never hides a break: every break Dynamo still reports in the fixed code is reported by
`graphmend check` on the fixed code, or sits on a line no applied fix claimed.

Over every rewrite fixture pair (tests/fixtures/rewrite/**, with its `# fixture:` directive) and
every rule fixture with Dynamo cases (tests/fixtures/rules, safe fixes): apply the fixes as `--fix`
does, run the fixed code under `torch._dynamo.explain` and the graph_breaks log, and check each
break line. A break on a line a fix wrote, or on an unchanged line whose finding had an applied
fix, that `check` no longer reports is a fix that hid its finding (issue 24.2: a guard placed
after a tensor comparison, `if x.min() < 0 and not is_compiling():`, kept the break and silenced it).
"""

from __future__ import annotations

import difflib
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from fixture_support import build_entry, case_id, fixture_cases, load_module, options

from graphmend_bot.config import Config
from graphmend_bot.engine import check
from graphmend_bot.rewrite import attach_fixes, fix_outcome

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))
sys.path.insert(0, str(REPO / "tests"))

from ground_truth import Tree, dynamo_breaks, normalise  # noqa: E402
from test_rule_fixtures import FILES as RULE_FIXTURES  # noqa: E402  (puts the fake dependency on sys.path)
from test_rule_fixtures import config_for  # noqa: E402

Cases = Callable[[ModuleType], list[tuple[Any, tuple[Any, ...]]]]


@dataclass(frozen=True)
class Subject:
    path: Path
    config: Config
    unsafe: bool
    cases: Cases


def _pair_cases(module: ModuleType) -> list[tuple[Any, tuple[Any, ...]]]:
    return [(build_entry(module), module.make_inputs(0))]


def _rule_cases(module: ModuleType) -> list[tuple[Any, tuple[Any, ...]]]:
    return [(fn, tuple(args)) for fn, args in module.dynamo_cases()]


def _pair(path: Path) -> Subject:
    chosen = options(path.read_text(encoding="utf-8"))
    config = Config(io_strategy=chosen.io_strategy, deprecation_notices=chosen.deprecation_notices)
    return Subject(path, config, chosen.unsafe, _pair_cases)


def _rule(path: Path) -> Subject:
    return Subject(path, config_for(path) or Config(), False, _rule_cases)


SUBJECTS = [
    *(pytest.param(_pair(p), id=f"rewrite/{case_id(p)}") for p in fixture_cases()),
    *(pytest.param(_rule(p), id=f"rules/{p.stem}") for p in RULE_FIXTURES if "def dynamo_cases" in p.read_text()),
]


def claimed_rows(path: Path, config: Config, unsafe: bool) -> set[int]:
    """Rows of the original's findings that a fix `--fix` applies would claim as fixed."""
    attached = attach_fixes(check([str(path)], config, jobs=1), config)
    return {f.location.row for f in attached.findings
            if f.fix is not None and (unsafe or f.fix.applicability == "safe")}


def original_rows(before: str, after: str) -> dict[int, int]:
    """Each unchanged line of `after` (1-based) mapped to its row in `before`."""
    matcher = difflib.SequenceMatcher(a=before.splitlines(), b=after.splitlines(), autojunk=False)
    return {b + k + 1: a + k + 1 for a, b, size in matcher.get_matching_blocks() for k in range(size)}


def _unwrap(fn: Any) -> Any:
    while (inner := getattr(fn, "_orig_mod", None) or getattr(fn, "_torchdynamo_orig_callable", None)) is not None:
        fn = inner
    return fn


def hidden_breaks(subject: Subject, workdir: Path) -> list[str]:
    """Breaks in the fixed code that `check` does not report and a fix claimed; [] when the fixes
    changed nothing."""
    target = workdir / subject.path.name
    shutil.copyfile(subject.path, target)
    before = target.read_text(encoding="utf-8")
    outcome = fix_outcome([str(target)], subject.config, unsafe=subject.unsafe, jobs=1)
    if not outcome.changes:
        return []
    after = outcome.changes[0].after
    claimed = claimed_rows(target, subject.config, subject.unsafe)
    target.write_text(after, encoding="utf-8")
    reported = {f.location.row for f in check([str(target)], subject.config, jobs=1).findings}
    module = load_module(target, workdir, f"fixed_{workdir.name}_{target.stem}")
    loaded = str(module.__file__)  # a copy of the fixed file, under a unique module name
    broken: set[int] = set()
    for fn, args in subject.cases(module):
        explained = dynamo_breaks(_unwrap(fn), args, {}, Tree([loaded]))
        broken |= {line for file, line in explained.lines if file == normalise(loaded)}
    unchanged = original_rows(before, after)
    lines = after.splitlines()
    hidden = []
    for row in sorted(broken - reported):
        origin = unchanged.get(row)
        if origin is None or origin in claimed:
            what = "a line the fix wrote" if origin is None else f"the fixed finding's line {origin}"
            hidden.append(f"line {row} ({what}) breaks under Dynamo, not reported: {lines[row - 1].strip()}")
    return hidden


@pytest.mark.parametrize("subject", SUBJECTS)
def test_every_break_left_after_a_fix_is_reported_or_never_claimed(subject: Subject, tmp_path: Path) -> None:
    assert hidden_breaks(subject, tmp_path) == []

