"""Module-level aliases of imported names (analysis/module_aliases.py), each spelling measured with
TorchDynamo beside `graphmend check`: a call through a name bound once to `torch._dynamo.graph_break`
breaks as the call it aliases and is reported (GM603); a name rebound anywhere in the module may hold
something else, and is not resolved."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from sample_modules import dynamo_breaks, graphmend_findings

from graphmend_bot.analysis.module_aliases import module_aliases
from graphmend_bot.analysis.summary import Imports

pytest.importorskip("torch")

MODEL = """
class Model(torch.nn.Module):
    def forward(self, x):
        x = x * 2
        _sync()
        return x + 1
"""


def _call_line(source: str) -> int:
    return source.splitlines().index("        _sync()") + 1


@pytest.mark.parametrize(
    "prelude",
    [
        "import torch\n\n_sync = torch._dynamo.graph_break\n",
        "import torch\nimport torch._dynamo as dynamo\n\n_sync = dynamo.graph_break\n",
    ],
)
def test_a_call_through_an_alias_breaks_and_is_reported(prelude: str, tmp_path: Path) -> None:
    source = prelude + MODEL
    line = _call_line(source)
    assert dynamo_breaks(source, tmp_path) == {(line, "GB0025")}
    assert (line, "GM603", "GB0025") in graphmend_findings(source, tmp_path)


def test_an_alias_rebound_later_is_not_resolved(tmp_path: Path) -> None:
    """Rebound at module level after the alias, the name holds the second value when traced code calls it."""
    source = "import torch\n\n_sync = torch._dynamo.graph_break\n_sync = lambda: None\n" + MODEL
    assert dynamo_breaks(source, tmp_path) == set()
    assert graphmend_findings(source, tmp_path) == set()


def _aliases(source: str) -> dict[str, str]:
    tree = ast.parse(source)
    imports = Imports("sample", False)
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.add(node)
    return module_aliases(tree, imports.resolve, set(imports.names), source.splitlines())


def test_only_a_name_bound_once_at_top_level_to_an_imported_name_is_an_alias() -> None:
    source = (
        "import math\nimport torch\n\n"
        "sqrt = math.sqrt\n"  # an alias
        "Tensor = torch.Tensor\n"  # an alias
        "local = helper\n"  # `helper` is no import
        "if True:\n    cond = math.cos\n"  # under `if`: not top level
        "tan = math.tan\n"
        "def reset():\n    global tan\n    tan = None\n"  # a function may rebind it
        "for cos in range(3):\n    pass\n"
        "cos = math.cos\n"  # bound twice
    )
    assert _aliases(source) == {"sqrt": "math.sqrt", "Tensor": "torch.Tensor"}


def test_a_binding_on_a_decorator_or_a_continuation_line_counts() -> None:
    """Bindings are searched only in statements with a line naming a candidate: a decorator's lines
    come before its `def`'s line number and are searched with it, and so is a continuation line."""
    source = (
        "import math\n\n"
        "sqrt = math.sqrt\n"
        "tan = math.tan\n"
        "@(sqrt := staticmethod)\ndef scale():\n    pass\n"  # the walrus rebinds `sqrt`
        "def reset():\n    global \\\n        tan\n"  # `global` counts twice
    )
    assert _aliases(source) == {}


TORCH_NAMES = """
import torch
from torch import nn
same = torch.equal
T = torch.Tensor
twice = torch.equal
twice = lambda a, b: True
if torch.cuda.is_available():
    maybe = torch.equal
else:
    maybe = None
Linear = nn.Linear
local = some_module.equal
def same_def(): pass
"""


def test_names_bound_once_to_torch_attributes_are_aliases() -> None:
    """`same = torch.equal` then `same(a, b)` is GM105's torch.equal (ruleV's spellings)."""
    assert _aliases(TORCH_NAMES) == {"same": "torch.equal", "T": "torch.Tensor", "Linear": "torch.nn.Linear"}


def test_rebound_conditional_and_unimported_names_are_not_aliases() -> None:
    found = _aliases(TORCH_NAMES)
    assert "twice" not in found and "maybe" not in found and "local" not in found
