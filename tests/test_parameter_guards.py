"""parameter_guards: which rows of an `__init__` a call leaves unrun (GM684's per-call judgement;
the constructs measured against Dynamo are in tests/fixtures/rules/GM684_manager_built_by_breaking_call.py)."""

from __future__ import annotations

import ast
import textwrap

from graphmend_bot.analysis.parameter_guards import dead_rows, method_guards, passed_arguments


def _init(source: str) -> ast.FunctionDef:
    node = ast.parse(textwrap.dedent(source)).body[0]
    assert isinstance(node, ast.FunctionDef)
    return node


def _call(source: str) -> ast.Call:
    node = ast.parse(source, mode="eval").body
    assert isinstance(node, ast.Call)
    return node


CHATTY = _init("""
    def __init__(self, name, verbose=False, *, log=None):
        if verbose:
            print(name)
        if log is not None:
            log.append(name)
        print("always")
""")


def test_guards_are_the_if_bodies_on_falsy_defaults() -> None:
    assert method_guards(CHATTY) == (("verbose", 1, False, 3, 4), ("log", None, True, 5, 6))


def test_a_call_leaving_the_defaults_runs_neither_guard() -> None:
    assert dead_rows(method_guards(CHATTY), passed_arguments(_call('Chatty("a")'))) == [(3, 4), (5, 6)]


def test_a_possibly_true_argument_runs_its_guard() -> None:
    guards = method_guards(CHATTY)
    assert dead_rows(guards, passed_arguments(_call('Chatty("a", flag)'))) == [(5, 6)]
    assert dead_rows(guards, passed_arguments(_call('Chatty("a", verbose=True, log=[])'))) == []


def test_a_falsy_literal_leaves_a_truth_test_unrun_but_not_an_is_not_none_test() -> None:
    guards = method_guards(CHATTY)
    assert dead_rows(guards, passed_arguments(_call('Chatty("a", False, log=False)'))) == [(3, 4)]
    assert dead_rows(guards, passed_arguments(_call('Chatty("a", 0, log=None)'))) == [(3, 4), (5, 6)]


def test_star_arguments_hide_what_is_passed() -> None:
    guards = method_guards(CHATTY)
    assert dead_rows(guards, passed_arguments(_call('Chatty("a", *rest)'))) == []
    assert dead_rows(guards, passed_arguments(_call('Chatty("a", **options)'))) == []


def test_no_guard_on_a_rebound_parameter_a_true_default_or_a_later_conjunct() -> None:
    assert (
        method_guards(
            _init("""
        def __init__(self, verbose=False, loud=True, quiet=False):
            verbose = verbose or DEBUG
            if verbose:
                print("a")
            if loud:
                print("b")
            if ready() and quiet:
                print("c")
            if not quiet:
                print("d")
    """)
        )
        == ()
    )


def test_an_and_whose_first_operand_tests_the_parameter_guards_the_whole_statement() -> None:
    assert method_guards(
        _init("""
        def __init__(self, verbose=False):
            if verbose and report():
                print("a")
    """)
    ) == (("verbose", 0, False, 3, 4),)


def test_a_flag_stored_on_the_instance_first_guards_as_the_parameter() -> None:
    stored = _init("""
        def __init__(self, name, verbose=False):
            self.verbose = verbose
            if self.verbose:
                print(name)
    """)
    assert method_guards(stored) == (("verbose", 1, False, 4, 5),)
    assert dead_rows(method_guards(stored), passed_arguments(_call('Stored("a")'))) == [(4, 5)]


def test_an_attribute_stored_twice_or_after_the_test_is_no_guard() -> None:
    twice = _init("""
        def __init__(self, name, verbose=False):
            self.verbose = verbose
            if name:
                self.verbose = True
            if self.verbose:
                print(name)
    """)
    late = _init("""
        def __init__(self, name, verbose=False):
            if self.verbose:
                print(name)
            self.verbose = verbose
    """)
    assert method_guards(twice) == () and method_guards(late) == ()
