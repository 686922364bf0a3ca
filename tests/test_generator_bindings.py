"""A draw with `generator=gen` where one arm binds `gen` to a `torch.Generator` and the other to
None (torch-kmeans's seeded initialisation): Dynamo breaks at the draw when the generator arm ran
("Missing `as_proxy()`", GB0055), measured with `torch._dynamo.explain` on torch 2.13; main forgot
the generator at the `else` arm's `gen = None` and reported nothing there. Near misses measured:
`generator=None` bound on every path, and a `generator` parameter (None on the call) do not break."""

from __future__ import annotations

from pathlib import Path

import pytest
from sample_modules import dynamo_breaks, graphmend_findings

_HEAD = (
    "import torch\nfrom torch import nn\n\n\nclass Model(nn.Module):\n"
    "    def __init__(self, seed=1):\n        super().__init__()\n        self.seed = seed\n\n"
)

# the forward's body; the draw is the line holding `generator=`; whether Dynamo breaks there
CASES = {
    "else_arm_binds_none": ([
        "def forward(self, x):",
        "    if self.seed is not None:",
        "        gen = torch.Generator(device=x.device)",
        "    else:",
        "        gen = None",
        "    return x + torch.multinomial(torch.ones(2, 5), 1, generator=gen).sum()",
    ], True),
    "seeded_in_the_arm": ([
        "def forward(self, x):",
        "    if self.seed is not None:",
        "        gen = torch.Generator(device=x.device)",
        "        gen.manual_seed(self.seed)",
        "    else:",
        "        gen = None",
        "    return torch.randn(3, generator=gen) + x",
    ], True),
    "none_first_then_the_arm": ([
        "def forward(self, x):",
        "    gen = None",
        "    if self.seed is not None:",
        "        gen = torch.Generator(device=x.device)",
        "    return torch.rand(3, generator=gen) + x",
    ], True),
    # near misses
    "none_on_every_path": ([
        "def forward(self, x):",
        "    gen = None",
        "    return torch.rand(3, generator=gen) + x",
    ], False),
    "a_generator_parameter": ([
        "def forward(self, x, gen=None):",
        "    return torch.rand(3, generator=gen) + x",
    ], False),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_generator_bound_in_one_arm(tmp_path: Path, case: str) -> None:
    lines, breaks = CASES[case]
    source = _HEAD + "".join(f"    {line}\n" for line in lines)
    rows = source.splitlines()
    draw = next(n for n, line in enumerate(rows, 1) if "generator=gen" in line)
    built = {n for n, line in enumerate(rows, 1) if "torch.Generator(" in line or "manual_seed" in line}
    assert {line for line, _ in dynamo_breaks(source, tmp_path)} - built == ({draw} if breaks else set())
    assert {(line, code) for line, code, _ in graphmend_findings(source, tmp_path) if line not in built} == (
        {(draw, "GM604")} if breaks else set())
