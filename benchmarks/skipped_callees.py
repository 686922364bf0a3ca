"""Write graphmend_bot/vocabulary/skipped_callees.py from the installed torch's own trace rules: the
standard-library functions a traced frame cannot call without a graph break, each measured.

    python benchmarks/skipped_callees.py           # (re)write the table (about a minute)
    python benchmarks/skipped_callees.py --check   # exit 1 when the table is out of date

Candidates: every public module-level function of every public standard-library module that
torch/_dynamo/trace_rules.py's `lookup` classifies as `SkipFunctionVariable` (C functions with no
Dynamo handler, and the Python functions of its skip list: `BUILTIN_SKIPLIST`, `MOD_SKIPLIST`);
and the Python functions it inlines that take no required argument (`threading.current_thread()`,
`traceback.format_stack()`), which break when what they call inside is skipped: Dynamo reports
that at the caller's line, with the callee's id. Those are traced through for real, so the
modules whose functions wait for input or start processes or servers when run (`INTERACTIVE`)
are left out, and so are functions named `main`, `test` or `cli` (command-line entry points).
`lookup` does not see what Dynamo does before or after it (its `VariableBuilder` special cases,
polyfills, and the constant folding `SkipFunctionVariable.call_function` does for `re` and
`importlib`), so each candidate is measured: `mod.fn()` between two tensor operations, compiled
with `fullgraph=True` (the call never runs: Dynamo refuses it while tracing, before binding any
argument). A candidate enters the table only when Dynamo refuses it as a skipped function
(GB0007 "Attempted to call function marked as skipped", or GB0008 for a skipped function it
tried to inline); the others are kept apart, in `HANDLED`, so a change of torch shows in both.
tests/test_skipped_callees.py keeps the table in step with the pinned torch.

torch's own public functions are left out on purpose: generated the same way (c19b2ca, again in
8836738, GM606 unchanged) they added no break statement on either half of the wild corpus and one
executed false positive on the test half (counted by rule code: GM606, a torch-family finding on
an `__init__` branch the measured call did not take), so both were reverted.
"""

from __future__ import annotations

import importlib
import inspect
import json
import sys
import types
import warnings
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))

from generated_table import write_or_check  # noqa: E402

TABLE = REPO / "graphmend_bot" / "vocabulary" / "skipped_callees.py"
SKIPPED_IDS = frozenset({"GB0007", "GB0008"})
# Modules never imported here: they open windows, print, or only exist on other platforms.
NOT_IMPORTED = frozenset({
    "antigravity", "this", "idlelib", "tkinter", "turtle", "turtledemo", "ensurepip", "venv", "lib2to3",
    "pydoc_data", "msilib", "winreg", "winsound", "msvcrt", "nt", "builtins",
    "posix",  # `os` re-exports it; the table names what code imports
})
FUNCTION_TYPES = (types.FunctionType, types.BuiltinFunctionType, types.MethodType)
# Never traced through as inlined candidates: run, they may wait on a terminal, fork, open a browser
# or a server, or change the interpreter's hooks.
INTERACTIVE = frozenset({
    "asyncio", "asyncore", "bdb", "cgi", "cgitb", "code", "compileall", "curses", "dis", "doctest",
    "fileinput", "getpass", "pdb", "pty", "pydoc", "site", "smtpd", "subprocess", "tabnanny", "timeit",
    "tracemalloc", "webbrowser",
})
ENTRY_POINTS = frozenset({"main", "test", "cli", "_main", "_test"})


def candidate_modules() -> list[str]:
    return sorted(name for name in sys.stdlib_module_names if not name.startswith("_") and name not in NOT_IMPORTED)


