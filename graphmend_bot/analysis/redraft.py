"""An edit of traced code that changes only what its findings are: the edited module's findings
made again, the rest of the last solve kept.

Most edits of a traced function leave everything the scope solver consumes from it as it was: a
`print`, an `.item()`, a new local computation or a comment adds or removes drafts (findings that
stand when the function is traced and their Kind holds) and moves rows. The solve reads a
function's calls, references, decorators, signature and seeds, returns, attribute writes and the
consequence drafts (GM605/606/609/611); its plain `drafts` only through whether one stands (the
function then "breaks", and so does every traced caller: GM605 and the frames run eagerly), and
rows only through their order within the function (what runs after a break). So when, for every
function of the edited module, the summary is the old one up to the order-preserving renumbering
of its rows, and apart from its drafts, and each function whose drafts changed breaks by its own
findings exactly when it did (and holds no objects whose frame a break makes eager), the solve
settles the same traced functions, the same tensors and the same breaking functions, hence the
same findings in every other module. A function may also start or stop breaking when no
consequence pass asked whether it or a traced caller of it breaks (scope.BreakingFunctions records
each question, `FunctionFacts.break_asked`): the breaking functions then differ only where no
finding depends on them. The edited module's findings are then its new drafts that
hold, and the consequence drafts that stood, at their new rows.

Whether a draft holds is decided from the facts the solve left (`FunctionFacts`): the atoms of
its Kinds (parameters, `self.NAME`, call results) that were tensors. A new draft naming an atom the
solve was not asked about (a new `self.NAME`, another tuple element) is not decided: solve again.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any

from graphmend_bot.analysis.generator_breaks import up_to_first_break
from graphmend_bot.analysis.model import CallSite, Draft, FunctionSummary, ModuleSummary
from graphmend_bot.analysis.modes import modes_named, named
from graphmend_bot.vocabulary.kind import CallResult, Kind

if TYPE_CHECKING:
    from graphmend_bot.analysis.scope import FunctionId, Program

# The lists of drafts the consequence passes and the str-Enum flow report from, and where the
# draft sits in an element of each. Their findings stand by what the solve decided elsewhere.
CONSEQUENCE_LISTS = {
    "str_method_drafts": 1, "callee_break_drafts": 1, "held_object_drafts": 2, "metaclass_call_drafts": None,
    "module_init_drafts": 1, "skipped_frame_drafts": 2, "dependency_call_drafts": 1, "typed_dict_drafts": 1, "pydantic_drafts": 1, "apply_drafts": 1,
    "subclass_method_drafts": 2,
    "getattribute_drafts": 1, "dispatch_mode_drafts": 1,
    "held_context_drafts": 1, "own_frame_context_drafts": 2, "held_method_drafts": 2, "entered_manager_drafts": 2, "try_body_drafts": 3, "breaking_read_drafts": 3,
    "built_manager_drafts": 2, "manager_body_drafts": 5,
    "super_object_drafts": 1, "object_operand_drafts": 1, "mask_index_drafts": 1,
    "scalar_index_drafts": 1, "held_rank_drafts": 1, "subclass_init_drafts": 1,
    "passed_rank_drafts": 1,
}


@dataclass(frozen=True)
class FunctionFacts:
    """What the solve settled for one traced function, as far as its own findings go."""

    true_atoms: tuple[str, ...]  # its tensor parameters, and the atoms of its Kinds that held (`atom_name`)
    standing: tuple[tuple[str, int], ...]  # the consequence drafts that stood: (list, index), in order
    other_seed: bool  # a finding stood in it that is none of its `drafts` (a str-Enum method call)
    breaks: bool  # it broke: by a finding of its own, or a traced callee that broke (scope._breaking)
    # a consequence pass asked whether it breaks, or a traced function that calls it (transitively):
    # then whether it breaks is part of the result (scope.BreakingFunctions)
    break_asked: bool
    # its parameters some call in the tree does not pass a tensor (caller_arguments.py), for the
    # findings made again from its drafts
    unproven: tuple[tuple[str, str], ...] = ()
    # per entry of `standing`, the modes its finding's message added to the draft's (callee_modes.py)
    standing_modes: tuple[tuple[str, ...], ...] = ()
    # it breaks, and only in a mode: every usual break it reaches names the same (callee_modes.py)
    mode_only: bool = False


def atom_name(param: str | None = None, call: CallResult | None = None) -> str:
    """A parameter or `self.NAME` as written; a call site's result as "@3", an element as "@3.1"."""
    if call is None:
        return param or ""
    return f"@{call.site}" if call.element is None else f"@{call.site}.{call.element}"


