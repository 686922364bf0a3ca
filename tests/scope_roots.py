"""What the tests of `auto`'s roots assert beside the findings: since `auto` roots every public
callable of a package exporting nn.Modules (the public-api scope), the tensor-api policy, which
public callables users surely compile, lives on as public_api.signature_tensor_roots
(Program.surely_compiled; a lone file's tensor-api scope)."""

from __future__ import annotations

from pathlib import Path

from graphmend_bot.config import Config


def signature_roots(root: Path) -> set[str]:
    """`module:qualname` of the public callables of the tree at `root` whose signatures name
    tensors (public_api.signature_tensor_roots), not the forwards (model entry points)."""
    from graphmend_bot.analysis.public_api import signature_tensor_roots
    from graphmend_bot.engine import Workspace

    program = Workspace([str(root)], Config(), jobs=1)._program()
    roots = signature_tensor_roots(program) - program.model_entry_points()
    return {f"{module}:{qualname}" for module, qualname in roots}
