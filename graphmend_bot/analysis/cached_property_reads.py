"""Reads of a `functools.cached_property` from traced code (GM612).

Before Python 3.12, `cached_property.__get__` computes the value under `with self.lock:`, a
`threading.RLock`, which Dynamo does not know how to enter (GB0142). The break is on the attribute
read, an instruction Dynamo cannot resume after, so it skips the whole frame and runs it eagerly.
Measured on torch 2.13, Python 3.11 (tests/coverage_probes/gb0142_cached_property_first_read.py,
tests/fixtures/rules/GM612_cached_property_first_read.py): a read on an nn.Module's `self`, on a
module-level object or on an argument breaks; a plain `property` traces, and so does a read once
the value is cached (its instance dict then answers). A read is a getter call site (`getter:`
refs: function_expressions.py), resolved by the scope solver to the class's getter, along its
in-tree bases; it stands when every getter it may run is a cached_property the class's `__init__`
does not read (that computes it before any compiled call).
"""

from __future__ import annotations

import re
import sys
from typing import TYPE_CHECKING

from graphmend_bot.analysis.disabled_calls import already_seen, source_lines
from graphmend_bot.analysis.model import Draft
from graphmend_bot.rules import RULES
from graphmend_bot.vocabulary.kind import TENSOR

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import FunctionId, Program, TracedDraft

# 3.12 dropped the lock (gh-87634): the first read then runs the getter, which Dynamo inlines.
READ_TAKES_LOCK = sys.version_info < (3, 12)
RULE = next(rule for rule in RULES if rule.detection.cached_property_read is not None)
_MESSAGE = RULE.detection.cached_property_read
_CACHED_PROPERTY = "functools.cached_property"


def cached_property_reads(
    program: Program, targets: dict[tuple[FunctionId, int], list[FunctionId]], locked: bool | None = None,
    reads: list[tuple[FunctionId, int, FunctionId]] | None = None,
) -> list[TracedDraft]:
    """A finding at each read, in a traced frame of the checked tree, of a cached_property not
    computed in its class's `__init__` (`reads`: locked_reads's, when the caller has them)."""
    from graphmend_bot.analysis.scope import TracedDraft

    found: list[TracedDraft] = []
    lines: dict[str, list[str]] = {}
    for fid, index, getter in locked_reads(program, targets, locked) if reads is None else reads:
        caller = program.function(fid)
        module = program.modules[fid[0]]
        if module.path not in lines:
            lines[module.path] = source_lines(program.source_of, module.path)
        draft = _draft(caller.calls[index].row, program.function(getter).name, lines[module.path])
        if draft is not None:
            found.append(TracedDraft(module, caller, draft))
    return found


def locked_reads(
    program: Program, targets: dict[tuple[FunctionId, int], list[FunctionId]], locked: bool | None = None
) -> list[tuple[FunctionId, int, FunctionId]]:
    """(reading function, its getter call site, the getter) of each read that enters the lock:
    Dynamo breaks there and, the read being an attribute load, runs the rest of that frame eagerly
    (skipped_frames.py)."""
    reads: list[tuple[FunctionId, int, FunctionId]] = []
    if not (READ_TAKES_LOCK if locked is None else locked):
        return reads
    called = {callee for callees in targets.values() for callee in callees}
    cached = {
        callee
        for callee in called
        if is_cached_property(program, callee) and not _read_in_init(program, callee)
    }
    if not cached:
        return reads  # most trees: no cached_property is read from traced code
    reported: set[tuple[FunctionId, int, str]] = set()
    for (fid, index), callees in sorted(
        site for site in targets.items() if site[1] and cached.issuperset(site[1])
    ):
        caller = program.function(fid)
        site = caller.calls[index]
        if not site.ref.startswith("getter:") or fid[0] in program.dependency_modules or caller.disabled:
            continue
        if already_seen(reported, fid, site) or _read_in_own_init(program, fid, site.ref):
            continue  # a loop body is summarised once per pass: its reads repeat, the finding does not
        reads.append((fid, index, callees[0]))
    return reads


def is_cached_property(program: Program, fid: FunctionId) -> bool:
    """Decorated with `functools.cached_property`, under whatever name the module imports it."""
    imports = program.modules[fid[0]].imports
    for decorator in program.function(fid).decorators:
        head, dot, rest = decorator.partition(".")
        if imports.get(head, head) + dot + rest == _CACHED_PROPERTY:
            return True
    return False


def _read_in_init(program: Program, getter: FunctionId) -> bool:
    """The class's `__init__` (its own or an in-tree base's) reads the property: cached by then."""
    function = program.function(getter)
    if function.class_qualname is None:
        return False
    init = program.class_method(getter[0], function.class_qualname, "__init__")
    wanted = f"getter:self>{function.name}"
    return init is not None and any(site.ref == wanted for site in program.function(init).calls)


def _read_in_own_init(program: Program, fid: FunctionId, ref: str) -> bool:
    """The reading method's class's `__init__` reads the same property of the object it holds
    (`self.first = self.scaled.scale` there, then `self.scaled.scale` in forward): cached by then."""
    own = program.function(fid).class_qualname
    if own is None or not ref.startswith("getter:attr:"):
        return False
    init = program.class_method(fid[0], own, "__init__")
    return init is not None and init != fid and any(site.ref == ref for site in program.function(init).calls)


def _draft(row: int, name: str, lines: list[str]) -> Draft | None:
    line = lines[row - 1] if 0 < row <= len(lines) else ""
    match = re.search(rf"[\w.]*\.\s*{re.escape(name)}\b", line)
    if match is None:
        return None  # a read spread over lines: its row holds no `.name`
    message = _MESSAGE(RULE, name) if _MESSAGE else RULE.summary
    return Draft(
        RULE.code,
        message,
        row,
        match.start() + 1,
        row,
        match.end() + 1,
        RULE.gb_id,
        TENSOR,
        line.rstrip("\r\n"),
    )
