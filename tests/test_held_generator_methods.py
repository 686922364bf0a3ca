"""GM647: a stateful method of a `torch.Generator` held from outside the compiled region or received
as a typed parameter breaks with GB7650 ("torch.Generator method"), measured with Dynamo on torch
2.13 beside what graphmend reports. Near misses measured: what only looks like one (a class of the
tree with `manual_seed`, `random.Random`, a plain `self.seed`), reading `g.device`, and a generator
built in the frame (GM604's, not reported twice)."""

from __future__ import annotations

from pathlib import Path

from sample_modules import dynamo_breaks, graphmend_findings, line_of
from torch._dynamo import trace_rules

from graphmend_bot.rules.gm647_held_generator_method import GENERATOR_METHODS

_HEAD = "import random\nfrom typing import Optional\n\nimport torch\nfrom torch import nn\n\n"

HELD = _HEAD + '''
GEN = torch.Generator()


def helper(x: torch.Tensor, g: torch.Generator) -> torch.Tensor:
    g.manual_seed(0)  # typed parameter
    return x + 1


def maybe(x: torch.Tensor, generator: Optional[torch.Generator] = None) -> torch.Tensor:
    if generator is not None:
        generator.manual_seed(1)  # Optional parameter
    return x + 1


def union(x: torch.Tensor, generator: "torch.Generator | None") -> torch.Tensor:
    s = generator.initial_seed()  # `| None` parameter
    return x + 1


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.gen = torch.Generator()
        self.seeded = torch.Generator().manual_seed(3)

    def forward(self, x):
        x = x * 2
        self.gen.manual_seed(0)  # held attribute
        x = x + 1
        state = self.seeded.get_state()  # held, built by manual_seed
        x = x - 1
        self.seeded.set_state(state)  # set_state
        x = x * 3
        GEN.manual_seed(2)  # module global
        x = helper(x, self.gen)
        x = maybe(x, self.gen)
        x = union(x, self.gen)
        s = torch.random.default_generator.initial_seed()  # default generator's other name
        return x + 1
'''

NEAR = _HEAD + '''
class Sampler:
    def __init__(self):
        self.state = 0

    def manual_seed(self, seed):
        self.state = seed


class Model(nn.Module):
    def __init__(self, gen=None):
        super().__init__()
        self.gen = torch.Generator()
        self.sampler = Sampler()
        self.rng = random.Random(0)
        self.seed = 5

    def forward(self, x):
        x = x * 2
        d = self.gen.device
        self.sampler.manual_seed(1)
        y = x + self.seed
        local = torch.Generator()  # GM604: built in the frame
        local.manual_seed(0)  # GM604
        return y
'''


def test_methods_of_held_and_received_generators_break(tmp_path: Path) -> None:
    breaks = dynamo_breaks(HELD, tmp_path)
    found = {(line, code, gb) for line, code, gb in graphmend_findings(HELD, tmp_path) if code == "GM647"}
    expected = {line_of(HELD, text) for text in (
        "typed parameter", "Optional parameter", "`| None` parameter", "held attribute", "held, built by",
        "# set_state", "module global", "default generator's",
    )}
    assert {line for line, gb in breaks if gb == "GB7650"} == expected
    assert found == {(line, "GM647", "GB7650") for line in expected}


def test_near_misses_are_not_reported(tmp_path: Path) -> None:
    breaks = dynamo_breaks(NEAR, tmp_path)
    findings = graphmend_findings(NEAR, tmp_path)
    assert not [f for f in findings if f[1] == "GM647"]
    built = {line_of(NEAR, "built in the frame"), line_of(NEAR, "local.manual_seed(0)")}
    # only the generator built in the frame breaks, and GM604 reports it
    assert {line for line, _ in breaks} == built
    assert {line for line, code, _ in findings if code == "GM604"} == built


def test_the_methods_are_dynamos() -> None:
    assert set(GENERATOR_METHODS) == set(trace_rules._GENERATOR_METHODS_THAT_GRAPH_BREAK)
