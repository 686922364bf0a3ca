"""benchmarks/wild/reach_reasons.py: why the default scope does not reach a missed statement's
function, decided from the scope `check` settles on and the package's public API."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks" / "wild"))

from reach_reasons import reason

from graphmend_bot.analysis.scope import Program
from graphmend_bot.config import Config
from graphmend_bot.engine import Workspace

OPS = """
    import torch


    def scale(x):
        return _double(x) * 2


    def _double(x):
        return x + x


    def _orphan(x):
        return x.tolist()
"""


def _reasons(root: Path, package: str) -> dict[str, str]:
    workspace = Workspace([str(root / package)], Config(), jobs=1)
    program = Program(
        workspace.summaries.values(),
        workspace.config.entry_points,
        workspace.dependency_summaries,
        workspace.scope,
    )
    public_reach = program._closure(program.public_callables(), program.successors)
    return {
        name: reason(program, (f"{package}.ops", name), public_reach)
        for name in ("scale", "_double", "_orphan")
    }


def test_a_library_scope_reaches_the_public_api_and_leaves_an_uncalled_private_helper(write_tree) -> None:
    root = write_tree({"libpkg/__init__.py": "from libpkg.ops import scale\n", "libpkg/ops.py": OPS})
    assert _reasons(root, "libpkg") == {
        "scale": "reached by this checkout's default scope",
        "_double": "reached by this checkout's default scope",
        "_orphan": "private, no public callable reaches it [a function under a private name]",
    }


def test_a_model_zoo_compiling_something_itself_keeps_the_model_scope(write_tree) -> None:
    compiled = OPS + "\n\n    @torch.compile\n    def _fast(x):\n        return x\n"
    net = "from torch import nn\n\n\nclass Net(nn.Module):\n    def forward(self, x):\n        return x\n"
    root = write_tree(
        {"cpkg/__init__.py": "from cpkg.ops import scale\n", "cpkg/ops.py": compiled, "cpkg/net.py": net}
    )
    why = "model scope: the package compiles something itself [its own code, exports nn.Modules]"
    assert _reasons(root, "cpkg") == {
        "scale": f"{why} (public callables reach it)",
        "_double": f"{why} (public callables reach it)",
        "_orphan": f"{why} (no public callable reaches it)",
    }
