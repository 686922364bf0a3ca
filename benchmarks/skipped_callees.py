"""Write graphmend_bot/vocabulary/skipped_callees.py from the installed torch's own trace rules: the
standard-library functions a traced frame cannot call without a graph break, each measured.

    python benchmarks/skipped_callees.py           # (re)write the table (about ten minutes)
    python benchmarks/skipped_callees.py --check   # exit 1 when the table is out of date

Candidates: every public module-level function of every public standard-library module that
torch/_dynamo/trace_rules.py's `lookup` classifies as `SkipFunctionVariable` (C functions with no
Dynamo handler, and the Python functions of its skip list: `BUILTIN_SKIPLIST`, `MOD_SKIPLIST`);
and the Python functions it inlines (`threading.current_thread()`, `os.path.exists(p)`,
`glob.glob(p)`), which break when what they call inside is skipped: Dynamo reports that at the
caller's line, with the callee's id. One with required positional arguments is measured with text
for each (most take a path or a string), and, when refused, again with a class, a list, a dict and a tensor:
one of those that traces through it (`inspect.getmodule(cls)`) breaks or not by its arguments and
is left out. Those are traced through for real, so the
modules whose functions wait for input or start processes or servers when run (`INTERACTIVE`)
are left out, and so are functions named `main`, `test` or `cli` (command-line entry points).
`lookup` does not see what Dynamo does before or after it (its `VariableBuilder` special cases,
polyfills, and the constant folding `SkipFunctionVariable.call_function` does for `re` and
`importlib`), so each candidate is measured: `mod.fn(...)` between two tensor operations, compiled
with `fullgraph=True` (the call never runs: Dynamo refuses it while tracing, before binding any
argument). A candidate enters the table when Dynamo refuses it as a skipped function
(GB0007 "Attempted to call function marked as skipped", or GB0008 for a skipped function it
tried to inline), or refuses it with another id whatever the arguments (`json.loads`, GB0156
"Unsupported method call": the id comes back with a class, a list, a number and bytes too, or the
call raises on them); the others are kept apart, in `HANDLED`, so a change of torch shows in both.
Classes are candidates too, built as code builds them (`array.array(...)`, GB0147 "Unsupported
function call") with the methods they offer on the class (`datetime.datetime.now()`, GB0156),
called with no argument: only a refusal of the callable itself is kept.
tests/test_skipped_callees.py keeps the table in step with the pinned torch.

torch's own public functions are left out on purpose: generated the same way (c19b2ca, again in
8836738, GM606 unchanged) they added no break statement on either half of the wild corpus and one
executed false positive on the test half (counted by rule code: GM606, a torch-family finding on
an `__init__` branch the measured call did not take), so both were reverted.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import json
import os
import sys
import tempfile
import types
import warnings
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))

from generated_table import write_or_check  # noqa: E402

TABLE = REPO / "graphmend_bot" / "vocabulary" / "skipped_callees.py"
SKIPPED_IDS = frozenset({"GB0007", "GB0008"})
# Ids that do not say Dynamo cannot trace the callee: never a table entry. The measurement's
# arguments made the call fail: "Observed exception" (text where a number goes), "failed to bind
# arguments when attempting to inline" and "missing args to functools.partial" (a class that
# requires arguments, built with none), an assertion of the callee that failed on them (GB0034,
# GB0171). The Gb_type says the arguments decide: "Failed to trace builtin operator"
# (`operator.setitem` of text), "Unsupported arguments for itertools.groupby", "constant-like method
# call with non-constant args". The call traced: "Reconstruction failure" (GB0092) breaks later,
# where its result must be rebuilt.
NOT_THE_CALLEES_REFUSAL = frozenset(
    {"GB0088", "GB7312", "GB0260", "GB0034", "GB0171", "GB0059", "GB0134", "GB0299", "GB0092"}
)
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
# Modules whose classes are never built here: built, they connect to a host, start processes or
# threads, or take over the terminal or signals.
NOT_BUILT = INTERACTIVE | frozenset(
    {
        "concurrent",
        "ftplib",
        "http",
        "imaplib",
        "multiprocessing",
        "nntplib",
        "poplib",
        "queue",
        "sched",
        "selectors",
        "signal",
        "smtplib",
        "socket",
        "socketserver",
        "ssl",
        "telnetlib",
        "threading",
        "urllib",
        "wsgiref",
        "xmlrpc",
        "mailbox",
        "sqlite3",
        "shelve",
        "dbm",
        "zipapp",
        "unittest",
        "logging",
        # `ContextVar.reset(token)` takes the token its `set` hands out: text or a list is refused
        # (GB0156) where a real token traces (measured on transformers' output_capturing.py).
        "contextvars",
    }
)
# Modules whose classes Dynamo replaces by polyfills that need the arguments code passes:
# `itertools.combinations()` with none is refused (GB0147) where `combinations(range(3), 2)` traces.
POLYFILLED_CLASSES = frozenset({"itertools"})
ENTRY_POINTS = frozenset({"main", "test", "cli", "_main", "_test"})
# What an inlined candidate with required arguments is called with, once per argument: most of them
# take text or a path. A refusal needs Dynamo to reach a skipped call while tracing the body with it;
# a wrong-typed argument ends in an exception instead, which is not a refusal (kept in HANDLED).
TEXT_ARGUMENT = '"a"'
# ... except a function whose argument must be one of a few words, asserted by the callee itself
# (warnings' actions): text it rejects ends in an exception, so it is measured with a word it takes.
CHOICE_ARGUMENTS = {"warnings.simplefilter": '"ignore"', "warnings.filterwarnings": '"ignore"'}
# ... and, when refused with text, measured again with each of these for every argument: a function
# one of them traces through (`inspect.getmodule(Thing)`, refused on text only) breaks or not by the
# arguments the code passes, so it stays out of the table (HANDLED, `argument-dependent`). A dict
# and the frame's tensor `y` too: model code passes its configs and tensors.
OTHER_ARGUMENTS = ("Thing", "[1.0]", "dict(a=1.0)", "y")
# A refusal with another id (`Unsupported method call`) is kept only when each of these is refused
# with it too: a number or bytes where text failed may trace (`base64.b32encode(b"a")`).
# An instance of a dataclass of the code, `Record()`, too: `dataclasses.fields(self)` traces, while
# `dataclasses.fields` of anything else is refused (GB0180).
ALL_OTHER_ARGUMENTS = (*OTHER_ARGUMENTS, "1", 'b"a"', "Record()")
ARGUMENT_DEPENDENT = "argument-dependent"
# Submodules code spells through their package (`os.path.exists`); sys.stdlib_module_names has
# only the package.
SUBMODULES = ("os.path",)
# Private C modules code calls by name (`_thread.get_ident()` in a re-entrancy guard: the
# differential fuzzer's grammar found it missed, while `threading.get_ident` was listed).
PRIVATE_MODULES = ("_thread",)


def candidate_modules() -> list[str]:
    top_level = (
        name for name in sys.stdlib_module_names if not name.startswith("_") and name not in NOT_IMPORTED
    )
    return sorted([*top_level, *SUBMODULES, *PRIVATE_MODULES])


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


def class_callables(module_name: str) -> Iterator[tuple[str, object]]:
    """(dotted name, callable) for each public standard-library class the module exposes, called as
    code builds it (`array.array(...)`), and each method it offers on the class itself
    (`datetime.datetime.now()`, `datetime.date.fromisoformat(s)`): measured with no argument, so
    only a refusal of the callable itself (before any argument is bound) can enter the table."""
    if module_name.partition(".")[0] in INTERACTIVE | NOT_BUILT | POLYFILLED_CLASSES:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = importlib.import_module(module_name)
    for attribute in sorted(dir(module)):
        cls = getattr(module, attribute, None)
        defined_in = (getattr(cls, "__module__", None) or "builtins").partition(".")[0]
        if attribute.startswith("_") or not isinstance(cls, type) or issubclass(cls, BaseException):
            continue
        if defined_in not in sys.stdlib_module_names or defined_in == "builtins" or not instantiable(cls):
            continue
        yield f"{module_name}.{attribute}", cls
        for name in sorted(vars(cls)):
            raw = vars(cls)[name]
            if not name.startswith("_") and isinstance(
                raw, (classmethod, staticmethod, types.ClassMethodDescriptorType)
            ):
                yield f"{module_name}.{attribute}.{name}", getattr(cls, name)


def instantiable(cls: type) -> bool:
    """Whether code can build `cls` at all: not an abstract class (`numbers.Integral`, a
    `typing.Protocol`) nor a C type that forbids it (`re.Match`)."""
    disallow_instantiation = 1 << 7  # Py_TPFLAGS_DISALLOW_INSTANTIATION
    return not inspect.isabstract(cls) and not cls.__flags__ & disallow_instantiation


def owner_named(dotted: str) -> object:
    """The module or class `dotted`'s last part is read from (`datetime.datetime` for
    `datetime.datetime.now`)."""
    owner_name = dotted.rpartition(".")[0]
    try:
        return importlib.import_module(owner_name)
    except ImportError:  # a class of a module
        module_name, _, class_name = owner_name.rpartition(".")
        return getattr(importlib.import_module(module_name), class_name)


def function_named(dotted: str) -> object:
    return getattr(owner_named(dotted), dotted.rpartition(".")[2])


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
    """The graph-break id Dynamo refuses `dotted(...)` with when tracing; `traced` when it does not
    refuse it, `error` for an exception that is not a graph break (a constant fold that ran)."""
    required = required_positionals(dotted, function_named(dotted)) or 0
    gb_id = refusal(dotted, call_statement(required, CHOICE_ARGUMENTS.get(dotted, TEXT_ARGUMENT)), by_type)
    if not required or not is_refusal(gb_id):
        return gb_id
    measured_again = [
        refusal(dotted, call_statement(required, other), by_type) for other in other_arguments(gb_id)
    ]
    return gb_id if argument_independent(gb_id, measured_again) else ARGUMENT_DEPENDENT


def is_refusal(gb_id: str) -> bool:
    """A graph-break id Dynamo refused the call with (not `traced`, `error`, `unknown`), other than
    a failure the measurement's arguments caused."""
    return gb_id.startswith("GB") and gb_id not in NOT_THE_CALLEES_REFUSAL


