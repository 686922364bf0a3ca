"""Functions Dynamo never traces because they are only ever entered from code running eagerly.

Measured on torch 2.13 (tests/fixtures/eager_entries/frames_entered_eagerly.py; torchio's
`Transform.__call__`): at a `with` whose manager Dynamo cannot enter (GB0142), or whose manager
is built by a call it breaks on (`with tqdm(...) as bar:`: built eagerly, then not enterable in
the resumed frame; manager_built_by_a_breaking_call.py), it gives up on the rest of the frame, so the calls from that `with` on run eagerly and each callee is a frame of its
own. Dynamo's frame callback skips such a frame when it is a generator's ("Attempt to trace
generator") or when nothing in it is tensor-related (`has_tensor_in_frame`: no global torch or
numpy module among the names its code reads, no tensor, nn.Module or list/tuple/dict/namedtuple
of them among its arguments). A skipped frame runs eagerly, so its own callees are entered the
same way. Findings in a function reached only like that are never breaks: RandomAffine's
`apply_transform(self, subject: Subject)` holds a `dict` subclass, which Dynamo does not look into.

Judged from the source, erring towards tracing: a parameter is tensor-free only when its annotation
says so (a Python scalar, or a class of the tree whose bases are all of the tree or plain Python:
checked by the solver), so an unannotated one, `*args` or `**kwargs` keeps the frame traced.
"""

from __future__ import annotations

import ast
import functools
import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

from graphmend_bot.analysis.conditional_blocks import tail_in
from graphmend_bot.analysis.local_nodes import child_nodes, every_node
from graphmend_bot.analysis.value_class import class_annotation
from graphmend_bot.vocabulary.dotted_names import dotted_name

if TYPE_CHECKING:
    from graphmend_bot.analysis.model import Draft
    from graphmend_bot.analysis.scope import FunctionId, Program, TracedDraft
    from graphmend_bot.vocabulary.kind import Kind

UNSUPPORTED_MANAGER = "GB0142"  # "Unsupported context manager": the rest of the frame runs eagerly
# "Attempted to wrap RNN, GRU, or LSTM" (GM613): Dynamo gives up on the whole frame at the module's
# first use, so nothing after it there is traced (tests/fixtures/rules/GM613_recurrent_module_call.py)
RECURRENT_MODULE = "GB0014"
SELF = "<self>"  # the entry class list's marker for the method's own class
_SCALARS = frozenset({"int", "float", "str", "bool", "bytes", "complex", "None"})
# Bases that give an instance nothing Dynamo looks into (`has_tensor` only opens exact lists,
# tuples, dicts and namedtuples: a subclass of `dict` is opaque to it).
_PLAIN_BASES = frozenset(
    {
        "object",
        "ABC",
        "abc.ABC",
        "Generic",
        "typing.Generic",
        "Protocol",
        "typing.Protocol",
        "dict",
        "list",
        "set",
        "Enum",
        "enum.Enum",
    }
)
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


class TensorNames:
    """The module's names of torch and numpy imports, found as words in a function's text."""

    __slots__ = ("_names", "_words")

    def __init__(self, names: list[str]) -> None:
        self._names = frozenset(names)
        self._words = re.compile(r"\b(?:" + "|".join(map(re.escape, names)) + r")\b")

    def search(self, text: str) -> bool:
        """`self._words.search(text) is not None`, tried only where a name occurs: led by `\\b`,
        the alternation gives `re` no literal to skip ahead to, so it tried every character.
        (`match` at an index sees the character before it, so its `\\b` is the search's.)"""
        for name in self._names:
            index = text.find(name)
            while index >= 0:
                if self._words.match(text, index):
                    return True
                index = text.find(name, index + 1)
        return False

    def __contains__(self, name: str) -> bool:
        return name in self._names


def tensor_modules(imported: dict[str, str]) -> TensorNames | None:
    """The module's names of torch and numpy imports (or of names from them: erring towards
    tracing), to search for as words; None when it imports neither."""
    names = sorted(name for name, origin in imported.items() if origin.split(".", 1)[0] in ("torch", "numpy"))
    return TensorNames(names) if names else None