def _atoms(kind: Kind) -> Iterator[str]:
    yield from kind.params
    for call in kind.calls:
        yield atom_name(call=call)


def _kinds(function: FunctionSummary) -> Iterator[Kind]:
    """The Kinds of a function the solve may be asked about."""
    for draft in _drafts(function):
        yield draft.deps
        yield draft.suppressed_if
        yield draft.any_mode_if
    for site in function.calls:
        yield from site.args
        yield from (kind for _, kind in site.kwargs)
    yield function.returns
    yield from function.return_elements or ()
    yield from (kind for _, kind in function.attribute_writes)
    yield from (kind for _, kind, _, _ in function.skipped_frame_drafts)
    yield from (kind for _, kind, _, _ in function.try_body_drafts)


def _drafts(function: FunctionSummary) -> Iterator[Draft]:
    yield from function.drafts
    for name in CONSEQUENCE_LISTS:
        yield from (draft for _, draft in _consequence_drafts(function, name))


def _consequence_drafts(function: FunctionSummary, name: str) -> list[tuple[int, Draft]]:
    position = CONSEQUENCE_LISTS[name]
    return [(index, item if position is None else item[position]) for index, item in enumerate(getattr(function, name))]


def _asked_atoms(function: FunctionSummary) -> set[str]:
    """The atoms whose truth the facts keep: those in the function's Kinds that a parameter's own
    entry does not settle (a parameter not among the true ones is no tensor), and every call site."""
    asked = {atom_name(call=CallResult(site)) for site in range(len(function.calls))}
    for kind in set(_kinds(function)):  # most Kinds repeat (the arguments of a function's calls)
        asked.update(name for name in kind.params if name.startswith("self."))
        asked.update(atom_name(call=call) for call in kind.calls if call.element is not None)
    return asked


def solved_facts(program: Program) -> dict[str, dict[str, FunctionFacts]]:
    """Module -> qualname -> FunctionFacts of each traced function of the program traced_drafts solved."""
    if program.solved is None:
        return {}
    solver, seeds, found = program.solved
    breaking = program.breaking_functions()
    in_modes = program.callee_modes
    asked = _callees_of(program.break_asked, solver.targets)
    standing: dict[FunctionId, list[tuple[str, int]]] = {}
    standing_modes: dict[FunctionId, list[tuple[str, ...]]] = {}
    other: set[FunctionId] = set()
    places: dict[FunctionId, dict[int, tuple[str, int] | None]] = {}

    def place(fid: FunctionId, draft: Draft) -> tuple[str, int] | None:
        """(list, index) of a consequence draft of `fid`, None for one of its plain drafts."""
        if fid not in places:
            function = program.function(fid)
            places[fid] = {id(d): None for d in function.drafts}
            for name in CONSEQUENCE_LISTS:
                for index, d in _consequence_drafts(function, name):
                    places[fid].setdefault(id(d), (name, index))
        return places[fid].get(id(draft), ("", -1))

    for traced in seeds:
        fid = (traced.module.module, traced.function.qualname)
        if place(fid, traced.made_from or traced.draft) is not None:
            other.add(fid)
    for traced in found:
        fid = (traced.module.module, traced.function.qualname)
        where = place(fid, traced.made_from or traced.draft)
        if where is not None:
            standing.setdefault(fid, []).append(where)
            added = traced.made_from is not None and traced.made_from.message != traced.draft.message
            standing_modes.setdefault(fid, []).append(tuple(modes_named(traced.draft.message)) if added else ())
    facts: dict[str, dict[str, FunctionFacts]] = {}
    unproven = program.unproven_parameters(solver.params)  # for the drafts an edit may add, too
    for fid, values in solver.params.items():
        function = program.function(fid)
        true = sorted({name for name, value in values.items() if value} | {
            atom for atom in _asked_atoms(function) if solver.holds(fid, _kind_of(atom))})
        facts.setdefault(fid[0], {})[fid[1]] = FunctionFacts(tuple(true), tuple(standing.get(fid, ())), fid in other,
                                                             fid in breaking, fid in asked, unproven.get(fid, ()),
                                                             _modes_if_any(standing_modes.get(fid, ())),
                                                             in_modes is not None and fid in breaking and bool(in_modes.modes((fid,))))
    for fid, places_found in standing.items():  # an untraced metaclass `__call__` an eager frame runs (GM610)
        if fid not in solver.params:
            facts.setdefault(fid[0], {})[fid[1]] = FunctionFacts((), tuple(places_found), False, False, True, (),
                                                                 _modes_if_any(standing_modes.get(fid, ())))
    return facts


