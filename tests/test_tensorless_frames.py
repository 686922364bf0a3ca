"""A break after an earlier break of a frame that holds no tensor is never logged: Dynamo resumes in
a new frame, and convert_frame's `has_tensor_in_frame` skips a frame with no tensor, nn.Module or
container of them among its (live) locals and no `torch` module among the globals its code names
(analysis/tensorless_frames.py). Measured with Dynamo on torch 2.13 against `graphmend check`, on a
torch optimizer's `zero_grad()` (GM655, GB0008: `Optimizer.zero_grad` is `@torch._disable_dynamo`)
reached from a wrapper as in opacus' `DPOptimizer.zero_grad`; the near misses (`step()`, whose own
frame Dynamo compiles and breaks in; the frame names `torch`, `self` is an nn.Module, the call is the
frame's first break, a tensor local is live across the break) log the call, and graphmend reports it."""

from __future__ import annotations

import pytest
from sample_modules import dynamo_breaks, graphmend_findings

WRAPPER = """
import torch
from torch import nn
from torch.optim import Optimizer


class Wrapper{base}:
    def __init__(self, optimizer: Optimizer):
        {init}self.original_optimizer = optimizer

    def run(self, set_to_none: bool = False):
{body}


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(3))
        self.w.grad = torch.ones(3)
        self.wrapper = Wrapper(torch.optim.{cls}([self.w], lr=0.1))

    def forward(self, x):
        y = x * 2
        self.wrapper.run()
        return y + 1
"""
PLAIN = {"base": "", "init": ""}
MODULE = {"base": "(nn.Module)", "init": "super().__init__()\n        "}
FIRST = "        print('clearing', end='')\n"
ZERO = "        self.original_optimizer.zero_grad(set_to_none)\n"
STEP = "        self.original_optimizer.step()\n"


def sample(kind: dict[str, str], body: str, cls: str = "SGD") -> str:
    return WRAPPER.format(cls=cls, body=body, **kind)


def line_of(source: str, text: str) -> int:
    return next(row for row, line in enumerate(source.splitlines(), 1) if text in line)


def test_after_a_break_in_a_frame_without_tensor_nothing_is_logged(tmp_path):
    source = sample(PLAIN, FIRST + ZERO)
    row = line_of(source, ZERO.strip())
    breaks = dynamo_breaks(source, tmp_path)
    assert (line_of(source, "print("), "GB0059") in breaks
    assert not {b for b in breaks if b[0] == row}
    assert not {f for f in graphmend_findings(source, tmp_path) if f[0] == row}


def test_a_callee_compiled_as_its_own_frame_breaks_anyway(tmp_path):
    """The skipped frame's callees are compiled on their own: torch's `step` names `torch`, so its
    `graph_break()` is logged at the call."""
    source = sample(PLAIN, FIRST + STEP)
    row = line_of(source, STEP.strip())
    assert (row, "GB0025") in dynamo_breaks(source, tmp_path)
    assert (row, "GM655", "GB0025") in graphmend_findings(source, tmp_path)


NEAR_MISSES = {
    "first break of the frame": (PLAIN, ZERO),
    "the frame names torch": (PLAIN, FIRST + ZERO + "        return torch.float32\n"),
    "self is an nn.Module": (MODULE, FIRST + ZERO),
    "a tensor local live across the break (built by torch)": (PLAIN, "        t = torch.ones(1) * 2\n" + FIRST + ZERO + "        return t\n"),
}


@pytest.mark.parametrize("case", sorted(NEAR_MISSES))
def test_a_frame_holding_a_tensor_logs_the_call(tmp_path, case):
    kind, body = NEAR_MISSES[case]
    source = sample(kind, body)
    row = line_of(source, ZERO.strip())
    assert (row, "GB0008") in dynamo_breaks(source, tmp_path)
    assert (row, "GM655", "GB0008") in graphmend_findings(source, tmp_path)