def other_arguments(gb_id: str) -> tuple[str, ...]:
    """What a call refused with text arguments is measured again with."""
    return OTHER_ARGUMENTS if gb_id in SKIPPED_IDS else ALL_OTHER_ARGUMENTS


def argument_independent(gb_id: str, measured_again: list[str]) -> bool:
    """Whether a refusal with text arguments holds for the others: a skipped function breaks
    unless one of them traces through it; any other id holds when none of them traces or is
    refused otherwise (an argument the call itself rejects, `error` or NOT_THE_CALLEES_REFUSAL,
    says nothing):
    `json.loads` is `Unsupported method call` on text and bytes, and raises on a number."""
    if gb_id in SKIPPED_IDS:
        return "traced" not in measured_again
    return all(again == gb_id or again == "error" or again in NOT_THE_CALLEES_REFUSAL for again in measured_again)


def call_statement(required: int, argument: str) -> str:
    return "module.{attribute}(" + ", ".join([argument] * required) + ")"


def refusal(dotted: str, statement: str, by_type: dict[str, str]) -> str:
    """Compile `statement` (with `module` the module of `dotted` and `{attribute}` its last part)
    between two tensor operations with `fullgraph=True`: the graph-break id Dynamo refuses it with,
    `traced`, or `error` for an exception that is not a graph break. Nothing of it runs when refused."""
    namespace = {"module": owner_named(dotted), **argument_classes()}
    return compiled_refusal(namespace, statement.format(attribute=dotted.rpartition(".")[2]), by_type)


