"""Program answers the hierarchy questions scope resolution repeats from memory: the subclasses
of a base and the overrides of a method are walked once per Program, not once per call site."""

from graphmend_bot.analysis.disabled_calls import disabled_function_calls
from graphmend_bot.analysis.scope import Program, _TensorFlow
from graphmend_bot.engine import Workspace
from graphmend_bot.vocabulary.kind import TENSOR

TREE = """
    from torch import nn

    class Base(nn.Module):
        def step(self, x):
            return x

        def forward(self, x):
            return self.step(x)

    class Child(Base):
        def step(self, x):
            return x + 1

    class GrandChild(Child):
        pass
"""


def program(root) -> Program:
    workspace = Workspace([str(root)])
    return Program(workspace.summaries.values(), workspace.config.entry_points, workspace.dependency_summaries)


def test_descendants_and_overrides_are_walked_once(write_tree):
    found = program(write_tree({"model.py": TREE}))
    base = ("model", "Base")
    assert set(found.hierarchy.descendants(base)) == {("model", "Child"), ("model", "GrandChild")}
    assert found.hierarchy.descendants(base) is found.hierarchy.descendants(base)
    assert found._overrides("model", "Base", "step") == [("model", "Child.step")]
    assert found._overrides("model", "Base", "step") is found._overrides("model", "Base", "step")
    assert set(found.resolve_call(("model", "Base.forward"), "self:step")) == {
        ("model", "Base.step"), ("model", "Child.step")}


DECORATED = """
    import functools
    from torch import nn

    def logged(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            return fn(*args, **kwargs)
        return wrapper

    class Base(nn.Module):
        @logged
        def forward(self, x):
            return x

    class Child(Base):
        @logged
        def forward(self, x):
            return x + 1
"""


def test_methods_and_bases_are_resolved_once(write_tree):
    # transformers asks for a base's __init__ and forward once per subclass and call site
    found = program(write_tree({"model.py": TREE}))
    assert found._method("model", "GrandChild", "forward") == ("model", "Base.forward")
    assert found._method("model", "GrandChild", "forward") is found._method("model", "GrandChild", "forward")
    assert found._method("model", "GrandChild", "step", skip_self=True) == ("model", "Child.step")
    assert found._method("model", "Child", "step", skip_self=True) == ("model", "Base.step")
    assert found._base_classes("model", "GrandChild") == [("model", "Child")]
    assert found._base_classes("model", "GrandChild") is found._base_classes("model", "GrandChild")


def test_a_decorators_wrappers_are_found_once(write_tree):
    # every decorated method asks for its decorator's wrappers; finding them reads the whole module
    found = program(write_tree({"model.py": DECORATED}))
    assert found._decorator_wrappers(("model", "logged")) == [("model", "logged.wrapper")]
    assert found._decorator_wrappers(("model", "logged")) is found._decorator_wrappers(("model", "logged"))
    assert ("model", "logged.wrapper") in found.traced_functions()


def test_the_model_entry_points_are_found_once(write_tree):
    # the scope walk and public_api_reach both ask; finding them reads every function of the tree
    found = program(write_tree({"model.py": TREE}))
    assert found.model_entry_points() == {("model", "Base.forward")}
    assert found.model_entry_points() is found.model_entry_points()


PASSING = """
    from torch import nn

    def scale(x, factor):
        return factor

    def shift(x, amount):
        return x + amount

    class Net(nn.Module):
        def forward(self, x):
            return scale(x, 2) + shift(x, x)
"""


def test_a_parameter_that_no_result_reads_does_not_reexamine_the_callers(write_tree):
    # A callee's new tensor parameter changes what its callers read of it only when its result,
    # already a tensor, depends on that parameter (on transformers 5.24, the functions left for the
    # solver's third round fell from 3555 to 1033).
    found = program(write_tree({"model.py": PASSING}))
    solver = _TensorFlow(found, found.traced_functions())
    solver.solve()
    forward, scale, shift = ("model", "Net.forward"), ("model", "scale"), ("model", "shift")
    assert solver.params[shift] == {"x": True, "amount": True}
    assert solver.returns[shift] and not solver.returns[scale]
    solver._dirty.clear()
    solver.params[scale]["x"] = False
    solver._pass_arguments(forward, [("x", TENSOR)], scale)  # scale returns `factor`, not yet a tensor
    assert solver._dirty == {scale}
    solver._dirty.clear()
    solver.params[shift]["x"] = False
    solver._pass_arguments(forward, [("x", TENSOR)], shift)  # shift's tensor result reads `x`
    assert solver._dirty == {shift, forward}


