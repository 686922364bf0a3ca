"""The summaries' shortcuts answer exactly what the plain reading does (benchmarks/same_findings.py
proves it finding-for-finding on transformers; these pin the forms)."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import pickle
from collections.abc import Iterator
from typing import cast

import pytest

from graphmend_bot.analysis import callee_refs, modes, statement_forms
from graphmend_bot.analysis.callee_refs import passed_bound_methods
from graphmend_bot.analysis.function import FunctionAnalyzer
from graphmend_bot.analysis.model import Draft, FunctionSummary
from graphmend_bot.analysis.parameter_annotations import (
    bool_tensor_annotation,
    may_hold_tensor,
    mentions_tensor,
    yields_to_callers,
)
from graphmend_bot.analysis.summary import _NESTED_BODIES, Imports, _body_fields, summarize_module
from graphmend_bot.vocabulary.dotted_names import dotted_name
from graphmend_bot.vocabulary.kind import NOT_TENSOR, TENSOR, CallResult, Kind


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("a", "a"),
        ("a.b", "a.b"),
        ("a.b.c.d", "a.b.c.d"),
        ("a().b", None),
        ("a[0].b.c", None),
        ("a.b().c.d", None),
        ("(a + b).c", None),
        ("1", None),
        ("f(x)", None),
    ],
)
def test_dotted_name_reads_chains_of_attributes_on_a_name(source: str, expected: str | None) -> None:
    assert dotted_name(ast.parse(source, mode="eval").body) == expected


MODULE = """
import torch
from . import helpers as h

def f(x):
    return np.where(x, torch.cat(x), h.g(x)), y.z