def _modes_if_any(modes: Iterable[tuple[str, ...]]) -> tuple[tuple[str, ...], ...]:
    """The standing consequences' added modes, () when none added any (most functions)."""
    found = tuple(modes)
    return found if any(found) else ()


def _callees_of(functions: set[FunctionId], targets: Mapping[tuple[FunctionId, int], list[FunctionId]]
                ) -> set[FunctionId]:
    """`functions` and every function their calls may run, transitively: those whose starting or
    stopping to break can change whether one of `functions` breaks (a break reaches the callers)."""
    callees: dict[FunctionId, set[FunctionId]] = {}
    for (caller, _), called in targets.items():
        callees.setdefault(caller, set()).update(called)
    reached, stack = set(functions), list(functions)
    while stack:
        for callee in callees.get(stack.pop(), ()):
            if callee not in reached:
                reached.add(callee)
                stack.append(callee)
    return reached


def _kind_of(atom: str) -> Kind:
    if not atom.startswith("@"):
        return Kind.of_param(atom)
    site, _, element = atom[1:].partition(".")
    return Kind(calls=frozenset({CallResult(int(site), int(element) if element else None)}))


class _Undecided(Exception):
    """A Kind names an atom the facts do not settle."""


def _holds(kind: Kind, true: set[str], asked: set[str]) -> bool:
    if kind.always:
        return True
    for atom in _atoms(kind):
        if atom.startswith(("self.", "@")) and atom not in asked:
            raise _Undecided(atom)
        if atom in true:
            return True
    return False


def _stands(draft: Draft, true: set[str], asked: set[str]) -> bool:
    if not _holds(draft.deps, true, asked):
        return False
    if any(atom in true for atom in _atoms(draft.length_tested)):
        # whether the callees return collections there (scope._TensorFlow.tested) is no fact kept
        raise _Undecided("length-tested call result")
    return not _holds(draft.suppressed_if, true, asked)


def _in_its_mode(draft: Draft, true: set[str], asked: set[str]) -> Draft:
    """The draft as the solve reports it: without its mode when `any_mode_if` holds (scope.traced_drafts)."""
    if draft.any_mode_message is not None and _holds(draft.any_mode_if, true, asked):
        return draft.in_every_mode()
    return draft


