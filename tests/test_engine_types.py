"""The engine's typed currency: Kind (what is a tensor), Fix (what a rewrite assumes), and the
registries built from the rules (detection hooks, fix strategies)."""

from __future__ import annotations

import dataclasses
import inspect
import pickle

import pytest

from graphmend_bot.analysis import checks
from graphmend_bot.findings import Edit, Fix, Location
from graphmend_bot.rewrite import strategies
from graphmend_bot.rewrite.scalars.scalars import build_fix as scalars_build_fix
from graphmend_bot.rules import RULES, RULES_BY_CODE
from graphmend_bot.rules.detect import Detection, untraceable
from graphmend_bot.vocabulary.kind import (
    BOOL_TENSOR,
    DATA_DEPENDENT_BOOL,
    NOT_TENSOR,
    TENSOR,
    CallResult,
    Kind,
)

EDIT = (Edit("x", Location(1, 1), Location(1, 2)),)


def test_kind_survives_pickling_between_worker_processes() -> None:
    kind = Kind.of_param("x") | Kind.of_call(3).element(1) | BOOL_TENSOR
    copy = pickle.loads(pickle.dumps(kind))
    assert copy == kind and hash(copy) == hash(kind)
    assert copy.params == frozenset({"x"}) and copy.calls == frozenset({CallResult(3, 1)})


def test_unpickled_kinds_are_interned_and_the_constants_stay_singletons() -> None:
    kinds = [Kind.of_param("x") | Kind.of_call(3) | Kind.of_call(4).element(0), DATA_DEPENDENT_BOOL | Kind.of_param("y")]
    first, second = pickle.loads(pickle.dumps(kinds)), pickle.loads(pickle.dumps(kinds))
    assert first == kinds and all(a is b for a, b in zip(first, second, strict=True))
    assert first[0].calls == frozenset({CallResult(3), CallResult(4, 0)})
    assert first[1].data_dependent_bool and first[1].always and not first[1].boolean
    for constant in (NOT_TENSOR, TENSOR, BOOL_TENSOR, DATA_DEPENDENT_BOOL):
        assert pickle.loads(pickle.dumps(constant)) is constant


def test_kind_flags_do_not_make_a_tensor_and_arithmetic_drops_them() -> None:
    assert not Kind(boolean=True).is_tensor and Kind(boolean=True)
    assert BOOL_TENSOR.without_flags() == TENSOR
    assert DATA_DEPENDENT_BOOL.without_data_dependent_bool() == TENSOR
    assert (NOT_TENSOR | NOT_TENSOR) is NOT_TENSOR and (TENSOR | NOT_TENSOR) is TENSOR
    assert Kind.of_param("x").without_param("x") == NOT_TENSOR


def test_only_whole_call_results_split_into_tuple_elements() -> None:
    assert Kind.of_call(0).is_call_result
    assert not Kind.of_call(0).element(1).is_call_result
    assert not (Kind.of_call(0) | TENSOR).is_call_result
    assert Kind.of_call(2).element(0) == Kind(calls=frozenset({CallResult(2, 0)}))


def test_a_fix_is_safe_exactly_when_it_assumes_nothing() -> None:
    safe = Fix.of("Keep it a tensor", EDIT)
    assert safe.applicability == "safe" and safe.message == "Keep it a tensor"
    unsafe = safe.assuming("a", "b")
    assert unsafe.applicability == "unsafe" and unsafe.assumptions == ("a", "b")
    assert unsafe.message == "Keep it a tensor (unsafe: a; b)"
    assert unsafe.assuming("c").message == "Keep it a tensor (unsafe: a; b; c)"
    assert Fix.of("T", EDIT, ("a",), wording="clause").message == "T; a"
    assert Fix.of("T", EDIT, ("a",), wording="unsafe-clause").message == "T; unsafe: a"
    assert Fix.of("T", EDIT, ("a",), wording="note").message == "T (a)"
    with pytest.raises(ValueError):
        Fix("safe", "T", EDIT, ("a",))


def test_serialised_fixes_read_back_positionally() -> None:
    fix = Fix("unsafe", "Branch with torch.cond (unsafe: reasons)", EDIT)
    assert fix.message == "Branch with torch.cond (unsafe: reasons)" and fix.applicability == "unsafe"


def test_rules_stay_hashable_values() -> None:
    assert len(set(RULES)) == len(RULES)
    assert dataclasses.replace(RULES[0], detection=Detection()) == RULES[0]


def test_every_rule_claims_its_detection_keys_alone() -> None:
    claimed = {rule.code for rule in RULES if rule.detection != Detection()}
    # Every rule detects something. GM645 reads `t.register_hook(h)` through GM633's method hook,
    # which hands it the call: a method has one owner (below), and both rules read that call.
    assert claimed | {"GM645"} == set(RULES_BY_CODE)
    assert "report_outer_mutation" in inspect.getsource(RULES_BY_CODE["GM633"].detection.tensor_methods["register_hook"])
    hook = untraceable("`{name}` in traced code")
    twice = [
        dataclasses.replace(RULES_BY_CODE["GM401"], detection=Detection(builtins={"print": hook})),
        dataclasses.replace(RULES_BY_CODE["GM602"], detection=Detection(builtins={"print": hook})),
    ]
    with pytest.raises(ValueError, match="GM602 and GM401 both detect 'print'"):
        checks._table(lambda d: d.builtins, twice)


def test_fix_strategies_resolve_in_the_order_each_rule_states() -> None:
    assert [name for name, _ in strategies.strategies_for("GM101")] == ["predicate", "cond", "zero_guard_return"]
    assert [name for name, _ in strategies.strategies_for("GM102")] == ["predicate", "table_lookup"]
    assert [name for name, _ in strategies.strategies_for("GM302")] == ["scalars", "sizes"]
    assert strategies.strategies_for("GM603") == ()
    assert [name for name, _ in strategies.strategies_for("GM604")] == ["cached_constant"]
    assert [name for name, _ in strategies.strategies_for("GM105")] == ["guards"]
    fixable = {"GM101", "GM102", "GM103", "GM105", "GM201", "GM202", "GM203", "GM301", "GM302", "GM303", "GM401",
               "GM402", "GM403", "GM501", "GM502", "GM503", "GM601", "GM602", "GM604"}
    assert fixable == strategies.FIXABLE_CODES
    assert strategies.resolve("graphmend_bot.rewrite.scalars.scalars:build_fix") == ("scalars", scalars_build_fix)
    for rule in RULES:
        assert all(callable(build) for _, build in strategies.strategies_for(rule.code))
