"""A torch optimizer built in traced code (GM695) and the `step()` of one built there (GM655),
measured with Dynamo.

An inner optimisation loop written inside a compiled function (an adversarial attack, test-time
fitting) breaks where it builds the optimizer, whichever torch.optim class and however the
parameters are given, and again at `step()` (`graph_break()` around the update): Dynamo logs that
one even where the rest of the frame runs eagerly, since it compiles `step` as a frame of its own.
The constructor's id depends on the process: the first optimizer of a class breaks with GB0467
(GB0088 for `LBFGS`, measured in a fresh interpreter), a later one with GB0008, the id reported
(the parametrized cases below run after the module's own `_TRAINING` optimizers are built). Near miss: a
class of the tree named like a torch optimizer.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).parent))

import torch
from sample_modules import dynamo_breaks, graphmend_findings, line_of

# Built eagerly first, as a training script builds its optimizer: each class is patched from here on.
_TRAINING = [
    cls([torch.zeros(1, requires_grad=True)], lr=0.1)
    for cls in (torch.optim.Adam, torch.optim.SGD, torch.optim.AdamW, torch.optim.RMSprop)
]


def _model(build: str, loop: bool = False) -> str:
    update = "opt.step()"
    if loop:
        update = "for _ in range(2):\n            opt.step()"
    return (
        "import torch\n"
        "from torch import nn, optim\n\n\n"
        "class SGD:\n"
        "    def __init__(self, params, lr):\n"
        "        self.lr = lr\n\n"
        "    def step(self):\n"
        "        return self.lr\n\n\n"
        "class Model(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.w = nn.Parameter(torch.ones(3))\n"
        "        self.w.grad = torch.ones(3)\n\n"
        "    def forward(self, x):\n"
        "        y = x * 2\n"
        "        y = y + 1\n"
        f"        opt = {build}\n"
        "        y = y * 3\n"
        f"        {update}\n"
        "        return y - 1\n"
    )


@pytest.mark.parametrize(
    ("build", "loop"),
    [
        ("torch.optim.Adam(self.parameters(), lr=0.1)", False),
        ("optim.SGD([self.w], lr=0.1)", False),
        ("optim.AdamW(list(self.parameters()), lr=0.1)", True),
        ("optim.RMSprop([{'params': [self.w]}], lr=0.1)", False),
    ],
)
def test_an_optimizer_built_in_traced_code_breaks_there_and_at_its_step(tmp_path: Path, build: str, loop: bool) -> None:
    source = _model(build, loop)
    built, step = line_of(source, "opt = "), line_of(source, "opt.step()")
    assert dynamo_breaks(source, tmp_path) == {(built, "GB0008"), (step, "GB0025")}
    assert graphmend_findings(source, tmp_path) == {(built, "GM695", "GB0008"), (step, "GM655", "GB0025")}


def test_a_class_of_the_tree_named_like_an_optimizer_is_not_one(tmp_path: Path) -> None:
    source = _model("SGD(self.parameters(), lr=0.1)")
    assert dynamo_breaks(source, tmp_path) == set()
    assert graphmend_findings(source, tmp_path) == set()