import numpy as np
"""


def test_settled_resolve_answers_as_resolve_once_per_node(monkeypatch: pytest.MonkeyPatch) -> None:
    tree = ast.parse(MODULE)
    imports = Imports("pkg.mod", False)
    for statement in tree.body:
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            imports.add(statement)
    nodes = [n for n in ast.walk(tree) if isinstance(n, (ast.Name, ast.Attribute))]
    expected = [imports.resolve(n) for n in nodes]
    assert "numpy.where" in expected and "torch.cat" in expected and "pkg.helpers.g" in expected

    asked: list[ast.expr] = []
    plain = Imports.resolve

    def counted(self: Imports, node: ast.expr) -> str | None:
        asked.append(node)
        return plain(self, node)

    monkeypatch.setattr(Imports, "resolve", counted)
    resolve = imports.settled_resolve()
    assert [resolve(n) for n in nodes] == expected
    assert [resolve(n) for n in nodes] == expected
    assert len(asked) == len(nodes)  # the second pass is remembered


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        ("torch.BoolTensor", True),
        ("BoolTensor", True),
        ("Optional[torch.BoolTensor]", True),
        ("'torch.BoolTensor'", True),
        ("torch.Tensor", False),
        ("Optional[torch.FloatTensor]", False),
        ("int", False),
    ],
)
def test_bool_tensor_annotation_forms(annotation: str, expected: bool) -> None:
    assert bool_tensor_annotation(ast.parse(annotation, mode="eval").body) is expected


@pytest.mark.parametrize(
    ("annotation", "tensor", "may_hold"),
    [
        ("int", False, False),
        ("torch.Tensor", True, True),
        ("Optional[torch.FloatTensor]", True, True),
        ("'torch.Tensor'", True, True),
        ("List['Tensor']", True, True),
        ("Tuple[torch.Tensor, Dict[str, Any]]", True, True),
        ("Tensor | None", True, True),
        ("dict[str, typing.Any]", False, True),
        ("Callable[[int], str]", False, False),
    ],
)
def test_annotation_words_are_read_without_ast_walk(
    annotation: str, tensor: bool, may_hold: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # every function's signature is read this way: ast.walk's generators cost more than the rest
    node = ast.parse(annotation, mode="eval").body
    walked: list[ast.AST] = []
    walk = ast.walk

    def counted(root: ast.AST) -> Iterator[ast.AST]:
        walked.append(root)
        return walk(root)

    monkeypatch.setattr(ast, "walk", counted)
    answers = mentions_tensor(node), may_hold_tensor(node)
    monkeypatch.undo()
    assert answers == (tensor, may_hold)
    assert walked == []


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        ("int", True),
        ("torch.device", True),
        ("Dict[str, Tensor]", True),
        ("typing.List[torch.Tensor]", True),
        ("Sequence[float]", False),
        ("Dict[str, Any]", False),
        ("'List[float]'", False),
        ("tuple[int, int]", True),
        ("Tuple[float, ...]", True),
        ("tuple[int, str]", False),
        ("'tuple[int, int]'", True),
    ],
)
def test_yields_to_callers_forms(annotation: str, expected: bool) -> None:
    assert yields_to_callers("value", ast.parse(annotation, mode="eval").body) is expected


def test_entered_pushes_a_mode_and_nothing_for_none() -> None:
    stack: list[str] = []
    with modes.entered(stack, None):
        assert stack == []
        with modes.entered(stack, "in training mode"):
            assert stack == ["in training mode"]
            with modes.entered(stack, None):
                assert stack == ["in training mode"]
        assert stack == []


def test_bound_methods_are_looked_for_in_the_arguments_first() -> None:
    call = ast.parse("checkpoint(self.block, x, fn=self.other, y=self.z.w)", mode="eval").body
    assert isinstance(call, ast.Call)
    assert passed_bound_methods(call, "self", "torch.utils.checkpoint.checkpoint") == ["self.block", "self.other"]
    assert passed_bound_methods(call, "this", None) == []
    assert passed_bound_methods(call, None, None) == []
    helper = ast.parse("apply(self.block, x)", mode="eval").body
    assert isinstance(helper, ast.Call)
    assert passed_bound_methods(helper, "self", None) == ["self.block name:apply"]


def test_a_call_passing_no_bound_method_names_no_callee(monkeypatch: pytest.MonkeyPatch) -> None:
    named: list[ast.expr] = []
    plain = callee_refs.callee_ref

    def counted(func: ast.expr) -> str | None:
        named.append(func)
        return plain(func)

    monkeypatch.setattr(callee_refs, "callee_ref", counted)
    plain_call = ast.parse("self.proj(x, scale=self.scale.value)", mode="eval").body
    assert isinstance(plain_call, ast.Call)
    assert passed_bound_methods(plain_call, "self", None) == []
    assert not named  # most calls pass no `self.m`: their callee is not worked out for it


def _plain_merge(env: dict[str, Kind], arms: list[dict[str, Kind]]) -> dict[str, Kind]:
    """merge_into as it reads: every name of every arm joined over the arms."""
    merged = dict(env)
    for name in set().union(*(arm.keys() for arm in arms)):
        merged[name] = Kind.union(arm.get(name, NOT_TENSOR) for arm in arms)
    return merged


def test_merge_joins_only_the_names_an_arm_bound_again(monkeypatch: pytest.MonkeyPatch) -> None:
    x, y, call = Kind.of_param("x"), Kind.of_param("y"), Kind.of_call(0)
    env = {"x": x, "y": y, "flag": NOT_TENSOR, "equal": Kind.of_param("z")}
    body, orelse = dict(env), dict(env)
    body["y"], body["new"] = call, TENSOR  # rebound in one arm, bound in one arm
    orelse["x"] = NOT_TENSOR
    orelse["equal"] = Kind(params=frozenset({"z"}))  # a new kind equal to what the name held
    for arms in ([body, orelse], [body], [orelse]):
        expected = _plain_merge(env, arms)
        merged = dict(env)
        statement_forms.merge_into(merged, arms)
        assert merged == expected

    joined: list[object] = []
    plain_union = Kind.union

    def counted(kinds: object) -> Kind:
        joined.append(kinds)
        return plain_union(kinds)  # type: ignore[arg-type]

    monkeypatch.setattr(Kind, "union", staticmethod(counted))
    merged = dict(env)
    statement_forms.merge_into(merged, [dict(env), dict(env)])
    assert merged == env and not joined  # no arm bound anything: nothing to join
    statement_forms.merge_into(merged, [body, orelse])
    assert len(joined) == 4  # y, new, x and equal; flag is as it was in both


FUNCTION_ASSIGNMENTS = """
import torch
from .layers import Block