# ---- the edit's shape -----------------------------------------------------------------------
def _shape(function: FunctionSummary, with_drafts: bool) -> tuple[Any, ...]:
    """Everything the solve reads of `function`, rows by their rank within it (their order is all
    it reads), and its plain drafts only `with_drafts`."""
    rows = {site.row for site in function.calls} | {row for _, row in function.local_objects}
    rows.update(draft.row for name in CONSEQUENCE_LISTS for _, draft in _consequence_drafts(function, name))
    if with_drafts:
        rows.update(draft.row for draft in function.drafts)
    rows.add(function.sorts_keyword_items)
    rows.update(row for *_, first, last in (*function.param_guards, *function.default_guards) for row in (first, last))
    rank = {row: index for index, row in enumerate(sorted(rows))}

    def draft_shape(draft: Draft) -> tuple[Any, ...]:  # what the solve reads of a draft: no text
        return (draft.code, draft.gb_id, draft.deps, draft.suppressed_if, draft.any_mode_if, draft.length_tested, draft.rare,
                rank[draft.row], draft.column)

    def site_shape(site: CallSite) -> tuple[Any, ...]:
        return (site.ref, site.args, site.kwargs, site.bound, rank[site.row])

    shaped: list[Any] = []
    for name in _FIELDS:
        value = getattr(function, name)
        if name == "drafts":
            value = tuple(map(draft_shape, value)) if with_drafts else None
        elif name == "calls":
            value = tuple(map(site_shape, value))
        elif name == "local_objects":
            value = tuple((site, rank[row]) for site, row in value)
        elif name == "sorts_keyword_items":
            value = rank[value]
        elif name in ("param_guards", "default_guards"):
            value = tuple((*guard[:3], rank[guard[3]], rank[guard[4]]) for guard in value)
        elif name in CONSEQUENCE_LISTS:
            position = CONSEQUENCE_LISTS[name]
            value = tuple(draft_shape(item) if position is None else
                          (*item[:position], draft_shape(item[position]), *item[position + 1:]) for item in value)
        shaped.append(value)
    return tuple(shaped)


_FIELDS = tuple(f.name for f in fields(FunctionSummary) if f.compare)  # conditional_spans: read as text
_MODULE_PARTS = tuple(f.name for f in fields(ModuleSummary) if f.name not in ("path", "functions"))


def same_module_parts(old: ModuleSummary, new: ModuleSummary) -> bool:
    """Whether all but the functions of a module's summary is as it was (imports, classes, registries...)."""
    return old.module == new.module and all(getattr(old, part) == getattr(new, part) for part in _MODULE_PARTS)


def redrafted(old: ModuleSummary, new: ModuleSummary, traced: Iterable[str],
              facts: Mapping[str, FunctionFacts]) -> list[tuple[FunctionSummary, Draft]] | None:
    """The findings of the edited module `new` as (function, draft), in the order the solve makes
    them, when the edit from `old` changed only what its findings are (module docstring); None
    otherwise. `traced`: its traced qualnames, `facts`: theirs. `new` holds the untraced functions
    of `old` up to rows and drafts (`without_untraced_edits`), and every traced one."""
    if not same_module_parts(old, new):
        return None
    traced = set(traced)
    direct: list[tuple[FunctionSummary, Draft]] = []
    consequences: list[tuple[FunctionSummary, Draft]] = []
    try:
        # The traced functions, and the untraced ones with findings (facts without a traced function's)
        for qualname in sorted(traced | facts.keys()):
            before, after, known = old.functions.get(qualname), new.functions.get(qualname), facts.get(qualname)
            if before is None or after is None or known is None:
                return None
            if qualname in traced:
                true, asked = set(known.true_atoms), _asked_atoms(before)
                if _shape(before, True) != _shape(after, True) and not _drafts_only(before, after, known, true, asked):
                    return None
                direct += [(after, _in_its_mode(draft, true, asked)) for draft in after.drafts
                           if _stands(draft, true, asked)]
            for position, (name, index) in enumerate(known.standing):
                if name not in CONSEQUENCE_LISTS or not 0 <= index < len(getattr(after, name)):
                    return None  # facts of another summary (a forged state)
                draft = _consequence_drafts(after, name)[index][1]
                if position < len(known.standing_modes) and known.standing_modes[position]:
                    draft = replace(draft, message=named(draft.message, list(known.standing_modes[position])))
                consequences.append((after, draft))
    except _Undecided:
        return None
    return up_to_first_break(direct + consequences, lambda found: found[0], lambda found: found[1])


