"""Analyse one function body: which values are tensors, and where tensors meet Python.

A single forward pass over the statements keeps an environment from names to `Kind`s. Branch
arms run on copies that are merged afterwards; loop bodies run twice so values that flow around
the loop are seen. Every place where a tensor would be turned into a Python value, or where
untraceable Python runs, becomes a `Draft`; the scope solver later keeps those in traced code.

The analyzer is built in layers, one job per module (function_state.py lists them); this is
the driver: it seeds the parameters, runs the body and fills the function's summary.
"""

from __future__ import annotations

import ast

from graphmend_bot.analysis import (
    breaking_reads,
    held_ranks,
    masks,
    narrowing,
    ndarray_bindings,
    str_enums,
    subclass_methods,
    value_class,
)
from graphmend_bot.analysis import checks as C
from graphmend_bot.analysis.collection_returns import annotated_collection
from graphmend_bot.analysis.documented_types import documented_containers, documented_scalars
from graphmend_bot.analysis.function_state import Env
from graphmend_bot.analysis.function_statements import StatementVisitor
from graphmend_bot.analysis.module_containers import iterates_container
from graphmend_bot.analysis.number_params import number_params
from graphmend_bot.analysis.parameter_annotations import (
    bool_tensor_annotation,
    is_count_name,
    optional_tensor,
    sized_annotation,
    tensor_mapping_annotation,
    tensor_param,
    yields_to_callers,
)
from graphmend_bot.analysis.tensor_sequences import tensor_sequence
from graphmend_bot.rules import Rule
from graphmend_bot.vocabulary.dotted_names import dotted_name
from graphmend_bot.vocabulary.kind import Kind
from graphmend_bot.vocabulary.mode_names import INPUT_REQUIRES_GRAD


