"""A helper whose graph break cannot be removed -> `@torch.compiler.disable`: run it eagerly.

    def generate_masks(input_ids):              # Grounding DINO (transformers 4.52.4)
        special = torch.zeros(...).bool()
        for token in SPECIAL_TOKENS:
            special |= input_ids == token
        idxs = torch.nonzero(special)           # GM501: the output shape depends on values
        for i in range(idxs.shape[0]): ...      # and a Python loop walks its rows

    @torch.compiler.disable
    def generate_masks(input_ids): ...

PyTorch's guide lists this as the third way to handle a break: don't compile that code
(transformers does it, e.g. `@torch.compiler.disable(recursive=False)  # the operations in this
method are not compilable` in Llama 4). Measured on torch 2.13 (tests/fixtures/rewrite/run_eagerly):
a compiled caller that inlines such a helper breaks twice, at its call (the caller's frame) and
at the operator (the helper's own frame, after compiling a fragment graph of the helper's tensor
work before it). Disabled, the caller still breaks at the call (GB0099, "Skip inlining
torch.compiler.disable()d function"), but the helper's frame is not traced: one fragment graph
and one compilation fewer on a cold start, and one break fewer where Dynamo counted the helper's
own break apart from its caller's (Grounding DINO: 2 -> 1). Where it counted one break per call
(torch_geometric's GAT/GCN calling `remove_self_loops`: `loop.py:113` -> `gat_conv.py:342`), the
break only moves to the call: the gain is the graphs, not the count.

Eager results cannot change: outside `torch.compile` the decorator only calls the function.
Compiled calls run the helper eagerly, which is what its code means. The fix is still unsafe: it
assumes the helper's tensor work around its break is not worth compiling (the compiled prefix, and
a suffix Dynamo could compile after the break, now run eagerly); verification measures it.

Offered only for a break from a data-dependent shape (no rewrite removes it: `Rule.fix_safety`)
on a statement that runs on every call of a plain module-level function, so disabling it never
makes a call break that did not:
- the function is a module-level `def`, not async, not a generator, with no decorator (a
  decorator could be `torch.compile` or change what is called), and nothing in its module hands
  it to `torch.compile` or names it as a configured entry point (disabling the compiled function
  itself would leave nothing to compile and hide every break; a compile from another module is
  caught by verify, which fails a rewritten arm with no graph: judgement.STILL_COMPILED);
- the statement is a direct statement of the function's body, after no `return`;
- the project does not turn on `torch._dynamo.config.capture_dynamic_output_shape_ops` (kornia
  does, in `feature/scale_space_detector.py`): under it the helper traces into one graph with
  unbacked sizes, and the decorator would add the break it claims to contain (measured on torch
  2.13: `torch.compile(fullgraph=True)` of a caller compiles before and raises `Unsupported: Skip
  calling torch.compiler.disable()d function` after, for kornia's `select_seeds` and
  `orientation_diff` and torch_geometric's `remove_self_loops`). A project that sets the flag
  outside the scanned package (the application compiling it) is the assumption stated in the fix.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import libcst as cst

from graphmend_bot.analysis.files import read_capped
from graphmend_bot.findings import Finding, Fix
from graphmend_bot.rewrite.context import FixContext

DECORATOR = "@torch.compiler.disable"
ASSUMPTION = (
    "the helper's tensor work around the break is not worth compiling: compiled calls run the whole helper "
    "eagerly, and its caller still breaks at the call; and the program is not compiled with "
    "`capture_dynamic_output_shape_ops=True`, under which the helper compiles in one graph and the decorator "
    "would add a break (`fullgraph=True` would raise)"
)
CAPTURE_FLAG = "capture_dynamic_output_shape_ops"
# Turning the flag on: `config.capture_dynamic_output_shape_ops = True`, `config.patch(...=True)`,
# `patch({"capture_dynamic_output_shape_ops": True})`. A comment that names it turns nothing on
# (transformers' dbrx: "capture_dynamic_output_shape_ops = True may help but not tested").
CAPTURE_FLAG_SET = re.compile(r"""\bcapture_dynamic_output_shape_ops["']?\s*[=:]\s*True\b""")