def entry_classes(
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    text: str,
    is_method: bool,
    resolve: Callable[[ast.expr], str | None],
    tensor_names: TensorNames | None,
    enclosing: tuple[ast.FunctionDef | ast.AsyncFunctionDef, ...] = (),
) -> tuple[str, ...] | None:
    """What decides whether Dynamo traces this function (whose source is `text`) when code running
    eagerly calls it: None when it may (a parameter may hold a tensor, or its code reads a global
    that `tensor_names` finds); otherwise the classes its parameters are annotated with (SELF: the
    method's own), which the solver checks are no nn.Module and hold nothing Dynamo looks into.
    A generator: () (never). A nested function (`enclosing`: the functions around it) that reads
    a name one of them binds: None, its free variables are in the frame's f_locals too.
    Text searches first: this runs on every function of the tree."""
    if "yield" in text and is_generator(node):
        return ()
    args = node.args
    if args.vararg is not None or args.kwarg is not None:
        return None
    if enclosing and _captures(node, enclosing):
        return None
    classes: list[str] = [SELF] if is_method else []
    for param in [*args.posonlyargs, *args.args, *args.kwonlyargs][1 if is_method else 0 :]:
        annotated = _annotation_class(param.annotation, resolve)
        if annotated is None:
            return None
        if annotated:
            classes.append(annotated)
    if (tensor_names is not None and tensor_names.search(text)
            and any(name in tensor_names for name in _names_read(node))):  # the first one decides
        return None
    return tuple(dict.fromkeys(classes))


def with_tails(node: ast.FunctionDef | ast.AsyncFunctionDef, text: str) -> tuple[tuple[int, int, int], ...]:
    """Per `with` of the function's own body (whose source is `text`): (first and last line of its
    header, last line of the block it is in), the lines that run after it in that block, the `with`
    body included."""
    found: list[tuple[int, int, int]] = []
    if "with" not in text:
        return ()
    for block in _blocks(node.body):
        tail = block[-1].end_lineno or block[-1].lineno
        for statement in block:
            if isinstance(statement, (ast.With, ast.AsyncWith)):
                found.append((statement.lineno, max(statement.lineno, statement.body[0].lineno - 1), tail))
    return tuple(found)


def traced_only(
    program: Program, found: list[TracedDraft], holds: Callable[[FunctionId, Kind], bool],
    loop_rests: dict[FunctionId, list[tuple[int, int]]] | None = None,
) -> list[TracedDraft]:
    """`found` without the drafts Dynamo never traces: those after a `with` it cannot enter, in the
    same frame (the `with` body and the rest of its block), after a read it cannot resume from or a
    recurrent module's first use in its function, from the rows of `loop_rests` on (loop_calls.py;
    not the comprehensions, frames of their own), and those of the functions it only ever enters
    from code running eagerly and then skips (`holds`: the solver's, whether a call passes a tensor)."""
    loop_rests = loop_rests or {}
    eager_rows = {fid: list(rests) for fid, rests in loop_rests.items()}
    # the rests a recurrent module leaves: the rest, loops', managers' and loads', still runs each
    # comprehension as a frame of its own, which breaks (tests/test_frame_skipping_reads.py)
    recurrent_rows: dict[FunctionId, list[tuple[int, int]]] = {}
    for traced_draft in found:
        draft = traced_draft.draft
        fid = (traced_draft.module.module, traced_draft.function.qualname)
        if draft.gb_id == RECURRENT_MODULE or (_unrebuildable_call(traced_draft) and not _in_an_arm(draft)):
            tail = _tail(program, traced_draft)
            eager_rows.setdefault(fid, []).append((draft.end_row + 1, tail))
            if draft.gb_id == RECURRENT_MODULE:
                recurrent_rows.setdefault(fid, []).append((draft.end_row + 1, tail))
        if (draft.gb_id != UNSUPPORTED_MANAGER and not _builds_the_manager(draft)) or _entered_input(traced_draft):
            continue
        headers = [
            (end, tail) for start, end, tail in traced_draft.function.with_tails if start <= draft.row <= end
        ]
        for end, tail in headers:
            # the header's calls (building the manager) are traced, what follows is not
            eager_rows.setdefault(fid, []).append((end + 1, tail))
        if not headers and _breaks_on_a_load(draft) and not _in_an_arm(draft):
            eager_rows.setdefault(fid, []).append((draft.row + 1, _tail(program, traced_draft)))
    if not eager_rows:
        return found
    eager_only = program.traced_functions() - _traced_reach(program, eager_rows, holds)
    kept: list[TracedDraft] = []
    for traced_draft in found:
        fid = (traced_draft.module.module, traced_draft.function.qualname)
        row = traced_draft.draft.row
        regions = recurrent_rows.get(fid, []) if _own_frame(traced_draft) else eager_rows.get(fid, [])
        if fid not in eager_only and not any(start <= row <= tail for start, tail in regions):
            kept.append(traced_draft)
    return kept


