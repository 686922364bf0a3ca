"""Write graphmend_bot/vocabulary/skipped_methods.py from the installed torch: the methods of
standard-library classes that a traced frame cannot call on an instance without a graph break,
each measured.

    python benchmarks/skipped_methods.py           # (re)write the table (several minutes)
    python benchmarks/skipped_methods.py --check   # exit 1 when the table is out of date

benchmarks/skipped_callees.py measures the module-level functions; this does the same for what code
calls on an object: `self.root.exists()` on a `pathlib.Path`, `rng.gauss(0, 1)` on a
`random.Random` subclass. Dynamo inlines a Python method of a standard-library class (its file is
not skipped) and breaks on the skipped C function inside it (`Path.exists` reaches `os.stat`:
GB0007 at the caller's line), or refuses to inline it when its file is on trace_rules' skip list
(`random.py`, `re`, `copy`, `abc`, `importlib`, `linecache`: GB0008).

Candidates: each public class of a public standard-library module (the modules
skipped_callees.py reads, less those whose classes open connections, start processes or
servers when built: `NOT_BUILT`) that can be built with no argument or with one text argument,
built here in a scratch folder. Each public method (a Python function or a C method, not a
property) is measured twice, like the functions, with text for each required argument
(`fullgraph=True`, between two tensor operations):
- held: on an instance built outside the compiled frame (a module global, an attribute set in
  `__init__`), `HELD.method(...)`;
- built: on an instance built in the frame, `obj = Cls(...)` then `obj.method(...)`, when building
  it traces (Dynamo models some objects it builds itself, and a refused construction is
  skipped_callees.py's entry, reported at the construction);
- inherited: on a held instance of a subclass that adds nothing (`class Sampler(random.Random)`),
  the way a class of the checked tree inherits the method (Dynamo models a `random.Random` it is
  given, and refuses `Random.uniform` of a subclass's: GB0008).
The synchronization objects a library holds (`SYNCHRONIZATION`) are measured the same way, with the
methods their `__init__` binds on the instance (`Condition.acquire` is its lock's), and a
construction of one in the frame that Dynamo refuses (`threading.Event()`, `queue.Queue()`: their
`__init__` builds a lock) enters `REFUSED_BUILDS` with its id.
A method enters a table when Dynamo refuses it as a skipped function (GB0007 or GB0008), and
not when the same call with a class or a list argument traces (argument-dependent, as for the
functions); or when it refuses it with another id (`datetime.timedelta.total_seconds`, GB0156
"Unsupported method call") that a class, a list, a number and a bytes argument give too (each
entry keeps its measured id; skipped_callees.argument_independent). tests/test_skipped_methods.py keeps the table in step with the pinned torch.
"""

from __future__ import annotations

import importlib
import inspect
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
from skipped_callees import (  # noqa: E402
    ALL_OTHER_ARGUMENTS,
    ARGUMENT_DEPENDENT,
    NOT_BUILT,
    SKIPPED_IDS,
    TEXT_ARGUMENT,
    argument_classes,
    argument_independent,
    candidate_modules,
    compiled_refusal,
    gb_ids_by_type,
    is_refusal,
    other_arguments,
    render_entries,
)

TABLE = REPO / "graphmend_bot" / "vocabulary" / "skipped_methods.py"
# The arguments a candidate class is built with, tried in turn (three numbers: a date, a time).
ARGUMENTS_UNKNOWN = "arguments-unknown"
CONSTRUCTIONS = ("", '"a"', "1, 1, 1")
# Synchronization objects a library holds from `__init__` or a module global (a lock around a cache,
# an event, a queue of results) and calls from traced code. Their modules are NOT_BUILT as a whole (a
# Thread or a Timer runs work); these build nothing that runs. `threading.Lock` and `threading.RLock`
# are factories of C types: their methods are read from what they build.
SYNCHRONIZATION = (
    "queue.LifoQueue",
    "queue.PriorityQueue",
    "queue.Queue",
    "queue.SimpleQueue",
    "threading.BoundedSemaphore",
    "threading.Condition",
    "threading.Event",
    "threading.Lock",
    "threading.RLock",
    "threading.Semaphore",
    # Per-context state a library holds at module level (brevitas' config, tensordict's defaults):
    # Dynamo refuses `get`, `set` and `reset` (GB0156). Its `get` never waits, unlike a queue's.
    "contextvars.ContextVar",
)
# Methods that wait for another thread, never measured: a torch that traced one would hang here.
WAITING = frozenset({"get", "join", "wait", "wait_for"})
NEVER_WAITING = frozenset({"contextvars.ContextVar.get"})


