"""The corpus's figures per half (split.py): recall, executed-line precision, the lowest library,
and for the test half the missed break statements counted by cause (miss_causes.py).

A half's figures are over the union of its libraries' statements, not sums of per-library counts:
transformers' families share files (modeling_utils.py, masking_utils.py), and a break statement
two families hit is one statement to find. Different libraries never share a statement (keys carry
the package's path), so for them the union is the plain sum.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from harness import DECLARED_SCOPE, DEFAULT_SCOPE, LibraryReport
from split import DEV, TEST, TUNED_ON, half

# A break whose Dynamo stack has no frame in the package is not a missed break statement: Dynamo's
# stack runs from the frame it was tracing (its root) to the break, so a package function that was
# being traced when a callee broke is on it (and the break is mapped to its call site); no package
# frame means Dynamo was tracing a root outside the package (a dependency's function its caller ran
# eagerly, torch, the benchmark's own code). These are listed by owner, apart from the misses.
NOT_RECORDED = "owner not recorded"


@dataclass
class ScopeFigures:
    breaks: int
    found: int
    executed: int
    confirmed: int
    # of the executed, those Dynamo did not break on whose findings name a mode the truth did not run
    # (training, float16, autocast); None: a run saved before they were counted
    mode_named: int | None = None

    @property
    def recall(self) -> float | None:
        return self.found / self.breaks if self.breaks else None

    @property
    def precision(self) -> float | None:
        return self.confirmed / self.executed if self.executed else None

    @property
    def measured_precision(self) -> float | None:
        """Executed precision over the findings in the measured mode (eval, float32)."""
        if self.mode_named is None:
            return None
        executed = self.executed - self.mode_named
        return self.confirmed / executed if executed else None


@dataclass
class HalfFigures:
    name: str
    libraries: list[str]
    failed: list[str]  # libraries that did not load or whose check failed
    calls: int
    calls_ok: int
    scopes: dict[str, ScopeFigures]
    lowest: dict[str, tuple[str, float] | None]  # per scope: the library with the lowest recall
    below_half: dict[str, list[str]]  # per scope: libraries with recall under 0.5
    causes: Counter[str] = field(default_factory=Counter)  # missed break statements by cause
    outside: Counter[str] = field(default_factory=Counter)  # breaks outside the package, by owner
    # per scope: the false positives (executed statements with a finding, no break) by (rule code,
    # whether the finding names a mode the truth did not run); None: a run saved before they were
    false_positives: dict[str, Counter[tuple[str, bool]] | None] = field(default_factory=dict)


def figures(reports: list[LibraryReport], name: str, exclude: frozenset[str] = frozenset()) -> HalfFigures:
    mine = [r for r in reports if half(r.name) == name and r.name not in exclude]
    breaks = {line.where for r in mine for line in r.break_lines}
    scopes: dict[str, ScopeFigures] = {}
    lowest: dict[str, tuple[str, float] | None] = {}
    below: dict[str, list[str]] = {}
    false_positives: dict[str, Counter[tuple[str, bool]] | None] = {}
    for scope in (DEFAULT_SCOPE, DECLARED_SCOPE):
        false_positives[scope] = false_positive_causes(mine, scope)
        found = {k for r in mine for k in r.scopes.get(scope, {}).get("found", [])}
        executed = {k for r in mine for k in r.scopes.get(scope, {}).get("executed", [])}
        counted = [r.scopes[scope]["mode_named"] for r in mine if "mode_named" in r.scopes.get(scope, {})]
        named = {k for keys in counted for k in keys}
        scopes[scope] = ScopeFigures(
            len(breaks), len(found & breaks), len(executed), len(executed & breaks),
            len(named) if counted else None,
        )
        per_library = [(r.name, _recall(r, scope)) for r in mine if r.break_lines and not r.error]
        ratios = [(n, v) for n, v in per_library if v is not None]
        lowest[scope] = min(ratios, key=lambda item: item[1]) if ratios else None
        below[scope] = [n for n, v in ratios if v < 0.5]
    missed: dict[str, str] = {}
    outside: Counter[str] = Counter()
    for r in mine:
        missed.update(r.miss_causes)
        for call in r.calls:
            outside.update(call.unmapped_in or [NOT_RECORDED] * len(call.unmapped))
    return HalfFigures(
        name,
        [r.name for r in mine],
        [r.name for r in mine if r.error],
        sum(len(r.calls) for r in mine),
        sum(1 for r in mine for c in r.calls if c.error is None),
        scopes,
        lowest,
        below,
        Counter(missed.values()),
        outside,
        false_positives,
    )


def false_positive_causes(reports: list[LibraryReport], scope: str) -> Counter[tuple[str, bool]] | None:
    """The false positives of `reports` in `scope` (a union: families share statements), counted by
    rule code and by whether the finding names a mode; None when a report was saved before its
    codes were recorded. Decided by code, so the test half's are counted without being read."""
    codes: dict[str, str] = {}
    named: set[str] = set()
    for r in reports:
        recorded = r.scopes.get(scope, {})
        if "false_positive_codes" not in recorded:
            if recorded.get("executed"):
                return None
            continue
        codes.update(_where_code(entry) for entry in recorded["false_positive_codes"])
        named.update(recorded.get("mode_named", []))
    return Counter((code, where in named) for where, code in codes.items())