def module_functions(module_name: str) -> Iterator[tuple[str, object]]:
    """(dotted name, function) for each public function the module exposes, re-exports included:
    code calls them by the name it imported."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module = importlib.import_module(module_name)
    except Exception:  # a module this platform lacks has nothing to call
        return
    for attribute in sorted(dir(module)):
        value = getattr(module, attribute, None)
        if not attribute.startswith("_") and is_stdlib_function(value):
            yield f"{module_name}.{attribute}", value


def is_stdlib_function(value: object) -> bool:
    """A function defined by the standard library, or by torch over it (importing torch replaces
    `inspect.getfile`, in every program that compiles), not installed by another tool at run time
    (pytest replaces `threading.excepthook` and `sys.unraisablehook`)."""
    if not isinstance(value, FUNCTION_TYPES):
        return False
    defined_in = (getattr(value, "__module__", None) or "builtins").partition(".")[0]
    return defined_in in sys.stdlib_module_names or defined_in == "torch"


def function_named(dotted: str) -> object:
    module_name, _, attribute = dotted.rpartition(".")
    return getattr(importlib.import_module(module_name), attribute)


def skipped_by_trace_rules(function: object) -> bool:
    from torch._dynamo import trace_rules
    from torch._dynamo.variables import SkipFunctionVariable

    try:
        return trace_rules.lookup(function) is SkipFunctionVariable
    except Exception:  # an object trace_rules cannot classify is not its skip
        return False


def gb_ids_by_type() -> dict[str, str]:
    import torch

    registry = json.loads((Path(torch._dynamo.__file__).parent / "graph_break_registry.json").read_text())
    return {entry["Gb_type"]: gb_id for gb_id, entries in registry.items() for entry in entries}


def measure(dotted: str, by_type: dict[str, str]) -> str:
    """The graph-break id Dynamo refuses `dotted()` with when tracing; `traced` when it does not
    refuse it, `error` for an exception that is not a graph break (a constant fold that ran)."""
    return refusal(dotted, "module.{attribute}()", by_type)


def refusal(dotted: str, statement: str, by_type: dict[str, str]) -> str:
    """Compile `statement` (with `module` the module of `dotted` and `{attribute}` its last part)
    between two tensor operations with `fullgraph=True`: the graph-break id Dynamo refuses it with,
    `traced`, or `error` for an exception that is not a graph break. Nothing of it runs when refused."""
    import torch
    from torch._dynamo.exc import Unsupported

    module_name, _, attribute = dotted.rpartition(".")
    namespace = {"module": importlib.import_module(module_name)}
    body = statement.format(attribute=attribute).replace("\n", "\n    ")
    exec(f"def f(x):\n    y = x * 2\n    {body}\n    return y + 1\n", namespace)
    torch._dynamo.reset()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.compile(namespace["f"], fullgraph=True, backend="eager")(torch.ones(2))
    except Unsupported as error:
        return by_type.get(error.gb_type or "", "unknown")
    except Exception:  # anything but a graph break: not a refusal
        return "error"
    return "traced"


def inlined_without_arguments(dotted: str, function: object) -> bool:
    """A Python function Dynamo inlines that can be called with no argument, outside INTERACTIVE."""
    if not isinstance(function, types.FunctionType) or dotted.partition(".")[0] in INTERACTIVE:
        return False
    if function.__name__ in ENTRY_POINTS or skipped_by_trace_rules(function):
        return False
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return False
    return all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in parameters)


def candidates() -> dict[str, object]:
    return {
        dotted: function
        for module_name in candidate_modules()
        for dotted, function in module_functions(module_name)
        if skipped_by_trace_rules(function) or inlined_without_arguments(dotted, function)
    }


def build() -> tuple[str, dict[str, str], dict[str, str]]:
    import torch

    by_type = gb_ids_by_type()
    measured = {dotted: measure(dotted, by_type) for dotted in candidates()}
    skipped = {dotted: gb for dotted, gb in measured.items() if gb in SKIPPED_IDS}
    handled = {dotted: gb for dotted, gb in measured.items() if gb not in SKIPPED_IDS}
    return torch.__version__.split("+")[0], skipped, handled


def render_entries(table: dict[str, str]) -> str:
    by_id: dict[str, list[str]] = {}
    for dotted, gb_id in sorted(table.items()):
        by_id.setdefault(gb_id, []).append(dotted)
    lines = []
    for gb_id, names in sorted(by_id.items()):
        lines.append("    **dict.fromkeys((")
        lines.extend(f'        "{name}",' for name in names)
        lines.append(f'    ), "{gb_id}"),')
    return "\n".join(lines)


def render(version: str, skipped: dict[str, str], handled: dict[str, str]) -> str:
    return f'''"""Generated by benchmarks/skipped_callees.py from torch {version}'s trace rules; do not edit.

Standard-library functions a traced frame cannot call: each measured as `module.fn()` in a frame
compiled with `fullgraph=True`, refused with the graph-break id given (for an inlined function, the
id of the skipped call inside it). `HANDLED` holds the other candidates (the ones trace_rules.lookup
marks skipped, and the inlined ones callable with no argument) that Dynamo traces, folds or refuses
otherwise when called (polyfills, constant folding), with what the measurement gave.
"""

TORCH_VERSION = "{version}"

SKIPPED_CALLEES: dict[str, str] = {{
{render_entries(skipped)}
}}

HANDLED: dict[str, str] = {{
{render_entries(handled)}
}}
'''


def main() -> int:
    return write_or_check(__doc__.splitlines()[0], TABLE, lambda: render(*build()))


if __name__ == "__main__":
    sys.exit(main())
