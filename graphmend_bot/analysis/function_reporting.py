"""The analyzer as the rules see it: the `Checker` API their detection hooks ask and report through.

A hook reports a `Draft` at a node: kept in the function's summary, either standing on its own
(`report`, when its deps make it a tensor in traced code) or waiting for the scope solver to say
whether a callee, a dependency, a held object or a skipped frame makes it break (`report_if_*`).
"""

from __future__ import annotations

import ast
import sys
from dataclasses import replace

from graphmend_bot.analysis import (
    argument_values,
    discarded_locals,
    index_reads,
    installed_packages,
    installed_skips,
    installed_wrappers,
    modes,
    narrowing,
    none_fallbacks,
    numpy_values,
    own_frame_managers,
    parameter_guards,
    passed_ranks,
    resume_points,
    skipped_frames,
    statement_forms,
    subclass_methods,
    tensor_rank,
    uninitialized_modules,
)
from graphmend_bot.analysis.columns import char_column
from graphmend_bot.analysis.function_state import FunctionState
from graphmend_bot.analysis.model import Draft
from graphmend_bot.analysis.returned_builds import calls_returned_on_every_path, passed_from_outside
from graphmend_bot.analysis.stdlib_objects import held_name
from graphmend_bot.rules import Rule
from graphmend_bot.vocabulary.compiled_code import CompiledModule
from graphmend_bot.vocabulary.kind import NOT_TENSOR, TENSOR, Kind