class FunctionAnalyzer(StatementVisitor):
    """One function's analysis: seed the parameters, visit the body, fill the summary."""

    def run(self) -> None:
        env: Env = {}
        args = self.node.args
        positional = [*args.posonlyargs, *args.args]
        defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults))
        defaults += list(args.defaults)
        params = list(zip(positional, defaults))
        params += list(zip(args.kwonlyargs, args.kw_defaults))
        skip_first = self.summary.class_qualname is not None and not self._is_staticmethod()
        if self.node.name == "setup_context" and not skip_first and positional[:1] and positional[0].arg == "ctx":
            self._modes.append(INPUT_REQUIRES_GRAD)  # traced only when an input of Fn.apply requires grad
        if skip_first and params and not any(dotted_name(d) == "classmethod" for d in self.node.decorator_list):
            self.self_name = params[0][0].arg
        names: list[str] = []
        entry_params: list[str] = []
        configured_entry_params: list[str] = []
        hinted_params: list[str] = []
        member_defaults: list[tuple[str, str]] = []
        classes: list[tuple[str, str]] = []  # (parameter, the one class its annotation names)
        # With dependencies configured, another package's `x: ComplexTensor` (torch_complex's, a plain
        # class) may be one of theirs: its class ref stays, and the solver, which knows the
        # dependency's classes, decides (object_operands.py: a tensor base is no object).
        tree_class = None if self.guard_helpers is None else (
            value_class.imported_class_too(self.guard_helpers.tree_class) if self.dependency_calls
            else self.guard_helpers.tree_class)
        # A forward's `p=None` whose truth it tests (`if in_buffers:`) is a list or flag, no tensor
        # assumed (a multi-element tensor's truth raises); callers passing tensors still decide. So is
        # one annotated a tensor (`scale: Optional[Tensor] = None`): the test means "given".
        defaulted = [a for i, (a, d) in enumerate(params) if not (skip_first and i == 0)
                     and d is not None and narrowing.is_none_constant(d)]
        optional = {a.arg for a in defaulted if a.annotation is None}
        hinted_optional = narrowing.maybe_truth_tested(self.text, frozenset(
            a.arg for a in defaulted if a.annotation is not None and optional_tensor(a.annotation))) \
            if self.entry and defaulted else frozenset()
        scalars, truth_tested = narrowing.optional_parameter_evidence(
            self.node.body, optional, self.resolve, self.entry, hinted_optional)
        for index, (arg, default) in enumerate(params):
            names.append(arg.arg)
            if (member := str_enums.member_ref(default)) is not None:
                member_defaults.append((arg.arg, member))  # `mode=BlendMode.CONSTANT`
            if skip_first and index == 0:
                continue
            seed = None if arg.arg in truth_tested else tensor_param(arg.arg, arg.annotation, default, self.entry)
            if seed and arg.annotation is not None:
                self._annotated_tensors.add(arg.arg)
            if ndarray_bindings.annotated_array(arg.annotation, self.resolve):
                self._ndarrays.add(arg.arg)  # `a: np.ndarray`: an array under Dynamo too
            if sized_annotation(arg.annotation):
                self._sized_params.add(arg.arg)
            if tensor_mapping_annotation(arg.annotation) or (arg.annotation is not None and tensor_sequence(arg.annotation)):
                self._tensor_mappings.add(arg.arg)  # `params["w"]`, `xs[0]`: a tensor read from one
            if arg.annotation is None and default is not None and narrowing.is_none_constant(default):
                self._none_params.add(arg.arg)
            if seed is None and default is None and arg.annotation is None and not is_count_name(arg.arg):
                configured_entry_params.append(arg.arg)
            if seed is not None:
                self.summary.param_seeds[arg.arg] = seed
                if not seed and yields_to_callers(arg.arg, arg.annotation):
                    hinted_params.append(arg.arg)
                if seed and arg.annotation is None:
                    entry_params.append(arg.arg)
            env[arg.arg] = Kind.of_param(arg.arg)
            if seed and arg.annotation is None:
                self._assumed.add(arg.arg)
            if arg.annotation is not None and bool_tensor_annotation(arg.annotation):
                env[arg.arg] = env[arg.arg].as_bool_tensor()  # `mask: torch.BoolTensor`
            if (named := subclass_methods.annotated_class(arg.annotation, self.resolve)) is not None:
                classes.append((arg.arg, named))
            if (annotated := value_class.class_annotation(arg.annotation, self.resolve, tree_class)) is not None:
                self.instances[arg.arg] = value_class.typed(annotated)  # `covar: LinearOperator`
        # `xs (list of Tensor)` in the docstring: a collection, as `xs: list[Tensor]` is
        self._sized_params.update(
            documented_containers(self.node, [arg.arg for arg, _ in params if arg.annotation is None])
        )
        if args.vararg is not None:
            # `*args`: the positional arguments past the named ones go there, not to the keyword-only
            # parameters after it. What it holds is left unknown (not a tensor): as a union of every
            # caller's arguments it made a false positive on the wild corpus's test half.
            names.insert(len(positional), args.vararg.arg)
            self.summary.vararg = args.vararg.arg
            self._sized_params.add(args.vararg.arg)
        if args.kwarg is not None:
            names.append(args.kwarg.arg)
        # `k=None` passed to `torch.topk(x, k=k)`: an optional number whatever callers pass.
        self._python_params |= scalars
        self.summary.params = tuple(names)
        self.summary.param_classes = tuple((names.index(name), named) for name, named in classes)
        self.summary.member_defaults = tuple(member_defaults)
        if args.vararg is not None and self.node.name == "forward" and names[:1] == ["ctx"] and self._is_staticmethod():
            for check_forward in C.VARARG_AUTOGRAD_FORWARDS:  # Dynamo may bind its arguments one place over
                check_forward(self, self.node)
        if self.node.name == "__torch_function__" and self.summary.class_qualname is not None:
            for check_override in C.TORCH_FUNCTION_OVERRIDES:
                check_override(self, self.node)
        always_returns = self.block(self.node.body, env)
        for name in self._python_params:
            # A flag whatever callers pass: fixed, so no caller's kind overrides it.
            self.summary.param_seeds[name] = False
        self.summary.entry_params = tuple(p for p in entry_params if p not in self._python_params)
        self.summary.hinted_params = tuple(p for p in hinted_params if p not in self._python_params)
        # a Python scalar by the docstring (`pad_left : int`), as a count by name, is no tensor
        documented = documented_scalars(self.node, configured_entry_params) if configured_entry_params else frozenset()
        # and one the body counts with (`range(depth)`, `[None] * depth`) neither
        numbers = number_params(self.node.body, configured_entry_params, self.resolve_callee, self.text)
        self.summary.configured_entry_params = tuple(
            p for p in configured_entry_params if p not in self._python_params and p not in documented and p not in numbers)
        self.summary.returns = self.returns
        self.summary.return_elements = _common_shape(
            self.output_shapes if any(self.return_shapes) else self.return_shapes
        )
        self.summary.returns_sized = bool(self.returned_collections) and all(self.returned_collections)
        self.summary.returns_builtin_collection = annotated_collection(self.node.returns) or (
            bool(self.returned_builtin_collections) and all(self.returned_builtin_collections))
        self.summary.return_elements_sized = _common_sizes(self.returned_element_collections, self.summary.return_elements)
        self.summary.references = tuple(sorted(self.references))
        self.summary.attribute_writes = tuple(self.attribute_writes)
        self.summary.mask_attributes = tuple(sorted(name for name, mask in self.attribute_masks.items() if mask))
        if self.attribute_writes:
            self.summary.attribute_ranks = held_ranks.written_ranks(self.node, self.self_name, self.resolve_callee)
        # a path that falls off the end returns None
        if self.mask_returns is not None and always_returns and self.returns.nonempty:
            self.summary.mask_returns = tuple(sorted(self.mask_returns))
            # every `return` a mask itself (no call site's): the few worth a walk for `mask.max(dim)`
            self.summary.mask_pair_returns = not self.mask_returns and masks.returns_pairs(self.node)
        if self.scalar_returns is not None and always_returns and self.returns.nonempty:
            self.summary.scalar_returns = tuple(sorted(self.scalar_returns))
        self.summary.returned_functions = tuple(sorted(self.returned_functions))
        self.summary.returned_element_functions = tuple(sorted(self.returned_element_functions))
        self.summary.skipped_frame_drafts = self._frame_skips.finish()
        self.summary.try_body_drafts = self._frame_skips.try_lines()

    def report_if_read_breaks(self, rule: Rule, node: ast.stmt, sites: tuple[int, ...], message: str) -> None:
        breaking_reads.report(self, rule, node, sites, message)  # GM657

    def steps_dict_iterator(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.args and not node.keywords:
            return node.func.attr in ("keys", "values", "items")  # `d.items()`, `self.heads.values()`
        if isinstance(node, (ast.Dict, ast.DictComp)) or (isinstance(node, ast.Call) and self.builtin_of(node.func) == "dict"):
            return True
        return iterates_container(node, self.self_name, self.containers)

    def parameter_annotation(self, name: str) -> ast.expr | None:
        if name in self._rebound:
            return None
        args = self.node.args
        return next((arg.annotation for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs) if arg.arg == name), None)

    def _is_staticmethod(self) -> bool:
        return any(dotted_name(d) == "staticmethod" for d in self.node.decorator_list)


def _common_shape(shapes: list[tuple[Kind, ...] | None]) -> tuple[Kind, ...] | None:
    """Element kinds when every return is a tuple of known first elements: those all of them have
    (`zip` stops at the shortest). An element past them is the whole result's (scope._element_returns)."""
    if not shapes or any(shape is None for shape in shapes):
        return None
    return tuple(Kind.union(column) for column in zip(*(shape for shape in shapes if shape is not None))) or None


def _common_sizes(
    returns: list[tuple[bool, ...] | None], elements: tuple[Kind, ...] | None
) -> tuple[bool, ...] | None:
    """Per element of `elements`: whether every display returned has a collection there."""
    if elements is None or not returns or any(shape is None or len(shape) != len(elements) for shape in returns):
        return None
    return tuple(all(column) for column in zip(*(shape for shape in returns if shape is not None)))
