"""GM650 third-party-skipped-call: its documentation, in one place with how it is detected.

The packages come from Dynamo's own trace rules: benchmarks/third_party_skips.py writes
`trace_rules.THIRDPARTY_SKIPLIST` (less NumPy, which Dynamo traces through torch._numpy) to
vocabulary/third_party_skips.py. A call resolved from the module's imports into one of them is
reported when the package is installed (analysis/installed_packages.py: Dynamo skips only the files
it finds installed), whatever the function: every file of the package is a skip directory.
"""

from __future__ import annotations

import ast

from graphmend_bot.rules.advice import COMPILE_GUARD
from graphmend_bot.rules.detect import Checker, Detection
from graphmend_bot.rules.rule import Rule
from graphmend_bot.vocabulary.kind import TENSOR
from graphmend_bot.vocabulary.third_party_skips import SKIPPED_PACKAGES, TORCH_VERSION


def _third_party_call(rule: Rule, checker: Checker, call: ast.Call, name: str, on_instance: bool) -> None:
    package = name.partition(".")[0]
    # a method call counts on an object a class of the package built (not on what a function returned)
    if on_instance and not checker.installed_class(name.rpartition(".")[0]):
        return
    if package in SKIPPED_PACKAGES and checker.installed(package):
        # Measured: calling the package's function or class is GB0007; a method of an object it
        # built (`bar.update(1)`) is a function of a skipped file Dynamo tried to inline, GB0008.
        checker.report(
            rule, call, f"Dynamo's trace rules (torch {TORCH_VERSION}) skip every file of `{package}`: "
            f"`{name}()` cannot be traced", TENSOR, gb_id="GB0008" if on_instance else None,
        )


RULE = Rule(
    code="GM650",
    name="third-party-skipped-call",
    family="not traceable",
    gb_id="GB0007",
    other_gb_ids=("GB0008",),
    summary=(
        "Flags calls from traced code into the third-party packages TorchDynamo's trace rules skip "
        "(`THIRDPARTY_SKIPLIST`: `tqdm`, `pandas`, `sklearn`, `networkx`, `tree`, `tabulate`, "
        "`hypothesis`, `onnx`, `onnxruntime`, `tensorflow`, `xarray`, ...), resolved from the "
        "module's imports and reported when the package is installed, and method calls on an object "
        "one of them built in the function (`bar.update(1)` after `bar = tqdm(total=n)`). NumPy, on the same list, is "
        "traced through torch._numpy and is not reported."
        " Reported only where the package is installed (run `graphmend check` in the project's "
        "environment): the GitHub review bot, whose environment holds no project dependencies, never reports it."
    ),
    why=(
        "Dynamo adds the folder of each installed package of its third-party skip list to its skip "
        "directories: a traced frame that calls any of their functions or classes (`tqdm(steps)` "
        "builds a `tqdm`, whose `__new__` lives there) ends its graph at the call, runs it eagerly "
        "and starts a new graph after it (GB0007 \"Attempted to call function marked as skipped\"; "
        "GB0008 \"Attempted to inline function marked as skipped\" for a method of an object it built)."
    ),
    example="""
from tqdm import tqdm

for step in tqdm(range(3)):
    x = x * 2
""",
    use_instead="""
# Keep progress bars and data frames out of the compiled region:
for step in range(3):
    x = x * 2
""",
    fix_safety=(
        "No automatic fix: call the package outside the compiled region (before the compiled call, "
        f"or in the training loop around it), or guard eager-only work with `{COMPILE_GUARD}`."
    ),
    detection=Detection(third_party_call=_third_party_call),
    advice=f"TorchDynamo skips every file of this package: call `{{code}}` outside the compiled region, or guard it with `{COMPILE_GUARD}`",
)