def _unrebuildable_call(traced_draft: TracedDraft) -> bool:
    """A breaking method bound to a tensor subclass's instance (GM662, subclass_methods.py): Dynamo
    cannot rebuild it and runs the rest of the frame eagerly (measured on torch 2.13: a print after
    the call does not break, tests/test_subclass_methods.py)."""
    return any(traced_draft.draft is draft for _, _, draft in traced_draft.function.subclass_method_drafts)


def _own_frame(traced_draft: TracedDraft) -> bool:
    """A comprehension's draft (skipped_frames.py): it breaks in a frame of its own, eager rest or not."""
    return any(traced_draft.draft is draft for _, _, draft, _ in traced_draft.function.skipped_frame_drafts)


def _entered_input(traced_draft: TracedDraft) -> bool:
    """A `with` that breaks only once the function runs as a frame of its own (own_frame_managers.py):
    Dynamo met what follows it when it first traced the function inlined, so nothing turns eager."""
    return any(traced_draft.draft is draft and not held.startswith("local:")
               for held, _, draft in traced_draft.function.own_frame_context_drafts)


def _builds_the_manager(draft: Draft) -> bool:
    """Whether the draft's span is a manager a one-line `with` builds (`with np.errstate(...):`, GB0294):
    the call breaks, so the manager is built eagerly and the resumed frame cannot enter it (GB0142,
    "Failed to handle graph break gracefully"; measured on torch 2.13, torchio's `Transform.__call__`).
    A break in an argument (`with torch.autocast(device_type=get())`) resumes before the manager is built.
    A draft with no Dynamo id (a manager whose body breaks: Dynamo goes back to the `with`) builds nothing."""
    if not draft.gb_id or draft.row != draft.end_row:
        return False
    head, after = draft.source_line[: draft.column - 1].strip(), draft.source_line[draft.end_column - 1 :].lstrip()
    opened = head in ("with", "async with") or (head.startswith(("with ", "async with ")) and head.endswith(","))
    return opened and after.startswith((":", ",", "as "))


def _tail(program: Program, traced_draft: TracedDraft) -> int:
    """The last line of the frame's eager rest after the draft's break: the end of the conditional
    block holding it, else of the function."""
    return tail_in(program.conditional_spans(traced_draft.module, traced_draft.function), traced_draft.draft.row)


def _in_an_arm(draft: Draft) -> bool:
    """Whether the draft's call or read is in an arm of a conditional expression (not an `isinstance` test's
    body, which the receiver's signed class takes) or in an operand of `and`/`or` after the first,
    on its one-line statement: it runs on some calls only, and the calls that skip it trace the
    rest of the frame (measured on torch 2.13, tests/test_subclass_methods.py). A statement spanning
    lines is not looked into."""
    line = draft.source_line
    return in_an_arm(line, len(line[: draft.column - 1].encode("utf-8")))  # the call's column, as ast counts it


def in_an_arm(line: str, byte_column: int) -> bool:
    """Whether what starts at `byte_column` (an ast column) of the one-line statement `line` is in
    an arm of a conditional expression or an operand of `and`/`or` after the first (_in_an_arm)."""
    text = line.strip()
    if "if" not in text and " and " not in text and " or " not in text:
        return False
    try:
        statement = ast.parse(text)
    except SyntaxError:
        return False
    column = byte_column - (len(line) - len(line.lstrip()))
    arms: list[ast.expr] = []
    for node in ast.walk(statement):
        if isinstance(node, ast.IfExp):
            arms += [node.orelse] if _is_isinstance(node.test) else [node.body, node.orelse]
        elif isinstance(node, ast.BoolOp):
            arms += node.values[1:]
    return any(isinstance(inner, ast.expr) and inner.lineno == 1 and inner.col_offset == column
               for arm in arms for inner in ast.walk(arm))


def _is_isinstance(test: ast.expr) -> bool:
    return isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"


def _breaks_on_a_load(draft: Draft) -> bool:
    """Whether the draft's span is a read (`self.scale`: a cached_property's lock entered while
    loading an attribute), not a call. Dynamo resumes after a call that breaks (its CALL handlers
    are `break_graph_if_unsupported`), but not after a load: "Encountered graph break that we
    cannot resume from ... skipping the rest of the function" (symbolic_convert.py, `step`)."""
    if draft.row != draft.end_row:
        return False
    text = draft.source_line[draft.column - 1 : draft.end_column - 1]
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return False
    return isinstance(node, (ast.Attribute, ast.Name))