@pytest.mark.parametrize("cls", ["Adam", "LBFGS", "SparseAdam"])
def test_zero_grad_of_every_torch_optimizer_is_disabled(tmp_path, cls):
    source = sample(PLAIN, ZERO, cls)
    row = line_of(source, ZERO.strip())
    assert (row, "GB0008") in dynamo_breaks(source, tmp_path)
    assert (row, "GM655", "GB0008") in graphmend_findings(source, tmp_path)


HELD_PATH = """
import pathlib
import torch
from torch import nn


class Store:
    def __init__(self, root: str):
        self.root = pathlib.Path(root)

    def run(self):
{body}


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.store = Store(".")

    def forward(self, x):
        y = x * 2
        self.store.run()
        return y + 1
"""
EXISTS = "        self.root.exists()\n"


@pytest.mark.parametrize("first", [True, False])
def test_a_held_standard_library_object_follows_the_frame(tmp_path, first):
    """GM640 on `self.root.exists()`: logged as the frame's first break, not after an earlier one
    (`Path.exists` then runs as a frame of its own, which holds no tensor either)."""
    source = HELD_PATH.format(body=EXISTS if first else FIRST + EXISTS)
    row = line_of(source, EXISTS.strip())
    logged = {b for b in dynamo_breaks(source, tmp_path) if b[0] == row}
    found = {f for f in graphmend_findings(source, tmp_path) if f[0] == row and f[1] == "GM640"}
    assert bool(logged) == first
    assert {(row, gb_id) for _, _, gb_id in found} == logged



PACKED = WRAPPER.replace("set_to_none: bool = False):", "set_to_none: bool = False{params}):").replace(
    "self.wrapper.run()", "self.wrapper.run({args})").replace(
    "from torch import nn\n", "from torch import nn\nimport torch._dynamo as torch_dynamo\n")
MISSED_HOLDERS = {  # each was dropped as a frame skipped silently (review25), and Dynamo logs it
    "*args holding a tensor": ("", ", *args", "False, x", FIRST + ZERO + "        return args\n"),
    "**kwargs holding a tensor": ("", ", **kwargs", "a=x", FIRST + ZERO + "        return kwargs\n"),
    # co_names holds attribute names: `self.nn` names the global `nn`, a torch module
    "an attribute named as a torch module": ("self.nn = 1\n        ", "", "", FIRST + ZERO + "        return self.nn\n"),
    "a private torch module": ("", "", "", FIRST + ZERO + "        return torch_dynamo\n"),
}


@pytest.mark.parametrize("case", sorted(MISSED_HOLDERS))
def test_a_frame_holding_a_tensor_by_packed_arguments_or_names_logs_the_call(tmp_path, case):
    init, params, args, body = MISSED_HOLDERS[case]
    source = PACKED.format(params=params, args=args, cls="SGD", body=body, base="", init=init)
    row = line_of(source, ZERO.strip())
    assert (row, "GB0008") in dynamo_breaks(source, tmp_path)
    assert (row, "GM655", "GB0008") in graphmend_findings(source, tmp_path)


FORWARDING = {  # `*args` / `**kwargs` given no tensor: the frame stays skipped (review25)
    "nothing packed": (", *args, **kwargs", "", "zero_grad(*args, **kwargs)"),
    "a bool packed": (", *args", "False, True", "zero_grad(*args)"),
}


@pytest.mark.parametrize("case", sorted(FORWARDING))
def test_packed_arguments_without_tensor_leave_the_frame_skipped(tmp_path, case):
    params, args, call = FORWARDING[case]
    source = PACKED.format(params=params, args=args, cls="SGD", body=FIRST + ZERO.replace("zero_grad(set_to_none)", call),
                           base="", init="")
    row = line_of(source, call)
    assert not {b for b in dynamo_breaks(source, tmp_path) if b[0] == row}
    assert not {f for f in graphmend_findings(source, tmp_path) if f[0] == row}
