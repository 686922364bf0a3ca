"""The fix strategies each rule names (`Rule.fixes`), resolved to functions once.

A strategy is named by a module of this package, by family (`"branches.cond"` is
`graphmend_bot/rewrite/branches/cond.py`'s `build_fix`), a function of one
(`"python_io.io:build_print_fix"`: a strategy serving several rules has one entry point per
construct, so it never asks which rule called it), or as `graphmend_bot.package.module:function`,
so a rule can keep a small fix in its own module. Names are resolved lazily: `graphmend check` without fixes never imports libcst.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable

from graphmend_bot.findings import Finding, Fix
from graphmend_bot.rewrite.context import FixContext
from graphmend_bot.rules import RULES, RULES_BY_CODE

BuildFix = Callable[[FixContext, Finding], "Fix | None"]

FIXABLE_CODES = frozenset(rule.code for rule in RULES if rule.fixes)


def resolve(reference: str) -> tuple[str, BuildFix]:
    """(short name for messages, function) of a strategy reference."""
    module, _, function = reference.partition(":")
    if not module.startswith("graphmend_bot."):
        module = f"graphmend_bot.rewrite.{module}"
    build_fix: BuildFix = getattr(importlib.import_module(module), function or "build_fix")
    return module.rsplit(".", 1)[-1], build_fix


@functools.cache
def strategies_for(code: str) -> tuple[tuple[str, BuildFix], ...]:
    rule = RULES_BY_CODE.get(code)
    return tuple(resolve(reference) for reference in rule.fixes) if rule is not None else ()
