"""GM680 traceback-instruction-read: its documentation, in one place with how it is detected.

Measured on torch 2.13 (tests/coverage_probes/gb9625_traceback_lasti.py): reading `tb_lasti` of a
traceback in traced code (`err.__traceback__.tb_lasti`, `sys.exc_info()[2].tb_lasti`) breaks with
GB9625: Dynamo models a traceback by its frame summary, which has no instruction offset. Its
`tb_lineno` and `tb_next` trace (tests/fixtures/rules/GM680_traceback_instruction_read.py).
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import TENSOR


def _instruction_read(rule: Rule, checker: Checker, node: ast.Attribute) -> None:
    checker.report(rule, node, "reading a traceback's `tb_lasti` in traced code breaks the graph", TENSOR)


RULE = Rule(
    code="GM680",
    name="traceback-instruction-read",
    family="not traceable",
    gb_id="GB9625",
    summary="Flags reading `tb_lasti` of a traceback in traced code.",
    why=(
        "TorchDynamo models a traceback of an exception raised in traced code by its line, not by "
        "the bytecode instruction that raised: reading `tb_lasti` ends the graph (GB9625, measured "
        "on torch 2.13) and the rest of the function runs eagerly."
    ),
    example=(
        "try:\n"
        '    raise ValueError("bad input")\n'
        "except ValueError as err:\n"
        "    where = err.__traceback__.tb_lasti\n"
        "y = x * 2"
    ),
    use_instead=(
        "try:\n"
        '    raise ValueError("bad input")\n'
        "except ValueError as err:\n"
        "    where = err.__traceback__.tb_lineno  # the line traces\n"
        "y = x * 2"
    ),
    fix_safety=("No automatic fix: use `tb_lineno`, or read the traceback outside the compiled function."),
    detection=Detection(attribute_reads={"tb_lasti": _instruction_read}),
    advice="`{code}` reads a traceback's instruction offset while tracing: use `tb_lineno`, or read it outside",
)
