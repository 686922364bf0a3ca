"""Module-level names bound once to a torch attribute resolve as that attribute (module_aliases.py)."""

from __future__ import annotations

import ast

from graphmend_bot.analysis.module_aliases import module_aliases
from graphmend_bot.analysis.summary import Imports

SOURCE = """
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


def aliases() -> dict[str, str]:
    tree = ast.parse(SOURCE)
    imports = Imports("pkg.mod", False)
    for stmt in tree.body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            imports.add(stmt)
    return module_aliases(tree, imports.resolve, set(imports.names))


def test_names_bound_once_to_torch_attributes_are_aliases() -> None:
    assert aliases() == {"same": "torch.equal", "T": "torch.Tensor", "Linear": "torch.nn.Linear"}


def test_rebound_conditional_and_non_torch_names_are_not() -> None:
    found = aliases()
    assert "twice" not in found and "maybe" not in found and "local" not in found
