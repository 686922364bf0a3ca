"""The rest of a frame after a break in a `try` body runs eagerly: Dynamo cannot resume inside a
`try` block, so it compiles the graph up to the `try` (or, with fewer than two operations before
it, skips the frame) and runs the rest of the function eagerly, where nothing breaks. So a finding
after such a break is none, whether the break is the body's own (pyro's `warn_if_nan`, whose
`sys._getframe(1)` in a `try` comes before its `if torch_isnan(value):`) or a callee's it inlines.
A `try` whose body does not break, or breaks only on an error branch, leaves the rest traced. Each
case's ground truth is measured with `torch._dynamo.explain` and the graph-break log on torch 2.13."""

from __future__ import annotations

from pathlib import Path

import pytest
from sample_modules import dynamo_breaks, graphmend_findings

TWO_OPS = "x = x * 2\n        x = x + 1\n        "
CASES = {
    # body of forward(self, x) before a final `if x.sum() > 0:`, and whether Dynamo breaks there
    "own_break_after_two_operations": (
        TWO_OPS + "try:\n            frame = sys._getframe(1)\n        except ValueError:\n            frame = None", False),
    "own_break_skipping_the_frame": (
        "try:\n            frame = sys._getframe(1)\n        except ValueError:\n            frame = None", False),
    "own_break_under_a_flag": (  # pyro's: the `try` in `if filename is None:`
        "if self.filename is None:\n            try:\n                frame = sys._getframe(1)\n"
        "            except ValueError:\n                frame = None", False),
    "print_with_finally": (TWO_OPS + "try:\n            print('hi')\n        finally:\n            x = x + 1", False),
    "callee_break_after_two_operations": (
        TWO_OPS + "try:\n            x = self.helper(x)\n        except ValueError:\n            pass", False),
    "callee_break_skipping_the_frame": (
        "try:\n            x = self.helper(x)\n        except ValueError:\n            pass", False),
    "own_break_in_a_with_block": (
        TWO_OPS + "try:\n            with torch.no_grad():\n                print('hi')\n        except ValueError:\n"
        "            pass", False),
    "break_in_a_ternary_test": (  # the test runs whenever the body does
        TWO_OPS + "try:\n            y = 1 if print('hi') else 2\n        except ValueError:\n            pass", False),
    "break_in_the_if_test": (  # linear_operator's `if approx_eigs.min() <= 0: raise RuntimeError` in a `try`
        TWO_OPS + "try:\n            if x.max() <= 0:\n                raise RuntimeError\n        except RuntimeError:\n"
        "            pass", False),
    # near misses: the body does not break, or only on an error branch the call does not take, or in
    # an arm of a flag that is off (linear_operator's `if settings.verbose_linalg.on(): logger.debug(...)`)
    "break_in_an_arm_not_taken": (
        TWO_OPS + "try:\n            if self.verbose:\n                print('hi')\n            x = x + 1\n"
        "        except ValueError:\n            pass", True),
    # arms in disguise: a conditional expression's arm, an operand after the first of `and`, a callee
    # called in an arm, and an inner `try` in an `if` arm of the outer body (flag off: nothing breaks)
    "break_in_a_ternary_arm_not_taken": (
        TWO_OPS + "try:\n            y = print('hi') if self.verbose else None\n        except ValueError:\n"
        "            pass", True),
    "break_after_and_not_evaluated": (
        TWO_OPS + "try:\n            y = self.verbose and print('hi')\n        except ValueError:\n            pass", True),
    "callee_in_a_ternary_arm_not_taken": (
        TWO_OPS + "try:\n            x = self.helper(x) if self.verbose else x\n        except ValueError:\n"
        "            pass", True),
    "inner_try_in_an_arm_not_taken": (
        TWO_OPS + "try:\n            if self.verbose:\n                try:\n                    print('hi')\n"
        "                except ValueError:\n                    pass\n            x = x + 1\n"
        "        except ValueError:\n            pass", True),
    "no_break_in_body": ("try:\n            x = x + 1\n        except ValueError:\n            pass", True),
    "break_on_error_branch": (
        TWO_OPS + "try:\n            if x.dim() > 5:\n                raise ValueError('bad')\n"
        "            x = x + 1\n        except ValueError:\n            print('bad')", True),
    "break_before_the_try": (TWO_OPS + "print('hi')\n        try:\n            x = x + 1\n        except ValueError:\n"
                             "            pass", True),
}


def _source(body: str) -> str:
    return (
        "import sys\n\nimport torch\n\n\nclass Model(torch.nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.filename = None\n        self.verbose = False\n\n"
        "    def helper(self, x):\n        print('hi')\n        return x + 1\n\n"
        f"    def forward(self, x):\n        {body}\n        if x.sum() > 0:\n            x = x * 2\n"
        "        return x - 1\n"
    )


@pytest.mark.parametrize("case", sorted(CASES))
def test_rest_after_a_breaking_try_body_is_eager(tmp_path: Path, case: str) -> None:
    body, breaks = CASES[case]
    source = _source(body)
    row = next(n for n, line in enumerate(source.splitlines(), 1) if "if x.sum() > 0:" in line)
    truth = dynamo_breaks(source, tmp_path)
    found = graphmend_findings(source, tmp_path)
    assert {line for line, _ in truth if line == row} == ({row} if breaks else set())
    assert {line for line, _, _ in found if line == row} == ({row} if breaks else set())
