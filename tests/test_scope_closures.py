"""Nested functions that leave the function defining them, as Dynamo follows them (each measured
here with torch._dynamo.explain on torch 2.13), with the near misses:

- a closure returned (`return scale`, `return sizes, weights`) runs where the caller calls it, or
  hands it over; a nested function its definer neither returns nor passes is not reached;
- a closure passed to an in-tree function that calls its parameter (`call_with(inner, x)`) runs
  there; passed to one that calls nothing it is given (`keep(kept, x)`), or kept by a list's
  `append`, it does not;
- a closure or a bound method registered in traced code as a forward (pre-)hook of a submodule
  runs when the submodule is then called (captum's `_register_backward_hook`); one never
  registered is not reached.

(scope.Program._successors, callee_refs.passed_closures; captum, dev half of the wild corpus.)
"""

from __future__ import annotations

import pytest

from graphmend_bot.analysis.scope import Program
from graphmend_bot.config import Config
from graphmend_bot.engine import Workspace, check

torch = pytest.importorskip("torch")

from test_scope_edges import _assert_reported_where_dynamo_breaks, _dynamo_lines  # noqa: E402

STEPS_TREE = {
    "clospkg/__init__.py": "",
    "clospkg/steps.py": """
        STORE = []


        def builders():
            def sizes(x):
                return x * x.tolist()[0]  # break

            def weights(x):
                return x + 1

            def unused(x):
                return x.tolist()

            return sizes, weights


        def make_scale():
            def scale(x):
                return x * x.tolist()[1]  # break

            return scale


        def call_with(fn, x):
            return fn(x)


        def keep(fn, x):
            return x


        def through_helper(x):
            def inner(v):
                return v * x.tolist()[2]  # break

            def kept(v):
                return v.tolist()

            def stored(v):
                return v.tolist()

            STORE.append(stored)
            return keep(kept, call_with(inner, x))
    """,
    "clospkg/model.py": """
        from torch import nn

        from clospkg.steps import builders, make_scale, through_helper


        class Net(nn.Module):
            def forward(self, x):
                sizes, weights = builders()
                scale = make_scale()
                return through_helper(scale(sizes(weights(x))))
    """,
}


def test_closures_returned_or_passed_to_a_caller_back_are_traced_where_dynamo_breaks(write_tree) -> None:
    root = write_tree(STEPS_TREE)
    _assert_reported_where_dynamo_breaks(root, "clospkg", "model", "Net", "steps.py")
    traced = _traced(root, "clospkg")
    assert {("clospkg.steps", f"builders.{n}") for n in ("sizes", "weights")} <= traced
    assert {("clospkg.steps", "make_scale.scale"), ("clospkg.steps", "through_helper.inner")} <= traced
    assert not {("clospkg.steps", n) for n in ("builders.unused", "through_helper.kept", "through_helper.stored")} & traced


HOOKS_TREE = {
    "hookpkg/__init__.py": "",
    "hookpkg/model.py": """
        import torch
        from torch import nn


        class Sub(nn.Module):
            def forward(self, x):
                return x + 1


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.sub = Sub()
                self.seen = []

            def _after(self, module, inp, out):
                self.seen.append(torch.zeros(2).tolist())  # HOOK
                return out

            def _unregistered(self, module, inp, out):
                return out.tolist()

            def forward(self, x):
                def before(module, inp):
                    self.seen.append(torch.full((2,), 3.0).tolist())  # HOOK
                    return inp

                def spare(module, inp):
                    return inp[0].tolist()

                first = self.sub.register_forward_pre_hook(before)
                second = self.sub.register_forward_hook(self._after)
                y = self.sub(x)
                first.remove()
                second.remove()
                return y
    """,
}


def test_hooks_registered_in_traced_code_are_traced_where_dynamo_breaks(write_tree) -> None:
    """Only the hooks' lines are compared: the registrations themselves are GM663's business."""
    root = write_tree(HOOKS_TREE)
    path = root / "hookpkg" / "model.py"
    hooks = {row for row, line in enumerate(path.read_text().splitlines(), 1) if line.endswith("# HOOK")}
    assert _dynamo_lines(root, "hookpkg", "model", "Net", path) & hooks == hooks
    result = check([str(root / "hookpkg")])
    assert not result.errors
    assert {f.location.row for f in result.findings} & hooks == hooks
    traced = _traced(root, "hookpkg")
    assert {("hookpkg.model", n) for n in ("Net._after", "Net.forward.before")} <= traced
    assert not {("hookpkg.model", n) for n in ("Net._unregistered", "Net.forward.spare")} & traced


def _traced(root, package: str) -> set[tuple[str, str]]:
    return Program(Workspace([str(root / package)], Config(), jobs=1).summaries.values(), scope="model").traced_functions()


DROPPED_TREE = {
    "droppkg/__init__.py": "",
    "droppkg/steps.py": """
        import torch


        def make_dropped(y):
            def dropped(v):
                print("dropped", y)
                return v.tolist()

            return dropped


        def make_unread(y):
            def unread(v):
                return v * torch.zeros(2).tolist()[0]

            return unread


        def make_called(y):
            def called(v):
                return v * torch.zeros(2).tolist()[0]  # break

            return called


        def make_passed(y):
            def passed(v):
                return v * torch.ones(2).tolist()[1]  # break

            return passed


        def make_handed(y):
            def handed(v):
                return v * torch.full((2,), 3.0).tolist()[0]  # break

            return handed


        def relay(y):
            return make_handed(y)


        def apply(fn, x):
            return fn(x)
    """,
    "droppkg/model.py": """
        from torch import nn

        from droppkg.steps import apply, make_called, make_dropped, make_passed, make_unread, relay


        class Net(nn.Module):
            def forward(self, x):
                make_dropped(x)
                unread = make_unread(x)
                f = make_called(x)
                h = relay(x)
                return h(apply(make_passed(x), f(x)))
    """,
}


def test_a_returned_closure_is_traced_only_where_its_result_is_kept(write_tree) -> None:
    """Review 25's over-reach: `make_dropped(x)` and `unread = make_unread(x)` in forward never run
    their closures (Dynamo logs nothing there); called, passed on or returned onward they do."""
    root = write_tree(DROPPED_TREE)
    _assert_reported_where_dynamo_breaks(root, "droppkg", "model", "Net", "steps.py")
    traced = _traced(root, "droppkg")
    assert {("droppkg.steps", f"make_{n}.{n}") for n in ("called", "passed", "handed")} <= traced
    assert not {("droppkg.steps", "make_dropped.dropped"), ("droppkg.steps", "make_unread.unread")} & traced