def build_fix(ctx: FixContext, finding: Finding) -> Fix | None:
    if finding.rare:
        return None  # a break on an error branch costs nothing on the hot path
    node = ctx.node_at(finding)
    if node is None:
        return None
    function, statement = _function_and_statement(ctx, node)
    if function is None or statement is None or not _plain_helper(ctx, function):
        return None
    if not _runs_on_every_call(function, statement):
        return None
    name = function.name.value
    if compiled_or_entry_point(ctx, name) or _captures_dynamic_shapes(ctx):
        return None
    return Fix.of(
        f"Run `{name}` eagerly (`{DECORATOR}`): its break cannot be removed, and Dynamo no longer compiles a "
        "fragment of it before the break",
        ctx.add_torch_decorator(ctx.position(function).start.line, DECORATOR),
        assumptions=(ASSUMPTION,),
        effect="moves",  # each call of the helper still breaks its caller (GB0099)
    )


def _function_and_statement(
    ctx: FixContext, node: cst.CSTNode
) -> tuple[cst.FunctionDef | None, cst.BaseStatement | None]:
    """The innermost function holding `node`, and the statement of its body that holds `node`."""
    chain = [node, *ctx.ancestors(node)]
    for index, ancestor in enumerate(chain):
        if isinstance(ancestor, cst.Lambda | cst.ClassDef):
            return None, None
        if isinstance(ancestor, cst.FunctionDef):
            # chain[index - 1] is the function's IndentedBlock; the node before it, its statement.
            # A node in a block nested in that statement (an if's body) does not run on every call.
            nested = any(isinstance(link, cst.BaseSuite) for link in chain[: index - 1])
            statement = chain[index - 2] if index >= 2 and not nested else None
            return ancestor, statement if isinstance(statement, cst.BaseStatement) else None
    return None, None


def _plain_helper(ctx: FixContext, function: cst.FunctionDef) -> bool:
    if function.decorators or function.asynchronous is not None:
        return False
    if not isinstance(ctx.parent(function), cst.Module):
        return False  # a method or a nested function: its callers and binding are not this simple
    return not contains(function.body, (cst.Yield,))


def _runs_on_every_call(function: cst.FunctionDef, statement: cst.BaseStatement) -> bool:
    body = function.body.body if isinstance(function.body, cst.IndentedBlock) else ()
    if statement not in body:
        return False  # under an if, a loop, a with or a try: not every call reaches it
    earlier = body[: list(body).index(statement)]
    return not any(contains(item, (cst.Return,)) for item in earlier)


def contains(node: cst.CSTNode, kinds: tuple[type[cst.CSTNode], ...]) -> bool:
    """Whether `node` holds one of `kinds` in its own code (not in a nested def, class or lambda)."""
    if isinstance(node, kinds):
        return True
    return any(
        contains(child, kinds)
        for child in node.children
        if not isinstance(child, cst.FunctionDef | cst.ClassDef | cst.Lambda)
    )


def compiled_or_entry_point(ctx: FixContext, name: str) -> bool:
    """`name` is passed to `torch.compile` in its module, or named by a configured entry point."""
    if re.search(rf"\bcompile\(\s*{re.escape(name)}\b", ctx.source):
        return True
    return any(re.split(r"[:.]", entry)[-1] == name for entry in ctx.config.entry_points)


def _captures_dynamic_shapes(ctx: FixContext) -> bool:
    """The module, or the package it belongs to, turns `capture_dynamic_output_shape_ops` on."""
    if _sets_capture_flag(ctx.source):
        return True
    if ctx.path.startswith("<"):
        return False
    folder = Path(ctx.path).resolve().parent
    if not (folder / "__init__.py").is_file():
        return False  # a script's folder is not scanned (it may hold a virtualenv with torch itself)
    while (folder.parent / "__init__.py").is_file():
        folder = folder.parent  # the top-level package holding the module
    return _package_sets_capture_flag(str(folder))


def _sets_capture_flag(source: str) -> bool:
    if CAPTURE_FLAG not in source:
        return False  # the common case: one substring search
    return any(CAPTURE_FLAG_SET.search(line.partition("#")[0]) for line in source.splitlines() if CAPTURE_FLAG in line)


@functools.lru_cache(maxsize=64)
def _package_sets_capture_flag(package: str) -> bool:
    """One text scan per package and process, only when a helper is a candidate for the decorator."""
    for file in Path(package).rglob("*.py"):
        try:  # a device or FIFO named *.py is never read, nor more than the size cap (files.py)
            if _sets_capture_flag(read_capped(str(file)).decode("utf-8", "replace")):
                return True
        except ValueError:
            continue
    return False