class Model:
    def __init__(self):
        self.block = Block()

def build():
    model = Block()
    return model
"""


def test_assignments_in_bodies_are_read_for_compile_targets_only(monkeypatch: pytest.MonkeyPatch) -> None:
    resolved: list[str | None] = []
    plain = Imports.resolve

    def counted(self: Imports, node: ast.expr) -> str | None:
        resolved.append(dotted_name(node))
        return plain(self, node)

    monkeypatch.setattr(Imports, "resolve", counted)
    summarize_module(FUNCTION_ASSIGNMENTS, "pkg/mod.py", "pkg.mod", False)
    # Once per call by the analyzer, once for the class's submodules; the collector's scan of
    # the bodies' assignments no longer asks what built `self.block` and `model`.
    assert resolved.count("Block") == 3
    resolved.clear()
    compiled = summarize_module(FUNCTION_ASSIGNMENTS.replace("return model", "return torch.compile(model)"),
                                "pkg/mod.py", "pkg.mod", False)
    assert [(t.ref, t.constructor) for t in compiled.compile_targets] == [("model", "pkg.layers.Block")]


NESTED_DEFINITIONS = """
if a:
    def in_if(): pass
else:
    def in_else(): pass
for x in y:
    def in_for(): pass
while z:
    def in_while(): pass
with c:
    def in_with(): pass
try:
    def in_try(): pass
except E:
    def in_handler(): pass
else:
    def in_try_else(): pass
finally:
    def in_finally(): pass
"""


def test_the_collector_enters_each_block_by_its_type_s_fields() -> None:
    statement_types = [ast.ExceptHandler, *(t for t in vars(ast).values() if isinstance(t, type) and issubclass(t, ast.stmt))]
    for statement_type in statement_types:
        assert _body_fields(statement_type) == tuple(f for f in _NESTED_BODIES if f in statement_type._fields)  # type: ignore[attr-defined]
    assert _body_fields(ast.Assign) == () and _body_fields(ast.Try) == ("body", "orelse", "finalbody", "handlers")
    summary = summarize_module(NESTED_DEFINITIONS, "pkg/mod.py", "pkg.mod", False)
    assert sorted(summary.functions) == sorted(
        ["in_if", "in_else", "in_for", "in_while", "in_with", "in_try", "in_handler", "in_try_else", "in_finally"]
    )


def test_kinds_of_one_call_site_or_parameter_are_made_once() -> None:
    # every call site and every parameter seeded or tested asked for a new kind
    assert Kind.of_call(3) is Kind.of_call(3)
    assert Kind.of_param("x") is Kind.of_param("x")
    assert Kind.of_call(3) == Kind(calls=frozenset({CallResult(3)})) != Kind.of_call(4)
    assert Kind.of_param("x") == Kind(params=frozenset({"x"})) != Kind.of_param("y")


SLOTTED = """
import torch

class M(torch.nn.Module):
    def forward(self, x, mask: torch.BoolTensor, n=None, *args, **kwargs):
        for layer in self.layers:
            x = layer(x) if n else x + 1
        with torch.no_grad():
            y = [t for t in args if t is not None]
        try:
            assert x.sum() > 0
        except ValueError as error:
            raise RuntimeError from error
        return x, y
"""


def test_the_analyzer_keeps_its_state_in_slots() -> None:
    # past 30 attributes an instance's dict is no longer shared with its class: every attribute
    # read and write of the summaries then went through a dict of the analyzer's own
    node = cast(ast.FunctionDef, cast(ast.ClassDef, ast.parse(SLOTTED).body[1]).body[0])
    summary = FunctionSummary(qualname="M.forward", name="forward", class_qualname="M", params=(), param_seeds={},
                              compiled=False, decorators=())
    analyzer = FunctionAnalyzer(node, summary, lambda _: None, frozenset(), SLOTTED.splitlines(), True)
    analyzer.run()
    assert summary.calls and summary.drafts  # it did analyse the body
    assert vars(analyzer) == {}


TYPED_DICT_CALLS = """
from typing import TypedDict
from torch import nn
from .options import Imported


