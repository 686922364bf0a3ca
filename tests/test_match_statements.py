"""`match` statements are walked as `if`/`elif` chains (analysis/match_statements.py). Measured on
torch 2.13, Python 3.11: Dynamo traces `match`; the body of the case taken breaks where its code
does, a value pattern on a tensor subject (`case 0:`, `subject == 0`) and a guard on tensor values
break at the case line (GB0170), a capture binds the tensor (`case y:`, `case (y, 1) as pair:`)
so a branch on it breaks; class, sequence and mapping patterns on a tensor only ask its type."""

from __future__ import annotations

from pathlib import Path

import pytest
from sample_modules import dynamo_breaks, graphmend_findings

CASES = {
    "print_in_the_case_taken": "match self.kind:\n    case 'a':\n        print('a')\n    case _:\n        x = x + 1",
    "value_pattern_on_a_tensor": "match x.sum():\n    case 0 | 1:\n        x = x + 1\n    case _:\n        x = x - 1",
    "guard_on_tensor_values": "match self.kind:\n    case 'a' if x.sum() > 0:\n        x = x + 1\n    case _:\n        x = x - 1",
    "capture_of_a_tensor": "match x:\n    case y:\n        if y.sum() > 0:\n            x = x + 1",
    "capture_in_a_sequence": "match (x, 1):\n    case (y, 1) as pair:\n        if y.sum() > 0:\n            x = x + 1",
    "item_in_a_case": "match self.kind:\n    case 'a':\n        z = x.sum().item()\n        x = x + z",
    "sequence_pattern_compares_a_tensor_element": "match (x.sum(), 1):\n    case (0, 1):\n        x = x + 1",
    "sequence_pattern_on_a_held_tuple": "t = (1, x.sum())\nmatch t:\n    case [1, 0.5]:\n        x = x + 1",
    # near misses: patterns that only ask the tensor's type, a capture of a Python value
    "class_pattern_on_a_tensor": "match x:\n    case torch.Tensor():\n        x = x + 1\n    case _:\n        x = x - 1",
    "sequence_pattern_on_a_tensor": "match x:\n    case [a, b, c]:\n        x = a + b\n    case _:\n        x = x - 1",
    "mapping_pattern_on_a_tensor": "match x:\n    case {'a': v}:\n        x = v\n    case _:\n        x = x - 1",
    "capture_of_a_python_value": "match (self.kind, x):\n    case (k, y):\n        if k == 'a':\n            x = y + 1",
    "singleton_pattern_on_a_tensor": "match x:\n    case None:\n        x = x + 1\n    case _:\n        x = x - 1",
    # a value pattern on a container holding a tensor compares the container (`[x, 1] == 0`)
    "value_pattern_on_a_list_display": "match [x, 1]:\n    case 0:\n        x = x + 1\n    case torch.float32:\n"
                                       "        x = x + 2",
    "value_pattern_on_a_held_tuple": "t = (x, 1)\nmatch t:\n    case 0:\n        x = x + 1",
    "value_pattern_on_a_dict_display": "match {'a': x}:\n    case 0:\n        x = x + 1",
}
NEAR_MISSES = {"class_pattern_on_a_tensor", "sequence_pattern_on_a_tensor", "mapping_pattern_on_a_tensor",
               "capture_of_a_python_value", "singleton_pattern_on_a_tensor",
               "value_pattern_on_a_list_display", "value_pattern_on_a_held_tuple", "value_pattern_on_a_dict_display"}


def _source(statement: str) -> str:
    body = "\n".join("        " + line for line in statement.splitlines())
    return (
        "import torch\n\n\nclass Model(torch.nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.kind = 'a'\n\n"
        f"    def forward(self, x):\n        x = x * 2\n        x = x + 1\n{body}\n        return x - 1\n"
    )


@pytest.mark.parametrize("case", sorted(CASES))
def test_match_statement(tmp_path: Path, case: str) -> None:
    source = _source(CASES[case])
    truth = {(line, gb_id) for line, gb_id in dynamo_breaks(source, tmp_path)}
    found = {(line, gb_id) for line, _, gb_id in graphmend_findings(source, tmp_path)}
    assert found == truth
    assert bool(truth) == (case not in NEAR_MISSES)


def test_a_case_in_a_try_body_is_an_arm(tmp_path: Path) -> None:
    """A break in a case not taken leaves what follows the `try` traced, as one in an `if` arm does
    (tests/test_try_body_rest.py): only the subject runs whenever the body does."""
    statement = ("try:\n    match self.kind:\n        case 'b':\n            print('b')\n        case _:\n"
                 "            x = x + 1\nexcept ValueError:\n    pass\nif x.sum() > 0:\n    x = x * 2")
    source = _source(statement)
    after = next(n for n, line in enumerate(source.splitlines(), 1) if "if x.sum() > 0:" in line)
    assert after in {line for line, _ in dynamo_breaks(source, tmp_path)}
    assert after in {line for line, _, _ in graphmend_findings(source, tmp_path)}
