"""Calls from traced code to functions marked `@torch.compiler.disable` (GM620).

Dynamo never traces a disabled function: it ends the graph at each call, runs the function eagerly
and resumes after it. So the break is at the call site, in the caller's frame, and nothing inside
the function breaks (summary.py drops its drafts). Measured on torch 2.13
(tests/coverage_probes/gb0098_disabled_function_call.py): a call to a plain function, a
staticmethod or a function of another module is GB0098 ("Skip calling"); a call to a method
through `self` or to a function disabled with `recursive=False` is GB0099 ("Skip inlining").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from graphmend_bot.analysis.disabled_values import disabling
from graphmend_bot.analysis.held_contexts import builders
from graphmend_bot.analysis.model import CallSite, Draft, FunctionSummary
from graphmend_bot.rules import RULES
from graphmend_bot.source_lines import physical_lines
from graphmend_bot.vocabulary.kind import TENSOR

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import FunctionId, Program, TracedDraft

# The rule that reports these calls, and the id each call breaks with.
RULE = next(rule for rule in RULES if rule.detection.disabled_call is not None)
_BREAK_ID = RULE.detection.disabled_call
# A numba dispatcher is compiled code, reported by the rule for calls into compiled code.
COMPILED_RULE = next(rule for rule in RULES if rule.detection.compiled_function_call is not None)


def disabled_function_calls(
    program: Program, targets: dict[tuple[FunctionId, int], list[FunctionId]]
) -> list[TracedDraft]:
    """A finding at each call, in a traced frame of the checked tree, whose every resolved callee
    is disabled (one that resolves to other functions too may not land on it)."""
    from graphmend_bot.analysis.scope import TracedDraft

    found: list[TracedDraft] = []
    lines: dict[str, list[str]] = {}
    # each distinct callee asked once (transformers 5.24: 11 thousand of them at 63 thousand calls)
    called = {callee for callees in targets.values() for callee in callees}
    disabled = {callee for callee in called if program.function(callee).disabled}
    if not disabled:
        return found  # most trees: no disabled function is called from traced code
    reported: set[tuple[FunctionId, int, str]] = set()  # a loop body's calls are recorded once per pass
    for (fid, index), callees in sorted(site for site in targets.items() if disabled.issuperset(site[1])):
        caller = program.function(fid)
        if fid[0] in program.dependency_modules or caller.disabled:
            continue  # a disabled caller runs eagerly: the calls it makes break nothing
        if already_seen(reported, fid, caller.calls[index]):
            continue
        functions = [program.function(callee) for callee in callees]
        module = program.modules[fid[0]]
        if module.path not in lines:
            lines[module.path] = source_lines(program.source_of, module.path)
        draft = _draft(caller.calls[index].row, caller.calls[index].bound, functions[0], lines[module.path])
        found.append(TracedDraft(module, caller, draft))
    return found


def disabled_value_calls(
    program: Program, targets: dict[tuple[FunctionId, int], list[FunctionId]]
) -> list[TracedDraft]:
    """A finding at each call, in a traced frame of the checked tree, of a value a disable call
    returned (analysis/disabled_values.py): a module-level `NAME = torch.compiler.disable(f)`,
    called here or imported, or `self.NAME` built so in the class."""
    from graphmend_bot.analysis.scope import TracedDraft

    held = _disabled_value_names(program)
    if not held:
        return []  # most trees hold no such value
    found: list[TracedDraft] = []
    lines: dict[str, list[str]] = {}
    reported: set[tuple[FunctionId, int, str]] = set()
    for fid in program.traced_in_order():
        caller = program.function(fid)
        if fid[0] in program.dependency_modules or caller.disabled:
            continue  # a disabled caller runs eagerly: the calls it makes break nothing
        for index, site in enumerate(caller.calls):
            kind, _, name = site.ref.partition(":")
            if (fid, index) in targets or name.rpartition(".")[2] not in held:
                continue  # a call that lands on a function of the tree, or of no value held so
            how = _disabled_value(program, fid[0], caller, kind, name)
            if not how or already_seen(reported, fid, site):
                continue
            module = program.modules[fid[0]]
            if module.path not in lines:
                lines[module.path] = source_lines(program.source_of, module.path)
            spelled = f"self.{name}" if kind == "self" else name
            found.append(TracedDraft(module, caller, _value_draft(site.row, spelled, how, lines[module.path])))
    return found


def already_seen(reported: set[tuple[FunctionId, int, str]], fid: FunctionId, site: CallSite) -> bool:
    """Whether this call was met already: a loop body is summarised once per pass, so its calls repeat."""
    key = (fid, site.row, site.ref)
    if key in reported:
        return True
    reported.add(key)
    return False


def _disabled_value_names(program: Program) -> frozenset[str]:
    """The names (last part) module-level objects and class attributes built by a disable call have."""
    return frozenset(
        name.rpartition(".")[2]
        for summary in program.modules.values()
        for builders in (summary.instances, *(cls.attributes for cls in summary.classes.values()))
        for name, builder in builders.items()
        if disabling(builder)
    )


def _disabled_value(program: Program, module: str, caller: FunctionSummary, kind: str, name: str) -> str:
    """How the value a call `kind:name` calls is disabled ("recursive", "frame"), "" when it is not
    known to be one: for `self.NAME`, every value the class hierarchy stores there must be one
    (`self.inv = torch.linalg.inv` after `self.inv = torch.compiler.disable(...)` holds a plain
    function, which Dynamo traces: its "" joins the ways)."""
    if kind == "self" and caller.class_qualname is not None and name.isidentifier():
        held = builders(program, module, caller.class_qualname, f"self.{name}")
        ways = {disabling(built) for built in held}
        return ways.pop() if len(ways) == 1 else ""
    if kind in ("name", "dotted"):
        builder = program.module_builder(module, name)
        return disabling(builder) if builder is not None else ""
    return ""


def _value_draft(row: int, spelled: str, how: str, lines: list[str]) -> Draft:
    message = (
        f"`{spelled}` holds a function wrapped by `torch.compiler.disable(...)`: Dynamo ends the graph "
        "at this call and runs it eagerly"
    )
    return _call_draft(lines, row, rf"(?<![\w.]){re.escape(spelled)}", how == "frame", message)


def source_lines(source_of: Callable[[str], str], path: str) -> list[str]:
    try:
        return physical_lines(source_of(path))
    except (OSError, ValueError):  # gone or unreadable since it was summarised: report without the text
        return []


def _draft(row: int, bound: bool, callee: FunctionSummary, lines: list[str]) -> Draft:
    method = bound and "staticmethod" not in callee.decorators
    message = (
        f"`{callee.name}()` is marked `@torch.compiler.disable`: Dynamo ends the graph at this call "
        "and runs it eagerly"
    )
    if callee.disabled == "skipped":
        message = (f"`{callee.name}()` is marked `@torch._disable_dynamo`, which Dynamo's trace rules skip: "
                   "the graph ends at this call and it runs eagerly")
    if callee.disabled == "numba" and (compiled := COMPILED_RULE.detection.compiled_function_call) is not None:
        message, gb_id = compiled(COMPILED_RULE, callee.name)
        draft = _call_draft(lines, row, rf"(?<![\w]){re.escape(callee.name)}", False, message)
        return replace(draft, code=COMPILED_RULE.code, gb_id=gb_id)
    return _call_draft(lines, row, rf"(?<![\w]){re.escape(callee.name)}", callee.disabled == "frame" or method, message,
                       skipped=callee.disabled == "skipped")


def _call_draft(lines: list[str], row: int, called: str, skips_inlining: bool, message: str,
                skipped: bool = False) -> Draft:
    """GM620's finding at the call on `row` of what the pattern `called` spells."""
    line = lines[row - 1] if 0 < row <= len(lines) else ""
    # The call site keeps only its row: the call is the callee's name and its parentheses there
    # (findings count columns from 1).
    match = re.search(rf"{called}\s*\(", line)
    column = match.start() if match else len(line) - len(line.lstrip())
    end = closing_parenthesis(line, match.end()) if match else len(line.rstrip())
    gb_id = _BREAK_ID(RULE, skips_inlining, skipped) if _BREAK_ID else RULE.gb_id
    return Draft(RULE.code, message, row, column + 1, row, end + 1, gb_id, TENSOR, line.rstrip("\r\n"))


def closing_parenthesis(line: str, start: int) -> int:
    """Just past the parenthesis closing the one before `start`; the line's end when it closes later."""
    depth = 1
    for index in range(start, len(line)):
        depth += {"(": 1, ")": -1}.get(line[index], 0)
        if depth == 0:
            return index + 1
    return len(line.rstrip())
