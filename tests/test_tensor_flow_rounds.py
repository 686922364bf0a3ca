"""The tensor-flow fixpoint (scope._TensorFlow.solve) examines a function again only when
something its facts depend on changed, and reaches the fixpoint a round over every function does."""

from collections import Counter

from graphmend_bot.analysis.scope import Program, _TensorFlow
from graphmend_bot.engine import Workspace

MODEL = """
    import torch
    from torch import nn

    def scale(x):
        return x * 2

    def shifted(y):
        return scale(y) + 1

    def width(count):
        return count + 1

    class Block(nn.Module):
        def forward(self, x):
            self.last = shifted(x)
            return width(3), self.last
"""


def solver(root) -> _TensorFlow:
    workspace = Workspace([str(root)])
    program = Program(workspace.summaries.values(), workspace.config.entry_points, workspace.dependency_summaries)
    return _TensorFlow(program, program.traced_functions())


def examinations(flow: _TensorFlow) -> Counter:
    """How many times solve examines each function: each examination asks whether it returns a tensor."""
    counts: Counter = Counter()
    holds = flow.holds

    def counting(fid, deps):
        if deps is flow.program.function(fid).returns:
            counts[fid[1]] += 1
        return holds(fid, deps)

    flow.holds = counting  # type: ignore[method-assign]
    flow.solve()
    return counts


def full_rounds(flow: _TensorFlow) -> None:
    """The reference: every round examines every function (what solve computed before it skipped any)."""
    for _ in range(50):
        changed = False
        for fid in flow.traced:
            function = flow.program.function(fid)
            if not flow.returns[fid] and flow.holds(fid, function.returns):
                flow.returns[fid] = changed = True
            flags = flow.element_returns.get(fid)
            if flags is not None and function.return_elements is not None:
                for index, kind in enumerate(function.return_elements):
                    if not flags[index] and flow.holds(fid, kind):
                        flags[index] = changed = True
            for index, site in enumerate(function.calls):
                for target in flow.targets.get((fid, index), ()):
                    passed = [(name, kind) for name, kind in flow._arguments(site, target).items()
                              if name not in flow.fixed[target]]
                    became_tensor, _ = flow._pass_arguments(fid, passed, target)
                    changed |= became_tensor
        changed |= flow.attributes.update(flow.holds)
        changed |= flow._pass_untraced_arguments()
        if not changed:
            return


def facts(flow: _TensorFlow) -> tuple:
    return flow.params, flow.returns, flow.element_returns, flow.attributes.tensors


def test_a_function_whose_inputs_never_change_is_examined_once(write_tree):
    root = write_tree({"model.py": MODEL})
    flow = solver(root)
    counts = examinations(flow)
    assert set(counts) == {qualname for _, qualname in flow.traced}  # each examined in the first round
    # width(3) receives no tensor and calls nothing: nothing it depends on ever changes, while the
    # others change in the first round (a tensor reaches scale and shifted, Block.last is one).
    assert counts["width"] == 1


def test_the_fixpoint_is_the_one_full_rounds_reach(write_tree):
    root = write_tree({"model.py": MODEL})
    skipping, reference = solver(root), solver(root)
    skipping.solve()
    full_rounds(reference)
    assert facts(skipping) == facts(reference)
    assert skipping.returns[("model", "scale")] and not skipping.returns[("model", "width")]
