"""Members of `(str, Enum)` classes: where they flow, and the `str` methods Dynamo cannot call on them.

Measured on torch 2.13 (tests/fixtures/flow_str_enum_members.py): on a member of a class deriving
from `str` and `Enum` (or `enum.StrEnum`), every method of `str` itself breaks (`m.strip()`,
`m.lower()`, `m.startswith(...)`: GB0156 "Dynamo does not know how to trace method `strip` of class
`BlendMode`"); `==`, `in`, `str(m)`, `m.value`, f-strings, `len` and `hash` trace.

Kinds say only whether a value is a tensor, so this is a second, small fact beside them. The
summary records, per function, which parameters default to `Cls.MEMBER`, which call arguments are
`Cls.MEMBER` or a parameter passed on, and the `str` method calls on a parameter; the scope solver
(`str_enum_findings`) resolves the classes and follows members from defaults and arguments into
parameters along the resolved calls of traced functions, and keeps the drafts a member reaches.
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from graphmend_bot.analysis.model import CallSite, FunctionSummary
from graphmend_bot.vocabulary.dotted_names import dotted_name
from graphmend_bot.vocabulary.kind import Kind

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import FunctionId, Program, TracedDraft

# The methods of `str` (not of object): each breaks on a str-Enum member (measured: strip, lower,
# upper, startswith, endswith, replace, split, format, encode, join, casefold, title).
STR_METHODS = frozenset(name for name in vars(str) if not name.startswith("_"))
_ENUM_BASES = frozenset({"Enum", "enum.Enum"})
_STR_ENUM_BASES = frozenset({"StrEnum", "enum.StrEnum"})

Source = str  # "param:NAME" (a parameter passed on) or "member:Cls.NAME" (as written)


def member_ref(node: ast.expr | None) -> str | None:
    """`BlendMode.CONSTANT` (or `enums.BlendMode.CONSTANT`) as written, when it may be a member."""
    if not isinstance(node, ast.Attribute) or not isinstance(node.value, (ast.Name, ast.Attribute)):
        return None
    return dotted_name(node)


def argument_sources(
    node: ast.Call, args: list[Kind], kwargs: list[tuple[str | None, Kind]]
) -> tuple[tuple[int | str, Source], ...]:
    """What a call passes that may carry a member: by position or keyword, a parameter of the
    caller passed on unchanged (its kind is that parameter) or a `Cls.NAME` read."""
    if len(args) != len(node.args) or len(kwargs) != len(node.keywords) or not (args or kwargs):
        return ()  # a partial's bound arguments come first: positions would not match; or nothing passed
    found: list[tuple[int | str, Source]] = []
    for index, (arg, kind) in enumerate(zip(node.args, args)):
        if isinstance(arg, ast.Starred):
            break
        if (source := _source(arg, kind)) is not None:
            found.append((index, source))
    for keyword, (_, kind) in zip(node.keywords, kwargs):
        if keyword.arg is not None and (source := _source(keyword.value, kind)) is not None:
            found.append((keyword.arg, source))
    return tuple(found)


def _source(node: ast.expr, kind: Kind) -> Source | None:
    if isinstance(node, ast.Name) and node.id in kind.params:
        return f"param:{node.id}"
    ref = member_ref(node)
    return f"member:{ref}" if ref is not None else None


def str_enum_findings(
    program: Program, targets: dict[tuple[FunctionId, int], list[FunctionId]],
    holds: Callable[[FunctionId, Kind], bool],
) -> list[TracedDraft]:
    """The drafts of `str` method calls on parameters a str-Enum member reaches in traced code."""
    from graphmend_bot.analysis.scope import TracedDraft

    pending = [fid for fid in program.traced_in_order() if program.function(fid).str_method_drafts]
    if not pending:
        return []
    members = _MemberClasses(program)
    holding: set[tuple[FunctionId, str]] = set()
    queue: deque[FunctionId] = deque()

    def reach(fid: FunctionId, param: str) -> None:
        if (fid, param) not in holding:
            holding.add((fid, param))
            queue.append(fid)

    for fid in program.traced_in_order():
        function = program.function(fid)
        for param, ref in function.member_defaults:
            if members.is_member(fid[0], ref):
                reach(fid, param)
        for site, sources in function.call_member_sources:
            # Judged once per site, before binding to each callee: most sources are parameters.
            passed = [(where, source) for where, source in sources
                      if source.startswith("member:") and members.is_member(fid[0], source[len("member:"):])]
            if not passed:
                continue
            for callee in targets.get((fid, site), ()):
                for param, _ in _bound(program, function.calls[site], callee, passed):
                    reach(callee, param)
    while queue:  # members passed on through parameters
        fid = queue.popleft()
        function = program.function(fid)
        for site, sources in function.call_member_sources:
            for callee in targets.get((fid, site), ()):
                for param, source in _bound(program, function.calls[site], callee, sources):
                    if source.startswith("param:") and (fid, source[len("param:"):]) in holding:
                        reach(callee, param)
    return [
        TracedDraft(program.modules[fid[0]], program.function(fid), draft)
        for fid in pending
        if fid[0] not in program.dependency_modules
        for param, draft in program.function(fid).str_method_drafts
        if (fid, param) in holding and not holds(fid, draft.suppressed_if)
    ]


def _bound(
    program: Program, site: CallSite, callee: FunctionId, sources: Iterable[tuple[int | str, Source]]
) -> Iterable[tuple[str, Source]]:
    """(callee parameter, source) for each source, positions matched as the tensor flow does."""
    function: FunctionSummary = program.function(callee)
    params = list(function.params)
    if program.first_param_implicit(site, callee):
        params = params[1:]
    for where, source in sources:
        if isinstance(where, str):
            if where in params:
                yield where, source
        elif where < len(params):
            yield params[where], source


class _MemberClasses:
    """Which `Cls.NAME` reads are members of an in-tree `(str, Enum)` class (memoised)."""

    def __init__(self, program: Program) -> None:
        self.program = program
        self._str_enum: dict[tuple[str, str], bool] = {}

    def is_member(self, module: str, ref: str) -> bool:
        owner, _, name = ref.rpartition(".")
        found = self.program._resolve_dotted(module, owner)
        if found is None or found[0] != "class":
            return False
        summary = self.program.modules[found[1]].classes[found[2]]
        return name not in summary.methods and self._is_str_enum(found[1], found[2])

    def _is_str_enum(self, module: str, class_qualname: str) -> bool:
        key = (module, class_qualname)
        if key not in self._str_enum:
            self._str_enum[key] = False  # cycles end here
            bases = self.program.modules[module].classes[class_qualname].bases
            direct = bool(_STR_ENUM_BASES.intersection(bases)) or (
                "str" in bases and bool(_ENUM_BASES.intersection(bases))
            )
            self._str_enum[key] = direct or any(
                self._is_str_enum(*base) for base in self.program._base_classes(module, class_qualname)
            )
        return self._str_enum[key]
