"""GM640 skipped-library-call: its documentation, in one place with how it is detected.

The callees come from Dynamo's own trace rules, not from memory: benchmarks/skipped_callees.py
asks the installed torch's `trace_rules.lookup` which public standard-library functions it skips,
measures each by calling it from a frame compiled with `fullgraph=True`, and writes the ones
Dynamo refuses to vocabulary/skipped_callees.py. A name another rule claims (GM604's measured
table, GM601's `pickle`, GM403's `warnings.warn`) stays that rule's (Detection.fallback_calls).
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.advice import COMPILE_GUARD
from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import NOT_TENSOR, TENSOR, Kind
from graphmend_bot.vocabulary.skipped_callees import SKIPPED_CALLEES, TORCH_VERSION


def _skipped(rule: Rule, checker: Checker, call: ast.Call, name: str, args: list[Kind]) -> Kind:
    if checker.runs_only_for_python_argument(call):  # reached only for some argument types: unknown
        return NOT_TENSOR
    checker.report(
        rule, call, f"Dynamo's trace rules (torch {TORCH_VERSION}) skip `{name}()`: it cannot be traced",
        TENSOR, gb_id=SKIPPED_CALLEES[name],
    )
    return NOT_TENSOR


RULE = Rule(
    code="GM640",
    name="skipped-library-call",
    family="not traceable",
    gb_id="GB0007",
    other_gb_ids=tuple(sorted(set(SKIPPED_CALLEES.values()) - {"GB0007"})),
    summary=(
        "Flags calls from traced code to standard-library functions TorchDynamo marks as skipped, "
        "resolved from the module's imports: `os.getcwd()`, `os.cpu_count()`, `sys.getsizeof()`, "
        "`heapq.heappush()`, `hashlib.sha256()`, `struct.calcsize()`, `threading.get_ident()`, "
        "`time.strftime()`, `linecache.getline()`, `importlib.import_module()`, `random.gauss()`, "
        "`functools.cmp_to_key()`, `inspect.getfile()`, `weakref.proxy()`, the functions Dynamo inlines "
        "that call one of them inside (`threading.current_thread()`, `traceback.format_stack()`, "
        "`locale.getpreferredencoding()`, `os.path.exists()`, `glob.glob()`) and the rest of the table generated from torch's trace rules "
        "(vocabulary/skipped_callees.py, each entry measured)."
    ),
    why=(
        "Dynamo's trace rules (`torch._dynamo.trace_rules`) skip C functions it has no handler for "
        "and the Python functions of the modules it lists as skipped (`abc`, `copy`, `importlib`, "
        "`random`, `re`, `linecache`): a traced frame that calls one ends its graph there, runs the "
        "call eagerly and starts a new graph (GB0007 \"Attempted to call function marked as "
        "skipped\"). Every entry of the table was refused by Dynamo when called from a compiled "
        "frame; the functions it handles anyway (polyfills, `re.sub` and `re.compile` folded on "
        "constant arguments, `random.randint`/`uniform`) are left out. A Python function Dynamo "
        "inlines breaks the same way when it calls a skipped one inside (`threading.current_thread()` "
        "reads `get_ident()`, `os.path.exists(p)` calls `os.stat`): Dynamo reports it at the caller's "
        "line, which is where the table's entry for it is reported (measured with a text argument "
        "for each required one, and left out when a class or a list argument traces through it)."
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
    detection=Detection(fallback_calls=dict.fromkeys(SKIPPED_CALLEES, _skipped)),
    advice=f"TorchDynamo skips `{{code}}`: call it outside the compiled region, or guard it with `{COMPILE_GUARD}`",
)
