"""GM640 skipped-library-call: its documentation, in one place with how it is detected.

The callees come from Dynamo's own trace rules, not from memory: benchmarks/skipped_callees.py
asks the installed torch's `trace_rules.lookup` which public standard-library functions it skips,
measures each by calling it from a frame compiled with `fullgraph=True`, and writes the ones
Dynamo refuses to vocabulary/skipped_callees.py; benchmarks/skipped_torch_callees.py does the same
for the functions of torch's private modules on Dynamo's skip list (vocabulary/skipped_torch_callees.py,
`torch._dynamo.utils.disable_cache_limit`). A name another rule claims (GM604's measured
table, GM601's `pickle`, GM403's `warnings.warn`) stays that rule's (Detection.fallback_calls).
Methods of standard-library objects come from benchmarks/skipped_methods.py the same way
(vocabulary/skipped_methods.py), measured on an object built in the frame and on one built outside
it: the first judged here (`p = pathlib.Path(root)`, `p.exists()`), the second by the scope solver,
which knows what built `self.root` or a global (analysis/held_methods.py). The synchronization
objects whose construction Dynamo refuses in the frame (`threading.Event()`, `queue.Queue()`: their
`__init__` builds a lock) are measured there too (`REFUSED_BUILDS`); GM612 keeps the managers it claims.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.advice import COMPILE_GUARD
from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.context_managers import UNENTERABLE_CONTEXT_MANAGERS
from graphmend_bot.vocabulary.kind import NOT_TENSOR, TENSOR, Kind
from graphmend_bot.vocabulary.skipped_callees import SKIPPED_CALLEES, TORCH_VERSION
from graphmend_bot.vocabulary.skipped_methods import (
    BUILT_METHODS,
    HELD_METHODS,
    INHERITED_METHODS,
    REFUSED_BUILDS,
)
from graphmend_bot.vocabulary.skipped_torch_callees import SKIPPED_TORCH_CALLEES
from graphmend_bot.vocabulary.torch_aliases import SKIPPED_TORCH_ALIASES

# The standard library's functions and torch's private ones (`torch._dynamo.utils.disable_cache_limit`),
# each with the id it was measured with; and the public names of the same private functions
# (`torch.utils.data.default_collate`): Dynamo looks the object up, not the name.
_SKIPPED = {
    **SKIPPED_CALLEES, **SKIPPED_TORCH_CALLEES,
    **{alias: SKIPPED_TORCH_CALLEES[name] for alias, name in SKIPPED_TORCH_ALIASES.items()},
}
# "Attempted to call function marked as skipped", "Attempted to inline function marked as skipped";
# the tables' other ids are Dynamo refusing the callable itself (GB0156 "Unsupported method call").
_SKIPPED_IDS = ("GB0007", "GB0008")
ENTERED = "GB0142"  # "Unsupported context manager": a skipped function a `with` enters (measured on torch 2.13)
# A context manager Dynamo cannot enter (`tempfile.TemporaryDirectory()`) is GM612's, measured by
# `with` and reported there; `logging`'s functions refused with an id of their own (`logging.info`,
# GB4841) are left to the logger rule (GM402 claims the message functions by module and name).
_CALLEES = sorted(
    name
    for name in _SKIPPED.keys() - UNENTERABLE_CONTEXT_MANAGERS.keys()
    if not (name.startswith("logging.") and _SKIPPED[name] not in _SKIPPED_IDS)
)
# Synchronization objects built in the frame (`done = threading.Event()`), the ones the function
# table lacks; the managers GM612 claims (`threading.Semaphore`, measured by `with`) stay its own.
_BUILDS = {
    name: gb_id
    for name, gb_id in REFUSED_BUILDS.items()
    if name not in _SKIPPED and name not in UNENTERABLE_CONTEXT_MANAGERS
}


def _skipped(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind:
    if checker.runs_only_for_python_argument(call):  # reached only for some argument types: unknown
        return NOT_TENSOR
    gb_id = _SKIPPED[name]
    why = (
        f"Dynamo's trace rules (torch {TORCH_VERSION}) skip `{name}()`: it cannot be traced"
        if gb_id in _SKIPPED_IDS
        else f"Dynamo (torch {TORCH_VERSION}) cannot trace `{name}()`: refused as {gb_id}, whatever its arguments"
    )
    if checker.is_context_manager(call):
        # `with torch._dynamo.utils.disable_cache_limit():`, `with threading.RLock():` (GB0156 as a call) -
        # Dynamo gives up on the `with` it cannot enter (tests/test_closure_managers.py)
        why, gb_id = f"{why}, so this `with` cannot be entered", ENTERED
    checker.report(rule, call, why, TENSOR, gb_id=gb_id)
    return NOT_TENSOR


def _installed_function(rule: Rule, checker: Checker, call: ast.Call, name: str, on_instance: bool) -> None:
    """`opt_einsum.sharing.currently_sharing()`, a deprecated wrapper that starts with `warnings.warn`:
    a Python function of an installed package that calls a skipped standard-library function on every
    path; Dynamo inlines it and breaks there, at this line (analysis/installed_skips.py)."""
    inside = None if on_instance else checker.skipped_inside(name)
    if inside is not None:
        inner, gb_id = inside
        checker.report(
            rule, call, f"`{name}` always calls `{inner}()`, which Dynamo's trace rules (torch {TORCH_VERSION}) "
            "skip: it cannot be traced", TENSOR, gb_id=gb_id,
        )


def _refused_build(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind:
    checker.report(
        rule, call, f"Dynamo (torch {TORCH_VERSION}) cannot build a `{name}` in traced code: "
        f"refused as {_BUILDS[name]}, whatever its arguments", TENSOR, gb_id=_BUILDS[name],
    )
    return NOT_TENSOR


def _method_break(table: dict[str, str], name: str) -> tuple[str, str] | None:
    """The message and id of calling `name` ("pathlib.Path.exists") when the table lists it."""
    gb_id = table.get(name)
    if gb_id is None:
        return None
    why = {
        "GB0008": "its file is on Dynamo's skip list",
        "GB0007": "it calls a function Dynamo's trace rules skip",
    }.get(gb_id, f"Dynamo refuses it ({gb_id}), whatever its arguments")
    return f"`{name}()` cannot be traced (torch {TORCH_VERSION}): {why}", gb_id


def _built_method(rule: Rule, checker: Checker, call: ast.Call, name: str) -> None:
    """`p.exists()` on `p = pathlib.Path(root)` built in the function."""
    found = _method_break(BUILT_METHODS, name)
    if found is not None and not checker.runs_only_for_python_argument(call):
        checker.report(rule, call, found[0], TENSOR, gb_id=found[1])


# `ContextVar.reset(token)` takes the token its `set` returned, and `set` is reported where it runs.
# Wrappers that stand in for the variable under compile hand out no token there and skip the reset
# (transformers' CompileableContextVar: `if self.compiling or token is None: ... else: reset`),
# which the solver cannot follow across the wrapper's methods.
_LEFT_TO_THEIR_SET = frozenset({"contextvars.ContextVar.reset"})


def _held_method(rule: Rule, name: str, inherited: bool) -> tuple[str, str] | None:
    """`self.root.exists()` on `self.root = pathlib.Path(root)` built outside the compiled frame, or
    `self.rng.uniform(a, b)` on a subclass of the tree that inherits it (`class Sampler(random.Random)`)."""
    if name in _LEFT_TO_THEIR_SET:
        return None
    return _method_break(INHERITED_METHODS if inherited else HELD_METHODS, name)


RULE = Rule(
    code="GM640",
    name="skipped-library-call",
    family="not traceable",
    gb_id="GB0007",
    other_gb_ids=tuple(sorted({ENTERED, *(_SKIPPED[name] for name in _CALLEES), *HELD_METHODS.values(), *BUILT_METHODS.values(), *INHERITED_METHODS.values(), *_BUILDS.values()} - {"GB0007"})),
    summary=(
        "Flags calls from traced code to standard-library functions TorchDynamo marks as skipped, "
        "resolved from the module's imports: `os.getcwd()`, `os.cpu_count()`, `sys.getsizeof()`, "
        "`heapq.heappush()`, `hashlib.sha256()`, `struct.calcsize()`, `threading.get_ident()`, "
        "`time.strftime()`, `linecache.getline()`, `importlib.import_module()`, `random.gauss()`, "
        "`functools.cmp_to_key()`, `inspect.getfile()`, `weakref.proxy()`, the functions of torch's private "
        "modules Dynamo skips (`torch._dynamo.utils.is_compile_supported()`; entered by a `with`, "
        "`with torch._dynamo.utils.disable_cache_limit():`, GB0142; vocabulary/skipped_torch_callees.py) under their public names too (`torch.utils.data.default_collate()`, `torch.lobpcg()`: the same function objects, vocabulary/torch_aliases.py), the Python functions of installed packages that call one of the table's functions on every path (`opt_einsum.sharing.currently_sharing()`, which returns `threading.get_ident() in ...`; a deprecated wrapper starting with `warnings.warn`; analysis/installed_skips.py, the package's files read, never imported), the functions Dynamo inlines "
        "that call one of them inside (`threading.current_thread()`, `traceback.format_stack()`, "
        "`locale.getpreferredencoding()`, `os.path.exists()`, `glob.glob()`, `warnings.simplefilter()`, `warnings.filterwarnings()`) and the rest of the table generated from torch's trace rules "
        "(vocabulary/skipped_callees.py, each entry measured); and methods of standard-library objects "
        "Dynamo refuses, on an object built in the function (`pathlib.Path(root).exists()`) or outside "
        "it and held in `self.NAME` or a global built by the class (`self.cache.is_file()` after "
        "`self.cache = Path(p)` in `__init__`; `random.SystemRandom` methods, GB0008; a class of the tree "
        "inheriting one, `class Sampler(random.Random)`, then `self.rng.uniform(a, b)`, GB0008; the methods of "
        "`threading` and `queue` objects a library holds, `self._lock.acquire()` (GB0156), `self.done.set()`, "
        "`self.results.put(item)` (GB0142), `self._cond.acquire()` on a held `threading.Condition` (GB0156), "
        "`Event.is_set()` tracing; building one in the function, `done = threading.Event()`, `queue.Queue()`, GB0007; "
        "`get` and `set` of a `contextvars.ContextVar` held at module level or in `self.NAME`, GB0156 (its `reset` is left to the `set` that handed out the token), "
        "and building one in the function, GB0147): a second table "
        "generated by `benchmarks/skipped_methods.py` (vocabulary/skipped_methods.py, each entry measured). "
        "Both tables also hold what Dynamo refuses with another id whatever the arguments, each entry with "
        "its measured id: `datetime.datetime.now()`, `json.loads(s)`, `random.Random` "
        "methods on an object built in the function, `json.JSONDecoder().decode(s)` (GB0156 \"Unsupported "
        "method call\"), `array.array(...)` (GB0147 \"Unsupported function call\"), `dataclasses.fields()` "
        "(GB0180)."
    ),
    why=(
        "Dynamo's trace rules (`torch._dynamo.trace_rules`) skip C functions it has no handler for "
        "and the Python functions of the modules it lists as skipped (`abc`, `copy`, `importlib`, "
        "`random`, `re`, `linecache`): a traced frame that calls one ends its graph there, runs the "
        "call eagerly and starts a new graph (GB0007 \"Attempted to call function marked as "
        "skipped\"). Every entry of the table was refused by Dynamo when called from a compiled "
        "frame; the functions it handles anyway (polyfills, `re.sub` and `re.compile` folded on "
        "constant arguments, `random.randint`/`uniform`) are left out. A Python function Dynamo "
        "inlines breaks the same way when it calls a skipped one inside (`os.path.exists(p)` calls "
        "`os.stat`, `Path.exists` too): Dynamo reports it at the caller's line, where the table's "
        "entry for it is reported; a method whose file is on the skip list is refused whole (GB0008). "
        "An object held from outside the compiled frame is judged by what built it in `__init__`. "
        "A lock's methods are C methods Dynamo has no handler for (GB0156); an Event's, a Semaphore's "
        "and a Queue's enter the object's own lock inside, which Dynamo cannot enter (GB0142). Some "
        "callables are refused outright with an id of their own (`datetime.datetime.now`, GB0156 "
        "\"Unsupported method call\"; `array.array`, GB0147), whatever the arguments."
    ),
    example="""
stamp = time.strftime("%H:%M:%S")
""",
    use_instead="""
# Compute it outside the compiled region, or guard it:
if not torch.compiler.is_compiling():
    stamp = time.strftime("%H:%M:%S")
""",
    fix_safety=(
        "No automatic fix: move the call out of the compiled region (compute the value in "
        "`__init__` or before the call) or guard eager-only work with `torch.compiler.is_compiling()`."
    ),
    detection=Detection(fallback_calls={**dict.fromkeys(_CALLEES, _skipped), **dict.fromkeys(_BUILDS, _refused_build)},
                        third_party_call=_installed_function,
                        stdlib_method_call=_built_method,
                        held_method=_held_method),
    advice=f"TorchDynamo skips `{{code}}`: call it outside the compiled region, or guard it with `{COMPILE_GUARD}`",
)
