"""A compile guard inside a condition, and `x is None` known on a path (guards.without_guards,
narrowing.py), measured with torch._dynamo.explain, with negatives.

transformers' mask helpers return early under a guard of their own before reading a mask:
`if padding_mask is not None and is_tracing(padding_mask): return False`. Under compile the
test is `padding_mask is not None`, so the rest of the function runs only with the mask None,
and `padding_mask is None or fast_all(padding_mask)` never reads it (Dynamo traces `is None` on
None as a constant). The same holds without a guard (`if mask is not None: return`), through
`or` (`if other_check() or mask is not None: return`) and inside one condition
(`not (mask is not None and is_tracing(mask)) and (mask is None or mask.all())`). A mask tested
after a guard about another name, or after no early return, is read and breaks."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from test_scope_edges import _assert_reported_where_dynamo_breaks

MASKS = """
    import torch
    from torch import nn


    def is_tracing(tensor=None):
        return torch.compiler.is_compiling()


    def fast_all(t):
        return t.sum() == t.numel()


    def skip_causal(padding_mask, q_offset, q_length):
        if padding_mask is not None and is_tracing(padding_mask):
            return False
        if isinstance(q_offset, torch.Tensor) and is_tracing(q_offset):
            return False
        if q_length == 1 and (padding_mask is None or fast_all(padding_mask)):
            return True
        return q_offset == 0


    def skip_bidirectional(padding_mask):
        if not (padding_mask is not None and is_tracing(padding_mask)) and (padding_mask is None or padding_mask.all()):
            return True
        return False


    def skip_without_guard(padding_mask, flag):
        if flag or padding_mask is not None:
            return False
        if padding_mask is None or fast_all(padding_mask):
            return True
        return False


    def skip_when_none(padding_mask):
        if padding_mask is not None and is_tracing(padding_mask):
            return False
        if padding_mask is None:
            return True
        return padding_mask.all()


    def unguarded(padding_mask, q_length):
        if q_length == 1 and (padding_mask is None or fast_all(padding_mask)):  # break
            return True
        return False


    def guard_on_another_name(padding_mask, other):
        if other is not None and is_tracing(other):
            return False
        if padding_mask is None or fast_all(padding_mask):  # break
            return True
        return False


    class Net(nn.Module):
        def forward(self, x):
            mask = x > 0
            y = x + 1
            if skip_causal(mask, torch.tensor(0), 1):
                y = y + 1
            if skip_bidirectional(mask):
                y = y + 2
            if skip_without_guard(mask, x.shape[0] == 3):
                y = y + 3
            if skip_when_none(mask):
                y = y + 4
            y = y * 2
            a = unguarded(mask, 1)
            y = y * 3
            b = guard_on_another_name(mask, None)
            return y, a, b
"""


def test_the_rest_of_a_function_after_a_guarded_early_return_runs_with_the_name_none(write_tree) -> None:
    root = write_tree({"guardpkg/__init__.py": "", "guardpkg/masks.py": MASKS})
    _assert_reported_where_dynamo_breaks(root, "guardpkg", "masks", "Net", "masks.py")
