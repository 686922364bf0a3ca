"""GM612's managers entered as an input of a frame Dynamo compiles on its own, measured on torch 2.13
(analysis/own_frame_managers.py): `with ctx:` on a parameter (annotated with a context-manager class
of the tree, or passed one that Dynamo refuses as an input), or `with self.cm:` on a manager
`__init__` built, in a function that breaks; and `with ctx:` on a manager held from outside the
compiled region passed on (`helper(self.cm, x)`), whether or not anything breaks. Dynamo
inlines the function into the caller that built the manager, meets the break, breaks at the call
instead and runs the function as a frame of its own, where the manager is an input: GB0142 at the
`with`. Each sample runs through Dynamo and `graphmend check`, and both must agree on the lines."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sample_modules import dynamo_breaks, graphmend_findings

torch = pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def grad_mode_restored() -> Iterator[None]:
    """A sample hands `torch.no_grad()` to a frame Dynamo gives up on: keep the grad mode the
    later tests of the process expect."""
    enabled = torch.is_grad_enabled()
    yield
    torch.set_grad_enabled(enabled)

MANAGER = '''
import contextlib
import torch


class CM:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class Sub(CM):
    def __init__(self, n):
        self.n = n


def inner(x):
    print("inner")
    return x * 2
'''

# name: (module body after MANAGER, whether a `with` breaks with GB0142)
SAMPLES = {
    # the body breaks: the function runs on its own, `ctx` an input
    "body_breaks": ('''
def helper(ctx: CM, x):
    with ctx:
        print("b")
        return x * 2
''', "helper(CM(), x)", True),
    "subclass_passed": ('''
def helper(ctx: CM, x):
    with ctx:
        print("b")
        return x * 2
''', "helper(Sub(3), x)", True),
    "callee_breaks_in_body": ('''
def helper(ctx: "CM", x):
    with ctx as entered:
        y = inner(x)
    return y
''', "helper(CM(), x)", True),
    "break_after_the_with": ('''
def helper(ctx: CM, x):
    with ctx:
        y = x * 2
    for i in range(2):
        print("b")
        y = y + i
    return y
''', "helper(CM(), x)", True),
    "break_in_try_in_body": ('''
def helper(ctx: CM, x):
    with ctx:
        try:
            print("b")
        except Exception:
            pass
        return x * 2
''', "helper(CM(), x)", True),
    "held_by_object_built_in_forward": ('''
class Holder:
    def __init__(self):
        self.cm = CM()

    def run(self, x):
        with self.cm:
            print("b")
            return x * 2
''', "Holder().run(x)", True),
    "held_dunder_call": ('''
class Holder:
    def __init__(self):
        self.cm = CM()

    def __call__(self, x):
        with self.cm:
            print("b")
            return x * 2
''', "Holder()(x)", True),
    # unannotated: judged by what the calls pass, built there or held from outside
    "passed_unannotated": ('''
def helper(ctx, x):
    with ctx:
        print("b")
        return x * 2
''', "helper(CM(), x)", True),
    "passed_by_keyword_to_a_method": ('''
class Runner:
    def go(self, x, ctx=None):
        with ctx:
            return inner(x)
''', "Runner().go(x, ctx=Sub(1))", True),
    "no_grad_passed": ('''
def helper(ctx, x):
    with ctx:
        print("b")
        return x * 2
''', "helper(torch.no_grad(), x)", True),
    "generator_passed": ('''
@contextlib.contextmanager
def scope():
    yield


def helper(ctx, x):
    with ctx:
        print("b")
        return x * 2
''', "helper(scope(), x)", True),
    "held_passed_nothing_breaks": ('''
def helper(ctx, x):
    with ctx:
        return x * 2
''', "helper(self.cm, x)", True),
    "nullcontext_passed": ('''
def helper(ctx, x):
    with ctx:
        print("b")
        return x * 2
''', "helper(contextlib.nullcontext(), x)", False),
    # near misses: nothing breaks, a loop break before the `with` (the frame is skipped), a frame
    # with nothing tensor-related (skipped), the parameter bound again, a manager Dynamo enters held
    "nothing_breaks": ('''
def helper(ctx: CM, x):
    with ctx:
        return x * 2
''', "helper(CM(), x)", False),
    "held_nothing_breaks": ('''
class Holder:
    def __init__(self):
        self.cm = CM()

    def run(self, x):
        with self.cm:
            return x * 2
''', "Holder().run(x)", False),
    "loop_break_before": ('''
def helper(ctx: CM, x):
    for i in range(2):
        print("b")
        x = x + i
    with ctx:
        return x * 2
''', "helper(CM(), x)", False),
    "no_tensor_in_frame": ('''
def helper(ctx: CM, n: int) -> int:
    with ctx:
        print("b")
        return n * 2
''', "x * helper(CM(), 3)", False),
    "rebound": ('''
def helper(ctx: CM, x):
    ctx = CM()
    with ctx:
        print("b")
        return x * 2
''', "helper(CM(), x)", False),
    "held_nullcontext": ('''
class Holder:
    def __init__(self):
        self.cm = contextlib.nullcontext()

    def run(self, x):
        with self.cm:
            print("b")
            return x * 2
''', "Holder().run(x)", False),
}


def _source(body: str, call: str) -> str:
    model = f'''

class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cm = CM()

    def forward(self, x):
        x = x + 1
        y = {call}
        return y - 1
'''
    return MANAGER + body + model


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_graphmend_reports_the_with_dynamo_cannot_enter(name: str, tmp_path: Path) -> None:
    body, call, breaks = SAMPLES[name]
    source = _source(body, call)
    with_rows = {row for row, line in enumerate(source.splitlines(), start=1) if line.strip().startswith("with ")}
    measured = {row for row, gb_id in dynamo_breaks(source, tmp_path) if gb_id == "GB0142"}
    found = {row for row, code, _ in graphmend_findings(source, tmp_path) if code == "GM612"}
    assert (measured == with_rows) is breaks, (measured, with_rows)
    assert found == measured


# A local built in the frame, entered after a top-level break since: an input of the resumed frame.
LOCAL_SAMPLES = {
    "local_built_before_a_break": ('''
        cm = CM()
        x = x + 1
        print("hi")
        x = x * 3
        with cm:
            x = x * 2
''', True),
    "subclass_built_before_a_break": ('''
        cm = Sub(2)
        print("hi")
        x = x * 3
        with cm as entered:
            x = x * 2
''', True),
    # near misses: rebuilt after the break, a generator manager and `torch.no_grad()` (Dynamo
    # rebuilds those), the break inside the `with` (GM660's), no break
    "rebuilt_after_the_break": ('''
        cm = CM()
        print("hi")
        x = x * 3
        cm = CM()
        with cm:
            x = x * 2
''', False),
    "generator_built_before_a_break": ('''
        cm = scope()
        print("hi")
        x = x * 3
        with cm:
            x = x * 2
''', False),
    "no_grad_built_before_a_break": ('''
        cm = torch.no_grad()
        print("hi")
        x = x * 3
        with cm:
            x = x * 2
''', False),
    "no_break": ('''
        cm = CM()
        x = x * 3
        with cm:
            x = x * 2
''', False),
    # a break in a conditional expression's arm or after `and` runs on some calls only (resume_points.py);
    # one in its test runs on every call
    "break_in_a_ternary_arm_not_taken": ('''
        cm = CM()
        y = print("hi") if x.dim() > 5 else None
        x = x * 3
        with cm:
            x = x * 2
''', False),
    "break_after_and_not_evaluated": ('''
        cm = CM()
        y = x.dim() > 5 and print("hi")
        x = x * 3
        with cm:
            x = x * 2
''', False),
    "unpacked_built_before_a_break": ('''
        cm, n = CM(), 2
        print("hi")
        x = x * 3
        with cm:
            x = x * n
''', True),
    "unpacked_with_no_break": ('''
        cm, n = CM(), 2
        x = x * 3
        with cm:
            x = x * n
''', False),
    "break_in_a_ternary_test": ('''
        cm = CM()
        y = 1 if print("hi") else 2
        x = x * 3
        with cm:
            x = x * 2
''', True),
}
LOCAL_MODEL = MANAGER + '''

@contextlib.contextmanager
def scope():
    yield


class Model(torch.nn.Module):
    def forward(self, x):
        x = x + 1
{body}
        return x - 1
'''


@pytest.mark.parametrize("name", sorted(LOCAL_SAMPLES))
def test_a_local_built_before_a_break_is_an_input(name: str, tmp_path: Path) -> None:
    body, breaks = LOCAL_SAMPLES[name]
    source = LOCAL_MODEL.format(body=body.strip("\n"))
    with_rows = {row for row, line in enumerate(source.splitlines(), start=1) if line.strip().startswith("with ")}
    measured = {row for row, gb_id in dynamo_breaks(source, tmp_path) if gb_id == "GB0142"}
    found = {row for row, code, _ in graphmend_findings(source, tmp_path) if code == "GM612"}
    assert (measured == with_rows) is breaks, (measured, with_rows)
    assert found == measured
