"""Names a call is handed and rebinds from its tuple, two or more (`x, t_span = solver.sync(x, t_span)`),
keep the kinds they had, besides what the call returns there: a solver object the tree cannot type
(torchdyn's `odeint`, `Union[str, nn.Module]`) still hands back the tensors it was given, prepared.
Measured with Dynamo (torch 2.13): the loop on the rebound `t_span` breaks, and graphmend reports it."""

from __future__ import annotations

from pathlib import Path

from sample_modules import agreed_break_lines, graphmend_findings

SOURCE = """\
import torch
from torch import nn


class Sync:
    def sync(self, x, t_span):
        return x, t_span.to(x)


def make(name):
    return {"s": Sync}[name]()


class Model(nn.Module):
    def forward(self, x):
        t_span = torch.linspace(0, 1, 3)
        solver = make("s")
        x, t_span = solver.sync(x, t_span)
        t, T = t_span[:1], t_span[-1]
        while t < T:
            t = t + 0.5
        return x * t
"""


def test_rebound_names_keep_their_kinds(tmp_path: Path) -> None:
    assert agreed_break_lines(SOURCE, tmp_path) == {20}


def test_one_name_handed_back_is_what_the_call_returns(tmp_path: Path) -> None:
    source = SOURCE.replace("x, t_span = solver.sync(x, t_span)", "y, t_span = solver.sync(x, t_span)")
    assert graphmend_findings(source, tmp_path) == set()  # one name: nothing says the call hands it back
