"""benchmarks/wild/kind_gaps.py on a small package: what the eager call's locals held against the
kinds graphmend solves, per (function, name), and how a gap's name was bound."""

from __future__ import annotations

import ast
import importlib
import os
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks" / "wild"))

from kind_gaps import binding_sources, classify, runtime_kinds, static_kinds

MODULE = """\
import torch

_OPS = {"double": lambda t: t * 2}


class M(torch.nn.Module):
    def forward(self, x, bias=None):
        y = helper(x)
        n = x.shape[0]
        z = _OPS["double"](x)
        if bias is not None:
            y = y + bias
        return y * n + z


def helper(x):
    return x * 2
"""


def test_runtime_and_static_kinds_of_locals(tmp_path: Path) -> None:
    package = tmp_path / "kgpkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "mod.py").write_text(MODULE)
    config = tmp_path / "config.yml"
    config.write_text("entry-points: []\n")
    sys.path.insert(0, str(tmp_path))
    try:
        module = importlib.import_module("kgpkg.mod")
        held = runtime_kinds(os.path.realpath(package), [("call", lambda: (module.M(), (torch.ones(3),), {}))])
    finally:
        sys.path.remove(str(tmp_path))
        for name in ("kgpkg", "kgpkg.mod"):
            sys.modules.pop(name, None)
    forward = held[("kgpkg.mod", "M.forward")]
    assert forward["x"] == forward["y"] == forward["z"] == {"tensor"}
    assert forward["n"] == {"scalar"} and forward["bias"] == {"none"}
    assert held[("kgpkg.mod", "helper")]["x"] == {"tensor"}
    solved, traced = static_kinds(str(package), str(config))
    assert ("kgpkg.mod", "M.forward") in traced
    said = solved[("kgpkg.mod", "M.forward")]
    assert said["x"] and said["y"] and not said["n"]  # z: the element of a dict of lambdas, unknown
    assert solved[("kgpkg.mod", "helper")]["x"]


def test_bindings_are_classified_by_source() -> None:
    function = ast.parse(MODULE).body[2].body[0]
    assert isinstance(function, ast.FunctionDef)
    assert binding_sources(function, "y", {"helper"}) == ["in-tree helper", "expression"]
    assert classify(binding_sources(function, "z", set())) == "other call"
    assert classify(binding_sources(function, "bias", set())) == "parameter, no annotation"
    assert classify(binding_sources(function, "torch", set())) == "free name (closure or global)"