def without_untraced_edits(old: ModuleSummary, new: ModuleSummary, traced: Iterable[str]) -> ModuleSummary:
    """`new` with the edits of its untraced functions undone (added ones dropped, removed ones and
    those whose solver-facing summary changed as in `old`): the edit from `old` to it is the edited
    traced code's (`redrafted`), the edit from it to `new` the untraced code's, which
    incremental.unseen_edits judges (a new helper below an edited forward)."""
    traced = set(traced)
    functions: dict[str, FunctionSummary] = {}
    for qualname in {**old.functions, **new.functions}:
        before, after = old.functions.get(qualname), new.functions.get(qualname)
        if after is not None and (qualname in traced or (
                before is not None and _shape(before, False) == _shape(after, False))):
            functions[qualname] = after
        elif before is not None and qualname not in traced:
            functions[qualname] = before
    return ModuleSummary(**{**{f.name: getattr(new, f.name) for f in fields(ModuleSummary)}, "functions": functions})


def _drafts_only(before: FunctionSummary, after: FunctionSummary, facts: FunctionFacts, true: set[str],
                 asked: set[str]) -> bool:
    """Whether a traced function's edit changed its plain drafts only, and not which functions break
    as far as the result tells; and it holds no object whose frame a break makes eager
    (held_objects.py reads its findings' rows), nor is an `__init__` whose rows under `if verbose:`
    a call may leave unrun (built_managers.py reads its findings' rows too).

    The breaking functions are those with a finding of their own and their traced callers,
    transitively. A function that starts breaking by its own findings changes nothing when it broke
    already (through a callee); one that stops may still break through a cycle back to itself. Either
    flip changes whether it and some of its traced callers break, and nothing else: that matters
    only when a consequence pass asked about one of them (`FunctionFacts.break_asked`)."""
    if _shape(before, False) != _shape(after, False) or after.local_objects or after.param_guards:
        return False  # which of its findings' rows an argument leaves unrun is read (built_managers.py)
    if any(first <= draft.row <= last for function in (before, after) for *_, first, last in function.default_guards
           for draft in function.drafts):
        return False  # a draft no call may run (none_fallbacks.dead_guards): the solve decides
    if facts.break_asked and _modes_changed(_usual_modes(before, true, asked), _usual_modes(after, true, asked), facts):
        return False  # a call into it may name the modes its breaks need (callee_modes.py)
    was, now = _breaks(before, facts, true, asked), _breaks(after, facts, true, asked)
    return was == now or (now and facts.breaks) or not facts.break_asked


def _modes_changed(before: set[tuple[str, ...]], after: set[tuple[str, ...]], facts: FunctionFacts) -> bool:
    """Whether the modes a call into the function names may change: the modes its own findings name,
    a finding in every mode (`()`) gone, or one added to a function that broke in a mode only."""
    every_before, every_after = () in before, () in after
    return (before - {()} != after - {()} or (every_before and not every_after)
            or (every_after and not every_before and facts.mode_only))


def _usual_modes(function: FunctionSummary, true: set[str], asked: set[str]) -> set[tuple[str, ...]]:
    """The modes each of its standing findings off error branches names."""
    return {tuple(modes_named(_in_its_mode(draft, true, asked).message))
            for draft in function.drafts if not draft.rare and _stands(draft, true, asked)}


def _breaks(function: FunctionSummary, facts: FunctionFacts, true: set[str], asked: set[str]) -> bool:
    """Whether a finding of the function's own stands: then it breaks, and its traced callers do."""
    return facts.other_seed or any(_stands(draft, true, asked) for draft in function.drafts)