def stdlib_classes(module_name: str) -> Iterator[tuple[str, type]]:
    """(dotted name, class) for each public class the module exposes, defined in the standard library."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module = importlib.import_module(module_name)
    except Exception:  # a module this platform lacks has no classes to build
        return
    for attribute in sorted(dir(module)):
        value = getattr(module, attribute, None)
        defined_in = (getattr(value, "__module__", None) or "builtins").partition(".")[0]
        if (
            not attribute.startswith("_")
            and isinstance(value, type)
            and defined_in in sys.stdlib_module_names
            and defined_in != "builtins"
            and not issubclass(value, BaseException)
        ):
            yield f"{module_name}.{attribute}", value


def construction(cls: object) -> str | None:
    """The arguments (source text) `cls` is built with, or None when it cannot be built with any."""
    for arguments in CONSTRUCTIONS:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                eval(f"cls({arguments})", {"cls": cls})
        except Exception:  # needs other arguments: not a candidate
            continue
        return arguments
    return None


def instance_type(builder: object) -> type:
    """The class whose methods an object `builder` builds has: the builder itself, or what a factory
    (`threading.Lock`) returns."""
    return builder if isinstance(builder, type) else type(eval(f"builder({construction(builder)})"))


def methods(cls: type) -> Iterator[tuple[str, int | None]]:
    """(name, required positional arguments) of each public method of `cls`, its bases' included."""
    for name in sorted(dir(cls)):
        if name.startswith("_"):
            continue
        raw = inspect.getattr_static(cls, name, None)
        if isinstance(raw, (staticmethod, classmethod)):
            raw = raw.__func__
        if not isinstance(
            raw,
            (
                types.FunctionType,
                types.MethodDescriptorType,
                types.BuiltinFunctionType,
                types.WrapperDescriptorType,
                types.MethodWrapperType,
            ),
        ):
            continue  # properties and data: read, not called
        yield name, required_positionals(getattr(cls, name))


def instance_methods(builder: object) -> Iterator[tuple[str, int | None]]:
    """(name, required positional arguments) of each public callable the instance's `__init__` binds
    on it, which `methods` (reading the class) does not see: `Condition` binds its lock's `acquire`
    and `release` as its own."""
    instance = eval(f"builder({construction(builder)})")
    for name, value in sorted(getattr(instance, "__dict__", {}).items()):
        if not name.startswith("_") and callable(value) and not isinstance(value, type):
            yield name, required_positionals(value)