def argument_classes() -> dict[str, object]:
    """The classes the measured calls' arguments name: `Thing`, a class of the code, and `Record`,
    one of its dataclasses."""
    return {"Thing": type("Thing", (), {}), "Record": dataclasses.dataclass(type("Record", (), {}))}


def compiled_refusal(namespace: dict[str, object], body: str, by_type: dict[str, str]) -> str:
    """Compile `body` with the globals `namespace` between two tensor operations with
    `fullgraph=True`: the graph-break id Dynamo refuses it with, `traced`, or `error`."""
    import torch
    from torch._dynamo.exc import Unsupported

    indented = body.replace("\n", "\n    ")
    exec(f"def f(x):\n    y = x * 2\n    {indented}\n    return y + 1\n", namespace)
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


def required_positionals(dotted: str, function: object) -> int | None:
    """How many positional arguments a Python function Dynamo inlines requires (outside
    INTERACTIVE); None when it is not such a function or requires a keyword-only argument."""
    if not isinstance(function, types.FunctionType) or dotted.partition(".")[0] in INTERACTIVE:
        return None
    if function.__name__ in ENTRY_POINTS or skipped_by_trace_rules(function):
        return None
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return None
    required = [
        p for p in parameters if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    if any(p.kind is p.KEYWORD_ONLY for p in required):
        return None
    return len(required)


def candidates() -> dict[str, object]:
    functions = {
        dotted: function
        for module_name in candidate_modules()
        for dotted, function in module_functions(module_name)
        if skipped_by_trace_rules(function) or required_positionals(dotted, function) is not None
    }
    classes = dict(pair for module_name in candidate_modules() for pair in class_callables(module_name))
    return {**classes, **functions}


def build() -> tuple[str, dict[str, str], dict[str, str]]:
    import torch

    by_type = gb_ids_by_type()
    with tempfile.TemporaryDirectory() as scratch:
        here = os.getcwd()
        os.chdir(scratch)  # what a traced construction writes lands here
        try:
            measured = {dotted: measure(dotted, by_type) for dotted in candidates()}
        finally:
            os.chdir(here)
    skipped = {dotted: gb for dotted, gb in measured.items() if is_refusal(gb)}
    handled = {dotted: gb for dotted, gb in measured.items() if not is_refusal(gb)}
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
    return render_tables(f"""Generated by benchmarks/skipped_callees.py from torch {version}'s trace rules; do not edit.

Standard-library functions a traced frame cannot call: each measured as `module.fn(...)` in a frame
compiled with `fullgraph=True`, refused with the graph-break id given (for an inlined function, the
id of the skipped call inside it; a required argument given as text). `HANDLED` holds the other
candidates (the ones trace_rules.lookup marks skipped, and the inlined ones) that Dynamo traces,
folds or refuses otherwise when called (polyfills, constant folding, or traced with another
argument: `argument-dependent`), with what the measurement gave.
""", version, "SKIPPED_CALLEES", skipped, handled)


def render_tables(docstring: str, version: str, name: str, skipped: dict[str, str], handled: dict[str, str]) -> str:
    """A generated table module: its docstring, TORCH_VERSION, the table `name` and HANDLED."""
    return f'''"""{docstring}"""

TORCH_VERSION = "{version}"

{name}: dict[str, str] = {{
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
