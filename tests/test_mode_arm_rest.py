"""A break in a loop or a `try` inside an `if` arm leaves the rest of the frame eager only on the
calls that take the arm. When the arm is a mode's (`if self.training:`, a flag its class keeps off,
a half dtype), it does not run in the default mode (eval, float32, flags off), where Dynamo traces
what follows the `if` and breaks there: so the finding after the `if` is reported, and the breaks
inside the arm name the mode. An arm that runs in the default mode (`if not self.training:`)
still leaves the rest eager. A plain test's arm runs on some calls only: on the others Dynamo
traces past the `if` and breaks there, so the finding after it is reported too (if_statements.
eager_rest_after_arms; tests/test_eager_rest_arms.py). Each case measured on torch 2.13 with the
model in eval mode and a float32 input (tests/sample_modules.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sample_modules import dynamo_breaks, graphmend_findings

from graphmend_bot.config import Config
from graphmend_bot.engine import check

TRY = "try:\n{i}    print('hi')\n{i}except ValueError:\n{i}    pass"
LOOP = "for i in range(2):\n{i}    print('hi')"
CASES = {
    # the `if` test, the arm's block, whether Dynamo breaks after the `if` in the default mode
    "try_in_training": ("self.training", TRY, True),
    "try_under_an_off_flag": ("self.debug", TRY, True),
    "loop_under_an_off_flag": ("self.debug", LOOP, True),
    "try_in_half_precision": ("x.dtype == torch.float16", TRY, True),
    # near misses: the arm runs in the default mode
    "try_in_eval": ("not self.training", TRY, False),
    "try_under_a_plain_test_that_fails": ("self.filename is None", TRY, True),
    "loop_under_a_plain_test_that_fails": ("self.filename is None", LOOP, True),
}


def _source(test: str, block: str) -> str:
    arm = block.format(i="            ")
    return (
        "import torch\n\n\nclass Model(torch.nn.Module):\n"
        "    def __init__(self, debug=False):\n        super().__init__()\n        self.debug = debug\n"
        "        self.filename = 'a'\n        self.train(False)\n\n"
        "    def forward(self, x):\n        x = x * 2\n        x = x + 1\n"
        f"        if {test}:\n            {arm}\n"
        "        if x.sum() > 0:\n            x = x * 2\n        return x - 1\n"
    )


@pytest.mark.parametrize("case", sorted(CASES))
def test_rest_after_a_mode_arm(tmp_path: Path, case: str) -> None:
    test, block, rest_breaks = CASES[case]
    source = _source(test, block)
    after = next(n for n, line in enumerate(source.splitlines(), 1) if "if x.sum() > 0:" in line)
    truth = {line for line, _ in dynamo_breaks(source, tmp_path)}
    found = {line for line, _, _ in graphmend_findings(source, tmp_path)}
    assert (after in truth) == rest_breaks
    assert (after in found) == rest_breaks


def test_breaks_in_a_training_arm_name_the_mode(tmp_path: Path) -> None:
    """In training mode the arm runs and breaks: the findings there say so (the other mode's truth)."""
    source = _source("self.training", TRY)
    arm = {n for n, line in enumerate(source.splitlines(), 1) if "print('hi')" in line}
    path = tmp_path / "sample.py"
    path.write_text(source)
    messages = [f.message for f in check([str(path)], Config(), jobs=1).findings if f.location.row in arm]
    assert messages and all(message.endswith("(in training mode)") for message in messages)