MANY_CALLS = """
    from torch import nn

    def helper(x):
        return x

    class Net(nn.Module):
        def forward(self, x):
            return helper(x) + helper(x) + helper(x)
"""


def test_disabled_calls_ask_each_callee_once(write_tree):
    # whether a callee is disabled was asked once per call of it (63 thousand on transformers 5.24)
    found = program(write_tree({"model.py": MANY_CALLS}))
    asked: list[tuple[str, str]] = []
    lookup = found.function

    def counted(fid: tuple[str, str]):
        asked.append(fid)
        return lookup(fid)

    found.function = counted
    targets = {(("model", "Net.forward"), index): [("model", "helper")] for index in range(3)}
    assert disabled_function_calls(found, targets) == []
    assert asked.count(("model", "helper")) == 1


def test_traced_functions_are_sorted_once_and_callers_mapped_once(write_tree):
    """traced_drafts' passes walk the traced functions in one order, sorted once per Program, and
    what breaks spreads up the solver's own callee -> callers map, not one rebuilt per question."""
    found = program(write_tree({"model.py": TREE}))
    assert found.traced_in_order() == sorted(found.traced_functions())
    assert found.traced_in_order() is found.traced_in_order()
    solver = _TensorFlow(found, found.traced_functions())
    assert solver.callers == {("model", "Base.step"): {("model", "Base.forward")},
                              ("model", "Child.step"): {("model", "Base.forward")}}


def test_successors_are_found_once_per_function(write_tree):
    """The scope walk and eager_entries.py's walk ask for the same functions' successors: the
    second asks the memo, and gets what the walk itself followed."""
    found = program(write_tree({"model.py": TREE}))
    forward = ("model", "Base.forward")
    assert found.successors(forward) == [("model", "Base.step"), ("model", "Child.step")]
    assert found.successors(forward) is found.successors(forward)
    assert found.traced_functions() == {forward, ("model", "Base.step"), ("model", "Child.step")}


DIAMOND = """
    from torch import nn
    from elsewhere import Mixin

    class Root(nn.Module):
        def step(self, x):
            return x

    class Left(Root):
        pass

    class Right(Root):
        def step(self, x):
            return x + 1

    class Both(Left, Mixin, Right):
        def step(self, x):
            return x * 2

        def forward(self, x):
            return self.step(x)
"""


def test_a_classes_search_order_is_walked_once_breadth_first(write_tree):
    # Left, Mixin (not in the tree) and Right before Left's base Root: Right.step is found first,
    # as the breadth-first walk before the order was kept found it
    found = program(write_tree({"model.py": DIAMOND}))
    assert found._method("model", "Both", "step") == ("model", "Both.step")
    assert found._method("model", "Both", "step", skip_self=True) == ("model", "Right.step")
    assert found._method("model", "Left", "step") == ("model", "Root.step")
    assert found._method("model", "Both", "absent") is None
    order = found._search_order("model", "Both")
    assert [cls for _, cls, _ in order] == ["Both", "Left", "Right", "Root"]
    assert found._search_order("model", "Both") is order


def test_the_passes_reuse_a_solved_tensor_flow(write_tree):
    # benchmarks/check_profile.py times the passes apart from the solve they follow
    root = write_tree({"model.py": TREE.replace("return x + 1", "print(x)\n            return x + 1")})
    whole = [(traced.function.qualname, traced.draft) for traced in program(root).traced_drafts()]
    found = program(root)
    solver = _TensorFlow(found, found.traced_functions())
    solver.solve()
    assert [(traced.function.qualname, traced.draft) for traced in found.drafts_of(solver)] == whole
    assert whole