def required_positionals(method: object) -> int | None:
    """Required positional arguments past `self`; None for a C method without a signature (called
    with none when measured)."""
    try:
        parameters = list(inspect.signature(method).parameters.values())
    except (TypeError, ValueError):
        return None
    required = [
        p for p in parameters if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    bound = 1 if parameters and parameters[0].name in ("self", "cls") else 0
    return max(len(required) - bound, 0)


def refusal(cls: object, prelude: str, statement: str, by_type: dict[str, str]) -> str:
    """Compile `prelude` then `statement` between two tensor operations with `fullgraph=True`, `HELD`
    an instance built outside the frame and `Cls` the class: the graph-break id Dynamo refuses it with,
    `traced`, or `error` for an exception that is not a graph break."""
    namespace: dict[str, object] = {"Cls": cls, **argument_classes()}
    namespace["HELD"] = eval(f"Cls({construction(cls)})", namespace)
    return compiled_refusal(namespace, "\n".join(part for part in (prelude, statement) if part), by_type)


def measure(
    cls: object,
    method: str,
    required: int | None,
    receiver: str,
    prelude: str,
    by_type: dict[str, str],
    unsigned_by_arguments: bool = False,
) -> str:
    def call(argument: str) -> str:
        return f"{receiver}.{method}(" + ", ".join([argument] * (required or 0)) + ")"

    gb_id = refusal(cls, prelude, call(TEXT_ARGUMENT), by_type)
    if required is None and is_refusal(gb_id) and gb_id not in SKIPPED_IDS:
        # Called with no argument, a C method that takes one (`deque.rotate(1)`, traced) is refused
        # as an unsupported call: only a skipped function's id holds whatever it is given, unless
        # (for the synchronization objects) one argument of each kind is refused with it too: then
        # Dynamo refuses the object's method, not the arguments (`_thread.lock.acquire`, GB0156).
        if not unsigned_by_arguments:
            return ARGUMENTS_UNKNOWN
        again = [
            refusal(cls, prelude, f"{receiver}.{method}({a})", by_type)
            for a in (TEXT_ARGUMENT, *ALL_OTHER_ARGUMENTS)
        ]
        return gb_id if argument_independent(gb_id, again) else ARGUMENTS_UNKNOWN
    if not required or not is_refusal(gb_id):
        return gb_id
    measured_again = [refusal(cls, prelude, call(other), by_type) for other in other_arguments(gb_id)]
    return gb_id if argument_independent(gb_id, measured_again) else ARGUMENT_DEPENDENT


def subclass(cls: type) -> type | None:
    """A subclass of `cls` that adds nothing (`class Sampler(random.Random): ...`), or None when the
    class cannot be subclassed."""
    try:
        return type(f"{cls.__name__}Subclass", (cls,), {})
    except TypeError:  # a final C type
        return None


def measure_synchronization(
    by_type: dict[str, str],
    held: dict[str, str],
    built: dict[str, str],
    inherited: dict[str, str],
    refused_builds: dict[str, str],
) -> None:
    """SYNCHRONIZATION's methods on a held instance and, for a class, on a held instance of a
    subclass. Building one in the frame is refused (a skipped callee, recorded in `refused_builds`):
    the object then reaches the frame Dynamo resumes in as an input, held, so its built entry is the
    held one."""
    for dotted in SYNCHRONIZATION:
        module_name, _, attribute = dotted.rpartition(".")
        builder = getattr(importlib.import_module(module_name), attribute)
        sub = subclass(builder) if isinstance(builder, type) else None
        building = refusal(builder, "", f"obj = Cls({construction(builder)})", by_type)
        built_here = not is_refusal(building)
        if not built_here:
            refused_builds[dotted] = building
        for method, required in sorted(
            {**dict(methods(instance_type(builder))), **dict(instance_methods(builder))}.items()
        ):
            if method in WAITING and f"{dotted}.{method}" not in NEVER_WAITING:
                continue
            if is_refusal(gb_id := measure(builder, method, required, "HELD", "", by_type, True)):
                held[f"{dotted}.{method}"] = gb_id
                if not built_here:
                    built[f"{dotted}.{method}"] = gb_id
            if sub is not None and is_refusal(
                gb_id := measure(sub, method, required, "HELD", "", by_type, True)
            ):
                inherited[f"{dotted}.{method}"] = gb_id


def build() -> tuple[str, dict[str, str], dict[str, str], dict[str, str], dict[str, str]]:
    import torch

    by_type = gb_ids_by_type()
    held: dict[str, str] = {}
    built: dict[str, str] = {}
    inherited: dict[str, str] = {}
    refused_builds: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as scratch:
        here = os.getcwd()
        os.chdir(scratch)  # what a construction or a traced method writes lands here
        try:
            for module_name in candidate_modules():
                if module_name.partition(".")[0] in NOT_BUILT:
                    continue
                for dotted, cls in stdlib_classes(module_name):
                    arguments = construction(cls)
                    if arguments is None:
                        continue
                    builds = refusal(cls, "", f"obj = Cls({arguments})", by_type) == "traced"
                    sub = subclass(cls)
                    sub = sub if sub is not None and construction(sub) is not None else None
                    prelude = f"obj = Cls({arguments})"
                    for method, required in methods(cls):
                        if is_refusal(gb_id := measure(cls, method, required, "HELD", "", by_type)):
                            held[f"{dotted}.{method}"] = gb_id
                        if builds and is_refusal(
                            gb_id := measure(cls, method, required, "obj", prelude, by_type)
                        ):
                            built[f"{dotted}.{method}"] = gb_id
                        if sub is not None and is_refusal(
                            gb_id := measure(sub, method, required, "HELD", "", by_type)
                        ):
                            inherited[f"{dotted}.{method}"] = gb_id
            measure_synchronization(by_type, held, built, inherited, refused_builds)
        finally:
            os.chdir(here)
    return torch.__version__.split("+")[0], held, built, inherited, refused_builds


def render(
    version: str,
    held: dict[str, str],
    built: dict[str, str],
    inherited: dict[str, str],
    refused_builds: dict[str, str],
) -> str:
    return f'''"""Generated by benchmarks/skipped_methods.py from torch {version}; do not edit.

Methods of standard-library classes a traced frame cannot call, `module.Class.method`, each measured
with `fullgraph=True` and refused with the graph-break id given (a required argument given as text):
`HELD_METHODS` on an instance built outside the compiled frame (a global, an attribute set in
`__init__`), `BUILT_METHODS` on one built in the frame, `INHERITED_METHODS` on a held instance of a
subclass that adds nothing (`class Sampler(random.Random): ...`: Dynamo models some standard-library
objects itself, but not their subclasses'). `REFUSED_BUILDS`: the synchronization classes whose
construction in the frame Dynamo refuses (`threading.Event()`: its `__init__` builds a lock).
"""

TORCH_VERSION = "{version}"

HELD_METHODS: dict[str, str] = {{
{render_entries(held)}
}}

BUILT_METHODS: dict[str, str] = {{
{render_entries(built)}
}}

INHERITED_METHODS: dict[str, str] = {{
{render_entries(inherited)}
}}

REFUSED_BUILDS: dict[str, str] = {{
{render_entries(refused_builds)}
}}
'''


def main() -> int:
    return write_or_check(__doc__.splitlines()[0], TABLE, lambda: render(*build()))


if __name__ == "__main__":
    sys.exit(main())
