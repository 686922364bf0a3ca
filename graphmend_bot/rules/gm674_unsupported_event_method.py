"""GM674 unsupported-event-method: its documentation, in one place with how it is detected.

Measured on torch 2.13 with the CPU build's `torch.Event("cpu", enable_timing=True)`
(tests/coverage_probes/gb0146_*): Dynamo traces building an event and its `wait`, `record`,
`synchronize` and `query` methods; any other method (`elapsed_time`, `ipc_handle`) breaks at its
call with GB0146. Judged on a local the function built with `torch.Event(...)` or a device module's
`Event(...)` (`torch.cuda.Event`, which this machine cannot run: the same EventVariable handles it):
an event built elsewhere (`self.start` from `__init__`) is not followed, a known miss.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import TENSOR

UNSUPPORTED_EVENT_METHOD = "GB0146"  # "Unsupported event method"
EVENT_CLASSES = frozenset({"torch.Event", "torch.cuda.Event", "torch.xpu.Event", "torch.cuda.streams.Event"})
TRACED_METHODS = frozenset({"wait", "record", "synchronize", "query"})  # EventVariable.call_method's


def _event_method(rule: Rule, checker: Checker, call: ast.Call, method: str) -> None:
    receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
    if (isinstance(receiver, ast.Name) and checker.builder_of(receiver.id) in EVENT_CLASSES
            and method not in TRACED_METHODS and not method.startswith("__")):
        checker.report(rule, call, f"Dynamo cannot trace the event method `.{method}()`", TENSOR,
                       gb_id=UNSUPPORTED_EVENT_METHOD)


RULE = Rule(
    code="GM674",
    name="unsupported-event-method",
    family="not traceable",
    gb_id=UNSUPPORTED_EVENT_METHOD,
    summary=(
        "Flags methods of a device event other than `wait`, `record`, `synchronize` and `query` "
        "(`elapsed_time`, `ipc_handle`) called in traced code on an event the function built."
    ),
    why=(
        "Dynamo models an event's ordering methods in its graph, but not reading timings or sharing "
        "it with another process: at `elapsed_time()` or `ipc_handle()` it ends the graph and runs the "
        "call eagerly (measured on torch 2.13: GB0146)."
    ),
    example=(
        "start = torch.cuda.Event(enable_timing=True)\nend = torch.cuda.Event(enable_timing=True)\n"
        "start.record()\nx = x * 2\nend.record()\nmillis = start.elapsed_time(end)"
    ),
    use_instead="x = x * 2  # time the compiled call from outside it, with the events around it",
    fix_safety=(
        "No automatic fix: the timing is a value the program reads. Record the events around the "
        "compiled call and read `elapsed_time` outside it."
    ),
    detection=Detection(local_object_call=_event_method),
    advice="Dynamo cannot trace `{code}`: read event timings outside the compiled function",
)