def _traced_reach(
    program: Program,
    eager_rows: dict[FunctionId, list[tuple[int, int]]],
    holds: Callable[[FunctionId, Kind], bool],
) -> set[FunctionId]:
    """The functions Dynamo traces, walking calls from the entry points: a call made eagerly (in a
    region of `eager_rows`, or anywhere in a skipped frame) enters its callee as a frame of its own,
    traced whatever its annotations say when the call passes a tensor (`meter.update(loss.sum())`
    into `value: float`). A public callable the library scope roots (not a forward, not a declared
    entry point) that another entry point calls is entered through that call: the package's own
    hook (torchio's `RandomAffine.apply_transform`, which `Transform.__call__` runs inside a `with`
    Dynamo cannot enter) is what users reach through the public call that runs it, and is walked
    as an entry point of its own only when no other entry point's walk reaches it (a cycle)."""
    skipped: dict[FunctionId, bool] = {}

    def entered(callee: FunctionId) -> tuple[FunctionId, bool]:
        if callee not in skipped:
            skipped[callee] = skipped_when_entered(program, callee)
        return callee, not skipped[callee]

    traced: set[FunctionId] = set()
    eager: set[FunctionId] = set()

    def walk(queue: deque[tuple[FunctionId, bool]]) -> None:
        while queue:
            fid, is_traced = queue.popleft()
            seen = traced if is_traced else eager
            if fid in seen or fid not in program.traced_functions():
                continue
            seen.add(fid)
            regions = eager_rows.get(fid, []) if is_traced else None
            by_site: set[FunctionId] = set()
            for site in program.function(fid).calls:
                runs_eagerly = regions is None or any(start <= site.row <= tail for start, tail in regions)
                if runs_eagerly and any(
                    holds(fid, kind) for kind in (*site.args, *(kind for _, kind in site.kwargs))
                ):
                    runs_eagerly = False  # the callee's frame holds a tensor: Dynamo traces it
                for callee in program.resolve_call(fid, site.ref):
                    by_site.add(callee)
                    queue.append(entered(callee) if runs_eagerly else (callee, True))
            for other in program.successors(fid):
                if other not in by_site:  # references, decorators, hooks: entered as they are traced
                    queue.append((other, True) if is_traced else entered(other))

    entries = program.entry_points()
    hooks = _called_by_another(program, entries, entries - program.model_entry_points())
    walk(deque((fid, True) for fid in entries if fid not in hooks))
    walk(deque((fid, True) for fid in hooks if fid not in traced and fid not in eager))
    return traced


def _called_by_another(program: Program, callers: set[FunctionId], candidates: set[FunctionId]) -> set[FunctionId]:
    """Those of `candidates` that a function of `callers` other than themselves calls."""
    called: set[FunctionId] = set()
    if not candidates:
        return called
    for fid in callers:
        if fid not in program.traced_functions():
            continue
        for site in program.function(fid).calls:
            called.update(callee for callee in program.resolve_call(fid, site.ref) if callee in candidates and callee != fid)
    return called


def skipped_when_entered(program: Program, fid: FunctionId) -> bool:
    """Whether Dynamo skips this function's frame when code running eagerly calls it."""
    function = program.function(fid)
    classes = function.eager_entry
    if classes is None:
        return False
    for name in classes:
        if name == SELF:
            # Dynamo looks at the instance, which may be any subclass's: a plain mixin's methods
            # run on nn.Modules (transformers' ModuleUtilsMixin), and a classmethod's `cls` is one.
            own = (fid[0], function.class_qualname) if function.class_qualname is not None else None
            if own is None or not all(
                _plain_class(program, *cls, set()) for cls in (own, *program.hierarchy.descendants(own))
            ):
                return False
            continue
        found = program.resolve_class(fid[0], name)
        if found is None or not _plain_class(program, *found, set()):
            return False
    return True


def _plain_class(program: Program, module: str, qualname: str, seen: set[tuple[str, str]]) -> bool:
    """A class of the tree whose instances hold nothing Dynamo's frame test looks into: every base
    plain Python or such a class of the tree (an nn.Module or a namedtuple is not)."""
    if (module, qualname) in seen:
        return True
    seen.add((module, qualname))
    summary = program.modules[module].classes.get(qualname)
    if summary is None or program.is_module_class(module, qualname):
        return False
    for base in summary.bases:
        if base in _PLAIN_BASES:
            continue
        found = program.resolve_class(module, base)
        if found is None or not _plain_class(program, *found, seen):
            return False
    return True