def _recall(report: LibraryReport, scope: str) -> float | None:
    found = report.scopes.get(scope, {}).get("found")
    if found is None or not report.break_lines:
        return None
    return len(found) / len(report.break_lines)


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _measured_mode(s: ScopeFigures) -> str:
    if s.mode_named is None:
        return "named a mode the truth did not run: not counted (a run saved before they were)"
    measured = s.executed - s.mode_named
    return (
        f"named a mode the truth did not run: {s.mode_named}; "
        f"executed precision in the measured mode {_ratio(s.measured_precision)} ({s.confirmed}/{measured})"
    )


def halves_report(reports: list[LibraryReport]) -> str:
    rows = ["figures per half (split.py: sha256 of the salted library name, first byte even = dev)"]
    for name, exclude in ((DEV, frozenset()), (TEST, frozenset()), (TEST, TUNED_ON)):
        f = figures(reports, name, exclude)
        label = f"{name} without the units tuned on (split.TUNED_ON)" if exclude else name
        rows.append(
            f"  {label}: {len(f.libraries)} libraries ({len(f.failed)} failed: {', '.join(f.failed) or 'none'}), "
            f"calls {f.calls_ok}/{f.calls} ran"
        )
        for scope, s in f.scopes.items():
            low = f.lowest[scope]
            rows.append(
                f"    {scope:<8} recall {_ratio(s.recall)} ({s.found}/{s.breaks} break statements), "
                f"executed precision {_ratio(s.precision)} ({s.confirmed}/{s.executed}), lowest library "
                f"{f'{low[0]} {low[1]:.2f}' if low else '-'}, below 0.5: {len(f.below_half[scope])}"
            )
            rows.append(f"             {_measured_mode(s)}")
        if name == TEST and not exclude:
            rows.append("    missed at default scope, by cause (counted, not read):")
            rows.extend(f"      {count:>4}  {cause}" for cause, count in f.causes.most_common())
        if not exclude:
            rows.extend(_false_positive_rows(f))
        elif name == DEV:
            rows.append(f"    below 0.5 (declared): {', '.join(f.below_half[DECLARED_SCOPE]) or 'none'}")
        if f.outside:
            rows.append(
                "    breaks with no frame in the package (not break statements of a library), by owner: "
                + ", ".join(f"{owner} {count}" for owner, count in f.outside.most_common())
            )
    return "\n".join(rows)


def _where_code(entry: str) -> tuple[str, str]:
    where, _, code = entry.rpartition(" ")
    return where, code


def _false_positive_rows(f: HalfFigures) -> list[str]:
    """The false positives by rule code (counted, not read), those naming a mode apart."""
    rows = []
    for scope, counted in f.false_positives.items():
        if counted is None:
            rows.append(f"    false positives ({scope}): not counted (a run saved before their codes were)")
            continue
        by_code: Counter[str] = Counter()
        for (code, _), count in counted.items():
            by_code[code] += count
        parts = [f"{code} {count}" + (f" ({counted[code, True]} name a mode)" if counted[code, True] else "")
                 for code, count in sorted(by_code.items(), key=lambda item: (-item[1], item[0]))]
        rows.append(f"    false positives ({scope}) by rule code, counted, not read: {', '.join(parts) or 'none'}")
    return rows