class FindingReporter(FunctionState):
    """The `Checker` (rules/detect.py) a detection hook is handed: what it may ask, where it reports."""

    @property
    def in_condition(self) -> bool:
        return self._test_depth > 0

    @property
    def entry_point(self) -> bool:
        return self.entry

    def is_scalar_tensor(self, node: ast.expr) -> bool:
        return tensor_rank.is_scalar(node, self._scalars, self._numbers, self.resolve_callee, self._one_dimensional)

    def bind_rank(self, name: str, value: ast.expr) -> None:
        """`name = value` binds a tensor whose rank its construction shows: 0-d or 1-d (tensor_rank.py)."""
        if tensor_rank.is_scalar(value, self._scalars, self._numbers, self.resolve_callee, self._one_dimensional):
            self._scalars.add(name)
        elif tensor_rank.iterates_scalars(value, self._one_dimensional, self.resolve_callee):
            self._one_dimensional.add(name)

    def note_scalar_arguments(self, site: int, node: ast.expr, ref: str) -> None:
        """Which arguments of the call just recorded are 0-d tensors by construction (passed_ranks.py)."""
        if not isinstance(node, ast.Call) or not (node.args or node.keywords) or ref.startswith(passed_ranks.NOT_IN_TREE):
            return
        none_fallbacks.note_site(self.summary, site, node)  # the arguments never None
        found = passed_ranks.scalar_arguments(node, self._scalars, self.is_scalar_tensor)
        if found:
            self.summary.scalar_arguments.append((site, found))

    def report_if_passed_ranks(self, rule: Rule, node: ast.expr, message: str, deps: Kind, key: ast.expr,
                               gb_id: str) -> None:
        """`grid[i]` with `i` 0-d when parameters are: the draft stands when every traced caller passes
        0-d tensors for them (passed_ranks.py)."""
        elements = [e for e in (key.elts if isinstance(key, ast.Tuple) else [key]) if not isinstance(e, ast.Slice)
                    and tensor_rank.is_scalar(e, passed_ranks.EVERY_NAME, self._numbers, self.resolve_callee)]
        if not elements:
            return  # 0-d by no names (`x[mask.nonzero()]`): no bindings to read
        if self._passed_ranks is None:
            self._passed_ranks = passed_ranks.Bindings(self.node, self.self_name)
        bindings: passed_ranks.Bindings = self._passed_ranks
        wanted: set[str] = set()
        for element in elements:
            wanted |= bindings.needs(element, self._scalars, self._numbers, self.resolve_callee,
                                     self._one_dimensional) or set()
        if wanted and (draft := self._draft(rule, node, message, deps, gb_id)) is not None:
            self.summary.passed_rank_drafts.append((tuple(sorted(wanted)), draft))

    def is_parameter_loop_variable(self, name: str) -> bool:
        return name in self._parameter_loops

    def bind_loop_scalar(self, target: ast.expr, iterable: ast.expr) -> None:
        """`for i in torch.arange(n)`, `for k, i in enumerate(perm)` with `perm = torch.randperm(n)`, and
        the same in a comprehension: `i` is a 0-d tensor (tensor_rank.loop_scalars)."""
        self._scalars.update(tensor_rank.loop_scalars(target, iterable, self._one_dimensional, self.resolve_callee))
        self._parameter_loops.update(statement_forms.parameter_loop_names(target, iterable))
        for name in tensor_rank.loop_numbers(target, iterable, self.resolve_callee):  # `for k in range(n)`
            self._number_bindings[name] = self._number_bindings.get(name, 0) + 1
            if self._number_bindings[name] == self._bindings.get(name, 0):
                self._numbers.add(name)

    def is_python_sequence(self, node: ast.expr) -> bool:
        return (
            isinstance(node, (ast.List, ast.Tuple, ast.ListComp))
            or (isinstance(node, ast.Name) and node.id not in self._dicts
                and (node.id in self._collections or node.id in self.tuples))
            or (isinstance(node, ast.Attribute) and node.attr == "shape")
            or (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range"
                and self.builtin_of(node.func) == "range")  # the name first: shadows are walked on demand
        )

    def is_ndarray(self, node: ast.expr) -> bool:
        return numpy_values.is_ndarray(node, self._ndarrays, self.resolve)

    def is_context_manager(self, node: ast.expr) -> bool:
        return id(node) in self._context_managers

    def runs_only_for_python_argument(self, call: ast.Call) -> bool:
        return narrowing.runs_only_for_python_argument(self.node, call, self.resolve, self.builtin_of, self._module_functions)

    def annotated_tensor(self, name: str) -> bool:
        return name in self._annotated_tensors

    def kind_of(self, node: ast.expr) -> Kind:
        return self._kinds.get(id(node), NOT_TENSOR) if self._kinds is not None else NOT_TENSOR

    def closure_kind(self, node: ast.expr) -> Kind | None:
        return self._closures.get(node.id) if isinstance(node, ast.Name) else None

    def local_def(self, node: ast.expr) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        if not isinstance(node, ast.Name):
            return None
        defs = [d for d in ast.walk(self.node) if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef))
                and d.name == node.id and d is not self.node]
        return defs[0] if len(defs) == 1 else None

    def built_collection(self, node: ast.expr) -> bool:
        return (isinstance(node, ast.Name) and node.id in self._collections
                and self._collection_bindings.get(node.id, 0) == self._bindings.get(node.id, 0))

    def installed(self, package: str) -> bool:
        return bool(installed_packages.installed_package(package))

    def installed_class(self, name: str) -> bool:
        return installed_packages.python_class(name)

    def compiled_module(self, name: str) -> CompiledModule | None:
        return installed_packages.extension_callee(name)

    def compiled_inside(self, name: str) -> tuple[str, CompiledModule] | None:
        return installed_wrappers.compiled_call_inside(name)

    def skipped_inside(self, name: str) -> tuple[str, str] | None:
        return installed_skips.skipped_call_inside(name)

    def built_outside(self, node: ast.expr) -> list[str]:
        if isinstance(node, ast.Name):
            return [self.built_by[node.id]] if node.id in self._built_on_every_path else []
        if not isinstance(node, ast.Call):
            return []
        if (resolved := self.resolve(node.func)) is not None:
            return [resolved]
        helper = self.guard_helpers.function(node.func.id) if (
            isinstance(node.func, ast.Name) and self.guard_helpers is not None) else None
        calls, passed = ([], set()) if helper is None else calls_returned_on_every_path(helper)
        if passed and helper is not None and not passed_from_outside(
                helper, passed, node, set(self.summary.params) - self._rebound):
            return []  # the helper may hand back a value this function made, as it is
        names = [name for call in calls if (name := self.resolve(call.func)) is not None]
        return names if len(names) == len(calls) else []  # every path returns what a known callee builds

    def resumed_input(self, node: ast.expr) -> Kind:
        """When `node`'s value is an input of the frame Dynamo resumes in: a local or a display of locals and constants
        (`(left, right)`), each bound before a top-level break since; those breaks' kinds (NOT_TENSOR: none, or it computes)."""
        names = resume_points.resume_names(node)
        if not names:
            return NOT_TENSOR
        since = max(self._bound_before.get(name, 0) for name in names)
        return Kind.union([resume_points.unconditional_kind(*point, self.lines) for point in self._resume_points[since:]])

    def report(
        self, rule: Rule, node: ast.AST, message: str, deps: Kind, gb_id: str | None = None, mode: str | None = None,
        unless: Kind = NOT_TENSOR, own_frame: bool = False,
    ) -> None:
        with modes.entered(self._modes, mode):
            draft = self._draft(rule, node, message, deps, gb_id, own_frame=own_frame)
        if draft is None:
            return
        if unless:
            draft = replace(draft, suppressed_if=draft.suppressed_if | unless)
        self.summary.drafts.append(draft)
        in_loop = self._loop_depth or statement_forms.consumes_generator(node)  # `all(t > 0 for t in ts)`: in its loop
        if (in_loop or (self._try_depth and self._frame_skips.ends_frame(node))) and not self._rare_depth:
            # a break in a loop, a generator or a `try` body leaves the rest eager; a rare branch's, if taken (test_try_body_rest.py)
            self._eager_after = self._eager_after | deps.without_flags()
        if not self._rare_depth:
            self._usual_draft_kinds.append(deps.without_flags())
        if in_loop or self._try_depth or draft.gb_id == "GB0142":  # nor after a `with` it cannot enter
            self._frame_skips.draft(deps.without_flags(), bool(in_loop), self._rare_depth > 0, node)

    def _draft(self, rule: Rule, node: ast.AST, message: str, deps: Kind, gb_id: str | None,
               by_extent: bool = False, own_frame: bool = False) -> Draft | None:
        row, col = node.lineno, node.col_offset  # type: ignore[attr-defined]
        end_row = node.end_lineno or row  # type: ignore[attr-defined]
        end_col = node.end_col_offset or col  # type: ignore[attr-defined]
        # by_extent: `d.cov.evaluate()` and `d.cov` start at one column, and each may break
        key = (rule.code, row, col, end_row, end_col) if by_extent else (rule.code, row, col)
        eager_after = NOT_TENSOR if own_frame else self._eager_after
        if key in self._reported or eager_after.always:
            return None  # loop bodies run twice
        self._reported.add(key)
        line = self.lines[row - 1] if row <= len(self.lines) else ""
        end_line = self.lines[end_row - 1] if end_row <= len(self.lines) else ""
        gb_id = gb_id or rule.graph_break_id(python_bool=deps.data_dependent_bool)
        named, any_mode_message, any_mode_if = modes.named(message, self._modes), None, NOT_TENSOR
        if self._value_mode is not None:  # the condition is a tensor through a local of one mode
            value_modes, any_mode_if = self._value_mode
            named, any_mode_message = modes.named(message, [*self._modes, *value_modes]), named
        # Texts interned: a module's drafts repeat their messages and lines (`super().__init__()` has
        # two drafts), and a worker pickles each object once per batch, the repeats by reference.
        return Draft(
            rule.code, sys.intern(named), row, char_column(line, col), end_row, char_column(end_line, end_col),
            gb_id, deps.without_flags() or deps, sys.intern(line.rstrip("\r\n")), eager_after,
            rare=self._rare_depth > 0, any_mode_message=any_mode_message and sys.intern(any_mode_message),
            any_mode_if=any_mode_if, length_tested=self._length_tested,
        )

    def report_if_callee_breaks(self, rule: Rule, call: ast.Call, message: str, at: ast.expr | None = None) -> None:
        # Asked right after the call site was recorded: it is the last one. Drafted per call, then moved.
        if (draft := self._draft(rule, call, message, TENSOR, None)) is not None:
            self.summary.callee_break_drafts.append((len(self.summary.calls) - 1, skipped_frames.moved(draft, at, self.lines)))

    def report_if_subclass_method_breaks(self, rule: Rule, call: ast.Call, message: str) -> None:
        subclass_methods.record(self, rule, call, message)

    def report_if_held_context_refused(self, rule: Rule, node: ast.expr, message: str, gb_id: str | None = None) -> None:
        held = held_name(node, self.self_name, self.summary.params, self._rebound)  # self.NAME, a global
        typed = own_frame_managers.received(self, node)  # a parameter's, a local built before a break
        if (held or typed) and (draft := self._draft(rule, node, message, TENSOR, gb_id)) is not None:
            if held is not None:
                self.summary.held_context_drafts.append((held, draft))
            own_frame_managers.record(self, rule, held or typed, draft, node)  # in a frame of its own

    def report_if_entered_manager_breaks(self, rule: Rule, node: ast.expr, message: str) -> None:
        checkpoint, sites = self._resumable_entry
        draft = self._draft(rule, node, message, checkpoint.kind, None)
        if draft is not None:  # a break since the resume point (a draft, an earlier site) leaves none
            earlier = tuple(range(checkpoint.first_site, min(sites)))
            self.summary.entered_manager_drafts.append((sites, earlier, replace(draft, suppressed_if=checkpoint.breaks_since)))

    def report_if_construction_breaks(self, rule: Rule, call: ast.Call, message: str) -> None:
        # Asked right after the call site was recorded: it is the last one. In a loop or a `try`
        # the break inside makes Dynamo skip the frame, and nothing breaks at the `with` (measured).
        if self._loop_depth or self._try_depth:
            return
        if (draft := self._draft(rule, call, message, TENSOR, None)) is not None:
            passed = parameter_guards.passed_arguments(call)
            self.summary.built_manager_drafts.append((len(self.summary.calls) - 1, passed, draft))

    def report_if_manager_body_breaks(self, rule: Rule, node: ast.expr, message: str, by_name: bool) -> None:
        if self._manager_body_entry is None:
            return
        checkpoint, manager_sites, body_sites, body_kind = self._manager_body_entry
        # beside the draft for a manager that breaks itself, at the same `with`: one of them stands
        self._reported.discard((rule.code, node.lineno, node.col_offset))
        draft = self._draft(rule, node, message, checkpoint.kind, None)
        if draft is not None:  # a break since the resume point (a draft, an earlier site) leaves none
            earlier = tuple(range(checkpoint.first_site, min(manager_sites or body_sites or (0,))))
            self.summary.manager_body_drafts.append(
                (by_name, manager_sites, body_sites, body_kind, earlier, replace(draft, suppressed_if=checkpoint.breaks_since))
            )

    def report_if_try_body_breaks(self, rule: Rule, node: ast.Try, message: str) -> None:
        keyword = ast.Pass(lineno=node.lineno, col_offset=node.col_offset, end_lineno=node.lineno,
                           end_col_offset=node.col_offset + len("try"))  # the `try` line, not the whole block
        checkpoint = self._try_checkpoint
        if (draft := self._draft(rule, keyword, message, checkpoint.kind, None)) is not None:
            earlier = tuple(range(checkpoint.first_site, len(self.summary.calls)))
            self._frame_skips.try_statement(replace(draft, suppressed_if=checkpoint.breaks_since), earlier)

    def report_if_typed_dict_with_optional_keys(self, rule: Rule, call: ast.Call, message: str) -> None:
        self._class_call_draft(self.summary.typed_dict_drafts, rule, call, message)

    def report_if_builds_pydantic_class(self, rule: Rule, call: ast.Call, message: str) -> None:
        self._class_call_draft(self.summary.pydantic_drafts, rule, call, message)

    def report_if_builds_getattribute_class(self, rule: Rule, call: ast.Call, message: str) -> None:
        self._class_call_draft(self.summary.getattribute_drafts, rule, call, message)

    def _class_call_draft(self, drafts: list[tuple[int, Draft]], rule: Rule, call: ast.Call, message: str) -> None:
        # Asked right after the call site was recorded: it is the last one.
        if (draft := self._draft(rule, call, message, TENSOR, None)) is not None:
            drafts.append((len(self.summary.calls) - 1, draft))

    def report_if_builds_tensor_subclass(self, rule: Rule, call: ast.Call, message: str) -> None:
        self._class_call_draft(self.summary.subclass_init_drafts, rule, call, message)

    def report_if_apply_breaks(self, rule: Rule, call: ast.Call, message: str) -> None:
        self._class_call_draft(self.summary.apply_drafts, rule, call, message)

    def report_if_super_reaches_object(self, rule: Rule, call: ast.expr, method: str, message: str, gb_id: str | None = None) -> None:
        if (draft := self._draft(rule, call, message, TENSOR, gb_id)) is not None:
            self.summary.super_object_drafts.append((method, draft))

    def report_if_operand_method(self, rule: Rule, node: ast.BinOp | ast.UnaryOp | ast.AugAssign, method_ref: str, message: str,
                                     deps: Kind, gb_id: str | None = None, objects: tuple[ast.expr, ...] = ()) -> None:
        draft = self._draft(rule, node, message, deps, gb_id)
        if draft is not None:  # `objects` that are parameters: a call passing a tensor there passes no object
            unless = Kind.union([Kind.of_param(o.id) for o in objects if isinstance(o, ast.Name)
                                 and o.id in self.summary.params and o.id not in self._rebound])
            self.summary.object_operand_drafts.append((method_ref, replace(draft, suppressed_if=draft.suppressed_if | unless)))

    def report_if_masks(self, rule: Rule, node: ast.expr, message: str, deps: Kind, key: Kind) -> None:
        """`key` is made elsewhere (a helper's result, `self.NAME`): the draft stands when each of
        its atoms is a bool tensor (masks.py); a key with a parameter or a tensor of its own is none."""
        if key.always or key.boolean or key.data_dependent_bool:
            return
        if any(not name.startswith("self.") for name in key.params) or any(c.element not in (None, 0) for c in key.calls):
            return  # element 0 of a call: the values of a helper's `mask.max(dim)` (masks.py)
        masks = (*sorted(key.params), *sorted(f"@{call.site}{'' if call.element is None else '.0'}" for call in key.calls))
        draft = self._draft(rule, node, message, deps, None)
        if masks and draft is not None:
            self.summary.mask_index_drafts.append((masks, draft, self._loop_depth > 0 and not self._rare_depth))

    def report_if_scalar_returns(self, rule: Rule, node: ast.expr, message: str, deps: Kind, key: Kind,
                                 gb_id: str | None = None) -> None:
        """`key` is only what call sites return (`x[:, best(s)]`, `i = self._pick(x)`): the draft
        stands when every callee of each returns a 0-d tensor on every path (scalar_returns.py)."""
        if not key.is_call_result:
            return
        if (draft := self._draft(rule, node, message, deps, gb_id)) is not None:
            self.summary.scalar_index_drafts.append((tuple(sorted(call.site for call in key.calls)), draft))

    def report_if_dependency_breaks(self, rule: Rule, call: ast.expr, message: str) -> None:
        # Asked right after the call site was recorded: it is the last one.
        if (draft := self._draft(rule, call, message, TENSOR, None, by_extent=True)) is not None:
            self.summary.dependency_call_drafts.append((len(self.summary.calls) - 1, draft))
            if isinstance(call, ast.Call) and any(classes := [self._operand_class(arg) for arg in call.args]):
                self.summary.dependency_call_classes[len(self.summary.calls) - 1] = tuple(classes)

    def _operand_class(self, node: ast.expr) -> str | None:
        return None  # function_objects.py knows the classes of locals

    def compiled_input(self, node: ast.expr) -> bool:
        return (self.summary.compiled and isinstance(node, ast.Name) and node.id in self.summary.params
                and node.id not in self._rebound)

    def holds_argument(self, name: str) -> bool:
        return argument_values.holds_argument(self.node, name)

    def index_read_before(self, subscript: ast.Subscript, name: str) -> bool:
        return index_reads.read_before(self.node, subscript, name)

    def requires_grad_traces(self, call: ast.Call) -> bool:
        return discarded_locals.requires_grad_traces(self.node, call, self.resolve)

    def builder_of(self, name: str) -> str | None:
        return self.built_by.get(name)

    def keyword_kinds(self, call: ast.Call) -> dict[str, Kind]:
        return self._keyword_kinds.get(id(call), {})

    def assumed_tensor(self, kind: Kind) -> bool:
        return not kind.always and not kind.calls and bool(kind.params) and kind.params <= self._assumed

    def report_if_held_object_breaks(self, rule: Rule, call: ast.Call, message: str) -> None:
        # Asked right after the call site was recorded: it is the last one. Its own set of lines
        # reported, so GM605's `obj.method()` draft at the same call is still made.
        key = (rule.code, call.lineno, call.col_offset)
        if key in self._held_reported or key in self._reported:
            return
        draft = self._draft(rule, call, message, TENSOR, None)
        self._reported.discard(key)
        if draft is not None:
            self._held_reported.add(key)
            alive = tuple(site for site, _ in self.summary.local_objects)
            self.summary.held_object_drafts.append((alive, len(self.summary.calls) - 1, draft))

    def report_if_built_eagerly(self, rule: Rule, call: ast.Call, message: str) -> None:
        if (draft := self._draft(rule, call, message, TENSOR, None)) is not None:
            self.summary.metaclass_call_drafts.append(draft)

    def report_if_module_init_breaks(self, rule: Rule, call: ast.Call, message: str) -> None:
        # Dynamo breaks where `self` is first used, which may be before the call
        at = uninitialized_modules.first_self_use(self.node, call, self.self_name) or call
        if (draft := self._draft(rule, at, message, TENSOR, None)) is not None:
            self.summary.module_init_drafts.append((len(self.summary.calls) - 1, draft))

    def report_if_frame_skipped(self, rule: Rule, node: ast.expr, message: str, deps: Kind) -> None:
        # Its own frame: a break before it (which `suppressed_if` records) is what makes it break.
        if (draft := self._draft(rule, node, message, deps, None, own_frame=True)) is not None:
            self._frame_skips.comprehension(draft)

    def report_if_str_enum_member(self, rule: Rule, call: ast.Call, param: str, message: str, gb_id: str) -> None:
        if (draft := self._draft(rule, call, message, TENSOR, gb_id)) is not None:
            self.summary.str_method_drafts.append((param, draft))