class Options(TypedDict, total=False):
    scale: float


class Layer(nn.Module):
    pass


def Factory():
    return {}


class Model(nn.Module):
    def forward(self, x):
        return Options(scale=1.0), Layer(), Factory(), Imported(scale=2.0), x
"""


def test_only_the_calls_that_may_build_a_typed_dict_with_optional_keys_keep_a_draft() -> None:
    """A call of the module's own function or of its class without optional keys resolves there
    (scope._defined_here), so its GM615 draft could never stand: the worker does not send it."""
    summary = summarize_module(TYPED_DICT_CALLS, "pkg/model.py", "pkg.model", False)
    forward = summary.functions["Model.forward"]
    assert [forward.calls[site].ref for site, _ in forward.typed_dict_drafts] == ["name:Options", "name:Imported"]


REPEATED_TEXTS = """
import torch


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        print("step")
        y = self.scale(x)
        print("step")
        return self.scale(y)
"""


def test_a_module_s_repeated_draft_texts_and_callees_pickle_once() -> None:
    """Workers pickle summaries for the parent: a text two drafts share (the line of
    `super().__init__()`, which has two; two lines that read alike; one rule's message) and a
    callee two sites share travel once, the repeats as references."""
    summary = summarize_module(REPEATED_TEXTS, "pkg/block.py", "pkg.block", False)
    init, forward = summary.functions["Block.__init__"], summary.functions["Block.forward"]
    assert len(init.module_init_drafts) == len(init.super_object_drafts) == 1
    assert [draft.code for draft in forward.drafts] == ["GM401", "GM401"]
    shipped = pickle.dumps(summary)
    assert shipped.count(b"        super().__init__()") == 1
    assert shipped.count(b'        print("step")') == 1  # two lines, one text
    assert shipped.count(forward.drafts[0].message.encode()) == 1
    assert shipped.count(b"self:scale") == 1


@pytest.mark.parametrize(
    "store",
    [
        "self.blocks[key] = Block()",
        "self.blocks[key]=Block()",
        "(self.blocks[key]  # the key's block\n            ) = Block()",
        "self.blocks[key] \\\n            = Block()",
        "self.blocks.append(Block())",
    ],
)
def test_a_containers_elements_are_read_in_every_form_the_text_gate_lets_through(store: str) -> None:
    # summary._elements_built walks a method only when its text says `append` or stores to a subscript
    source = f'''
class Block:
    pass


class Model:
    def build(self, key):
        """Stores nothing in the docstring: x[0] = 1, y.append(z)."""
        {store}
'''
    summary = summarize_module(source, "pkg/mod.py", "pkg.mod", False)
    assert summary.classes["Model"].attributes.get("blocks[]") == "Block"


def test_a_comparison_of_a_subscript_is_no_store() -> None:
    from graphmend_bot.analysis.summary import _SUBSCRIPT_STORE

    assert not _SUBSCRIPT_STORE.search("if self.blocks[key] == other:\n    pass")
    assert not _SUBSCRIPT_STORE.search('"""x[0] = 1"""'.replace("=", "=="))


def test_draft_init_takes_the_fields_in_order_with_their_defaults_and_stores_each() -> None:
    """Draft's hand-written __init__ (one dict update, for speed) is the one dataclass would write."""
    parameters = list(inspect.signature(Draft.__init__).parameters.values())[1:]
    assert [(p.name, p.default) for p in parameters] == [
        (f.name, inspect.Parameter.empty if f.default is dataclasses.MISSING else f.default)
        for f in dataclasses.fields(Draft)
    ]
    values = [f"value {index}" for index in range(len(parameters))]
    draft = Draft(*values)  # type: ignore[arg-type]
    assert [getattr(draft, f.name) for f in dataclasses.fields(Draft)] == values
    assert dataclasses.replace(draft, row=7).row == 7 and pickle.loads(pickle.dumps(draft)) == draft
    with pytest.raises(dataclasses.FrozenInstanceError):
        draft.row = 1  # type: ignore[misc]