def _annotation_class(annotation: ast.expr | None, resolve: Callable[[ast.expr], str | None]) -> str | None:
    """ "" for a Python scalar (or None), the qualified class an annotation names, None otherwise."""
    if annotation is None:
        return None
    parts = _union_parts(annotation)  # a string annotation is one part: class_annotation reads it
    if all(
        dotted_name(part) in _SCALARS or (isinstance(part, ast.Constant) and part.value is None)
        for part in parts
    ):
        return ""
    if len(parts) == 1 or (
        len(parts) == 2 and any(isinstance(p, ast.Constant) and p.value is None for p in parts)
    ):
        return class_annotation(annotation, resolve)
    return None


def _union_parts(annotation: ast.expr) -> list[ast.expr]:
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return [*_union_parts(annotation.left), *_union_parts(annotation.right)]
    if isinstance(annotation, ast.Subscript) and dotted_name(annotation.value) in (
        "Optional",
        "typing.Optional",
    ):
        return [annotation.slice, ast.Constant(None)]
    return [annotation]


def _names_read(node: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[str]:
    """The names the function's own code object holds (co_names): globals and attributes it
    reads, not those of nested functions, lambdas and comprehensions (whose first iterable it
    evaluates itself)."""
    pending: list[ast.AST] = list(node.body)
    while pending:
        current = pending.pop()
        if isinstance(current, ast.Name):
            yield current.id
        elif isinstance(current, ast.Attribute):
            yield current.attr
        elif isinstance(current, (ast.Import, ast.ImportFrom)):
            yield from (alias.asname or alias.name.split(".")[0] for alias in current.names)
        if isinstance(current, _NESTED):
            pending.extend(getattr(current, "decorator_list", []))
            if not isinstance(current, ast.ClassDef):
                pending.extend(
                    d for d in (*current.args.defaults, *current.args.kw_defaults) if d is not None
                )
            continue
        if isinstance(current, _COMPREHENSIONS):
            pending.append(current.generators[0].iter)
            continue
        pending.extend(child_nodes(current))  # no context or operator is looked for


def _captures(
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    enclosing: tuple[ast.FunctionDef | ast.AsyncFunctionDef, ...],
) -> bool:
    """Whether the nested function reads a name an enclosing function binds (erring towards yes:
    any binding anywhere in them counts, and only the function's own scope's shadow it)."""
    outside: set[str] = set()
    for function in enclosing:
        outside |= _bound_anywhere(function)
    own = _bound(_own_scope(node)) | {a.arg for a in every_node(node.args) if isinstance(a, ast.arg)}
    free = outside - own
    return any(
        isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Store) and n.id in free for n in every_node(node)
    )


@functools.lru_cache(maxsize=16)
def _bound_anywhere(function: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
    """`_bound` of every node of `function`: asked again for each function nested in it (the
    nodes are the keys, held by the cache, so no id is reused while they are in it)."""
    return frozenset(_bound(every_node(function)))


def _bound(nodes: Iterable[ast.AST]) -> set[str]:
    names: set[str] = set()
    for current in nodes:
        if isinstance(current, ast.Name) and isinstance(current.ctx, (ast.Store, ast.Del)):
            names.add(current.id)
        elif isinstance(current, ast.arg):
            names.add(current.arg)
        elif isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(current.name)
        elif isinstance(current, (ast.Import, ast.ImportFrom)):
            names.update(alias.asname or alias.name.split(".")[0] for alias in current.names)
        elif isinstance(current, ast.ExceptHandler) and current.name:
            names.add(current.name)
    return names


def _own_scope(node: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[ast.AST]:
    """The nodes of the function's own scope: not those inside nested functions, classes,
    lambdas and comprehensions (whose names are theirs), though their own names are bound here."""
    pending: list[ast.AST] = list(node.body)
    while pending:
        current = pending.pop()
        yield current
        if not isinstance(current, (*_NESTED, *_COMPREHENSIONS)):
            pending.extend(child_nodes(current))  # no context or operator is looked for


def is_generator(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    pending: list[ast.AST] = list(node.body)
    while pending:
        current = pending.pop()
        if isinstance(current, (ast.Yield, ast.YieldFrom)):
            return True
        if not isinstance(current, (*_NESTED, *_COMPREHENSIONS)):
            pending.extend(child_nodes(current))  # no context or operator is looked for
    return isinstance(node, ast.AsyncFunctionDef)


def _blocks(body: list[ast.stmt]) -> Iterator[list[ast.stmt]]:
    """The statement lists of a body and of the compound statements in it, not of nested functions."""
    pending = [body]
    while pending:
        block = pending.pop()
        if not block:
            continue
        yield block
        for statement in block:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(statement, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    pending.append(inner)
            for handler in getattr(statement, "handlers", []):
                pending.append(handler.body)
            for case in getattr(statement, "cases", []):
                pending.append(case.body)
