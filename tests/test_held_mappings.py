"""`self.NAME.get(key).item()` where NAME holds tensors the class's `__init__` display does not show:
a mapping built by a call (`nn.ParameterDict`, `defaultdict`, a factory's object with its own `get`)
or one a method writes into (`self.cfg["k"] = t`, `.update(k=t)`). Dynamo breaks on the `.item()`
(GB0124, measured on torch 2.13); value_sources.mapping_get must not read the element from the
display (analysis/held_mappings.py). The near miss, a display of NumPy floats, is in
tests/test_value_sources.py (MAPPING_GET)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch")

from sample_modules import agreed_break_lines, line_of

HEAD = "import collections\nimport torch\nfrom torch import nn\n"
READ = 'return x * self.cfg.get("s").item()'


def _model(init: str, forward: str = "") -> str:
    return HEAD + f"""

class Store:
    def __init__(self):
        self.t = torch.ones(1)

    def get(self, key):
        return self.t


def make_store():
    return Store()


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        {init}

    def forward(self, x):
        {forward}
        {READ}
"""


CASES = {
    "written_in_init": _model('self.cfg = {"s": 1.0}\n        self.cfg["s"] = torch.ones(1)'),
    "updated_in_init": _model('self.cfg = {"s": 1.0}\n        self.cfg.update(s=torch.ones(1))'),
    "written_in_forward": _model("self.cfg = {}", 'self.cfg["s"] = x.sum()'),
    "parameter_dict": _model('self.cfg = nn.ParameterDict({"s": nn.Parameter(torch.ones(1))})'),
    "defaultdict": _model("self.cfg = collections.defaultdict(lambda: torch.ones(1), s=torch.ones(1))"),
    "factory_object": _model("self.cfg = make_store()"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_get_of_a_mapping_the_display_does_not_describe_is_judged_opaque(name: str, tmp_path: Path) -> None:
    source = CASES[name]
    assert agreed_break_lines(source, tmp_path) == {line_of(source, READ)}
