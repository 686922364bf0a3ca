"""What an I/O call in traced code is for, and when neither a guard nor a deferral may touch it.

A guard (`if not torch.compiler.is_compiling():`) removes the call under torch.compile. That is
right for a diagnostic on the hot path, and wrong for:

- **output**: `print(..., file=f)` to a file or stream the program owns, and prints in writers
  (`write_*`, `save_*`, `dump_*`, `*Writer` classes). Guarded, a compiled caller would write empty
  files. `file=sys.stderr` stays a diagnostic.
- **export-time warnings**: a call under `if torch.onnx.is_in_onnx_export():` (or
  `torch.compiler.is_exporting()`, `torch.jit.is_tracing()`/`is_scripting()`). `is_compiling()`
  is true under export too, so the guard would silence the warning in the one case it is for.
- **rare-branch signals**: a warning or message on an error or misconfiguration branch
  (`Finding.frequency == "rare-branch"`). The graph breaks only for the misconfigured call, and the
  message is what that user needs, compiled or not. A deprecation notice is not one: its branch is
  "the caller used the deprecated API", which fires on every such call.
- **upgrade notices** (a message that asks for an "upgrade", like torchdiffeq's "Upgrade PyTorch
  to remove this warning" on its numpy fallback; a plain "falling back to eager attention" stays a
  diagnostic): a compiled user needs them as much as an eager one, to update their install.

A **deprecation notice** (`DeprecationWarning`, `FutureWarning`, or a message that says
"deprecated") gets no guard at all: compiled callers need it as much as eager ones (a maintainer
rejects a guard that hides diffusers' "`scale` ... will be ignored" from them). io_deprecation.py
defers it past the graph through Dynamo instead, whatever `io-strategy` says, or leaves it with its
advice where the deferral cannot be written. Its branch (`if device is not None:`) is the caller
using the deprecated API, so it is no rare-branch signal either.
- **modules without torch**: the guard needs `torch`; a module that does not import it is utility
  or CLI code the analysis reached by name, and gets no new top-level `import torch`.

`keep_as_written` returns the reason as text (the finding keeps its advice); None means a guard may
be offered.
Rule docs: GM401-GM403 (`graphmend rule GM403`) give the decision and the measurements.
"""

from __future__ import annotations

from typing import Literal

import libcst as cst

from graphmend_bot.findings import Finding
from graphmend_bot.rewrite.branching import binds_torch
from graphmend_bot.rewrite.context import FixContext
from graphmend_bot.rewrite.purity import dotted

# Which I/O call a finding is: each rule names the entry point of io.py that says so.
IoCall = Literal["print", "logger", "warning"]

EXPORT_PREDICATES = frozenset({"is_in_onnx_export", "is_exporting", "is_tracing", "is_scripting"})
STDERR = frozenset({"sys.stderr", "sys.__stderr__"})
WRITER_PREFIXES = ("write", "save", "dump", "export")
GUARD_HELPERS = ("is_torchdynamo_compiling",)
DEPRECATIONS = frozenset({"DeprecationWarning", "FutureWarning", "PendingDeprecationWarning"})
# Words of a message that asks the user to change their install, or their code.
UPGRADE_WORDS = ("upgrade",)
DEPRECATION_WORDS = ("deprecat",)
# What a guard that covered a deprecation notice would assume (io.py keeps notices out of guards).
DEPRECATION_ASSUMPTION = "the deprecation notice still shows in eager runs; compiled calls skip it"


def keep_as_written(ctx: FixContext, finding: Finding, call: cst.Call, construct: IoCall) -> str | None:
    """Why this I/O call must be left as written (advice only), or None."""
    if construct == "print":
        output = _program_output(ctx, call)
        if output is not None:
            return output
    if _says(call, UPGRADE_WORDS) and deprecation_notice(call) is None:
        return "an upgrade notice is the signal compiled users need to update their install"
    if _under_export_branch(ctx, call):
        return "it runs only under export, where is_compiling() is true as well"
    # A deprecation notice's branch (`if device is not None: warnings.warn(...)`) is the caller using
    # the deprecated API: it fires on every such call, eager or compiled, so it is no rare signal.
    if finding.rare and deprecation_notice(call) is None:
        return "it is the signal for a rare error or misconfiguration branch"
    if not binds_torch(ctx.module) and not any(h in ctx.source for h in GUARD_HELPERS):
        return "the module does not import torch"
    return None


def _program_output(ctx: FixContext, call: cst.Call) -> str | None:
    for arg in call.args:
        is_file = arg.keyword is not None and arg.keyword.value == "file"
        if is_file and (dotted(arg.value) or "") not in STDERR:
            return "it writes to a file or stream the program owns"
    for ancestor in ctx.ancestors(call):
        if isinstance(ancestor, cst.FunctionDef) and ancestor.name.value.lstrip("_").startswith(WRITER_PREFIXES):
            return f"it is output of the writer `{ancestor.name.value}`"
        if isinstance(ancestor, cst.ClassDef) and ancestor.name.value.endswith("Writer"):
            return f"it is output of the writer class `{ancestor.name.value}`"
    return None


def deprecation_notice(call: cst.Call) -> str | None:
    """The assumption a guard of this call rests on when it is a deprecation notice, else None."""
    return DEPRECATION_ASSUMPTION if _deprecation_category(call) or _says(call, DEPRECATION_WORDS) else None


def _deprecation_category(call: cst.Call) -> bool:
    """`warnings.warn(msg, DeprecationWarning)` (or FutureWarning, positional or `category=`)."""
    if not (dotted(call.func) or "").endswith("warn"):
        return False
    for index, arg in enumerate(call.args):
        is_category = arg.keyword.value == "category" if arg.keyword is not None else index == 1
        if is_category and (dotted(arg.value) or "").rsplit(".", 1)[-1] in DEPRECATIONS:
            return True
    return False


def _says(call: cst.Call, words: tuple[str, ...]) -> bool:
    """The call's message has one of `words` (`logger.warning("Passing ... is deprecated")`,
    "Upgrade PyTorch to remove this warning")."""
    found = False

    def has_word(text: str) -> bool:
        lowered = text.lower()
        return any(word in lowered for word in words)

    class Visitor(cst.CSTVisitor):
        def visit_SimpleString(self, string: cst.SimpleString) -> None:
            nonlocal found
            found = found or has_word(string.value)

        def visit_FormattedStringText(self, text: cst.FormattedStringText) -> None:
            nonlocal found
            found = found or has_word(text.value)

    for arg in call.args:
        arg.value.visit(Visitor())
    return found


def _under_export_branch(ctx: FixContext, call: cst.Call) -> bool:
    child: cst.CSTNode = call
    for ancestor in ctx.ancestors(call):
        if isinstance(ancestor, cst.If) and child is ancestor.body and _mentions_export(ancestor.test):
            return True
        child = ancestor
    return False


def _mentions_export(test: cst.BaseExpression) -> bool:
    found = False

    class Visitor(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            nonlocal found
            name = dotted(node.func) or ""
            found = found or name.rsplit(".", 1)[-1] in EXPORT_PREDICATES

    test.visit(Visitor())
    return found
