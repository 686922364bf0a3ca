"""A rule's `help:` advice for a finding that has no fix, written about the flagged code itself.

A finding with a fix names that fix instead (its own message, like ruff's fix title); advice is for
the rest: plain `check` (fixes are not computed; its summary line points to `--show-fixes`) and
findings no rewrite can fix safely, so the advice never claims whether a rewrite exists.

Each rule holds its advice (`Rule.advice`, and `Rule.advice_cases` for the findings that need other
words). Each template gets `{code}`: the flagged source text (or a short description when the
finding spans several lines).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from graphmend_bot.findings import Finding

# Longer flagged text is shortened: a call to `name(...)`, anything else cut at this many characters.
_MAX_SHOWN = 60
_CALL = re.compile(r"[\w.]+\(")

COMPILE_GUARD = "if not torch.compiler.is_compiling():"
# The advice of the Python I/O rules (GM401-GM403).
GUARD_ADVICE = f"Guard `{{code}}` with `{COMPILE_GUARD}`, or move it out of the compiled region"


@dataclass(frozen=True)
class AdviceCase:
    """Advice for the findings `applies` picks, instead of the rule's usual advice."""

    applies: Callable[[Finding], bool]
    template: str


def _is_deprecation_notice(finding: Finding) -> bool:
    return any(word in finding.source_line for word in ("deprecat", "FutureWarning", "DeprecationWarning"))


# A deprecation notice is the project's call (GM403's fix safety, `deprecation-notices`): GM402, GM403.
DEPRECATION_NOTICE = AdviceCase(_is_deprecation_notice, (
    "Left as written: compiled callers need this notice too, and GraphMend does not hide it by default. "
    "If your project skips its deprecation notices under compile (as transformers' `deprecate_kwarg` "
    "does), set `deprecation-notices: guard` and `--unsafe-fixes` guards `{code}` with "
    "`torch.compiler.is_compiling()`; `deprecation-notices: defer` routes it through "
    "`torch._dynamo.config.reorderable_logging_functions` instead (kept only where its function is the "
    "compiled frame itself)"
))


def advice_text(template: str, cases: tuple[AdviceCase, ...], finding: Finding) -> str:
    """The first case's template that applies to `finding` (else `template`), naming its own code."""
    chosen = next((case.template for case in cases if case.applies(finding)), template)
    return chosen.format(code=flagged_text(finding))


def flagged_text(finding: Finding) -> str:
    """The source the finding points at, or its first line followed by `...` when it spans several."""
    line = finding.source_line
    start = finding.location.column - 1
    if finding.end_location.row == finding.location.row:
        text = line[start:finding.end_location.column - 1]
    else:
        text = line[start:].rstrip() + " ..."
    text = text.strip()
    if len(text) > _MAX_SHOWN:
        call = _CALL.match(text)
        text = f"{call.group()}...)" if call else text[:_MAX_SHOWN].rstrip() + " ..."
    return text or "this code"
