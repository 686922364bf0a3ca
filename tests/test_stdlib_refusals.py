"""Standard-library callables Dynamo refuses outright, with an id of their own whatever the
arguments (GB0156 "Unsupported method call", GB0147 "Unsupported function call", ...), against the
pinned torch.

benchmarks/skipped_callees.py and benchmarks/skipped_methods.py record them with the id measured
(GM640 reports each with it). Here one callee per id is measured again, and real calls, with
arguments as code writes them, go through `torch._dynamo.explain` and `graphmend check`: each
breaks at its line with the recorded id and is reported with it; what Dynamo traces is not.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from graphmend_bot.vocabulary.skipped_callees import SKIPPED_CALLEES
from graphmend_bot.vocabulary.skipped_methods import BUILT_METHODS, HELD_METHODS

torch = pytest.importorskip("torch")

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from sample_modules import dynamo_breaks, graphmend_findings  # noqa: E402
from skipped_callees import SKIPPED_IDS, gb_ids_by_type, measure  # noqa: E402

IMPORTS = (
    "import array, dataclasses, datetime, json, random\n"
    "from datetime import date\n\n"
    "import torch\n\n\n"
    "@dataclasses.dataclass\nclass Point:\n    x: int = 0\n\n\n"
    "POINT = Point()\n\n\n"
)
# Calls as code writes them, each in a table with an id other than a skipped function's.
REFUSED_CALLS = {
    "datetime.datetime.now": "datetime.datetime.now()",
    "datetime.date.today": "date.today()",  # the class imported by name
    "json.loads": "json.loads('{\"a\": 1}')",
    "array.array": "array.array('f', [1.0])",
}
# What Dynamo traces: nothing is reported.
TRACED_CALLS = [
    "dataclasses.fields(POINT)",  # refused on anything but a dataclass instance: argument-dependent
    "dataclasses.fields(self.point)",
    "datetime.timezone.utc",  # an attribute read
    "json.JSONDecodeError",
]


def _model(init: str, expression: str) -> tuple[str, int]:
    source = IMPORTS + textwrap.dedent(f"""\
        class Model(torch.nn.Module):
            def __init__(self):
                super().__init__()
                {init}

            def forward(self, x):
                x = x * 2
                _value = {expression}
                return x + 1
        """)
    return source, source.splitlines().index(f"        _value = {expression}") + 1


def _first_per_id(table: dict[str, str]) -> list[str]:
    """One entry per id other than a skipped function's (tests/test_skipped_methods.py measures
    the methods' again)."""
    firsts: dict[str, str] = {}
    for name in sorted(table):
        if table[name] not in SKIPPED_IDS:
            firsts.setdefault(table[name], name)
    return sorted(firsts.values())


def test_the_tables_hold_other_ids() -> None:
    assert {SKIPPED_CALLEES[name] for name in REFUSED_CALLS} - SKIPPED_IDS


@pytest.mark.parametrize("name", _first_per_id(SKIPPED_CALLEES))
def test_one_callee_per_id_is_refused_with_it(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert measure(name, gb_ids_by_type()) == SKIPPED_CALLEES[name]


@pytest.mark.parametrize("name", sorted(REFUSED_CALLS))
def test_refused_call_breaks_and_is_reported_with_its_id(name: str, tmp_path: Path) -> None:
    source, line = _model("pass", REFUSED_CALLS[name])
    assert dynamo_breaks(source, tmp_path) == {(line, SKIPPED_CALLEES[name])}
    assert (line, "GM640", SKIPPED_CALLEES[name]) in graphmend_findings(source, tmp_path)


def test_held_decoder_method_breaks_and_is_reported(tmp_path: Path) -> None:
    """`self.decoder.decode(s)` on a `json.JSONDecoder` built in `__init__`: GB0156."""
    name = "json.JSONDecoder.decode"
    source, line = _model("self.decoder = json.JSONDecoder()", "self.decoder.decode('[1]')")
    assert dynamo_breaks(source, tmp_path) == {(line, HELD_METHODS[name])}
    assert (line, "GM640", HELD_METHODS[name]) in graphmend_findings(source, tmp_path)


def test_built_random_method_breaks_and_is_reported(tmp_path: Path) -> None:
    """`rng.choice(xs)` on `rng = random.Random(0)` built in the function: GB0156."""
    name = "random.Random.choice"
    source, line = _model("pass", "rng.choice([1, 2])")
    source = source.replace(
        "        _value = rng.choice", "        rng = random.Random(0)\n        _value = rng.choice"
    )
    line += 1
    assert dynamo_breaks(source, tmp_path) == {(line, BUILT_METHODS[name])}
    assert (line, "GM640", BUILT_METHODS[name]) in graphmend_findings(source, tmp_path)


@pytest.mark.parametrize("expression", TRACED_CALLS)
def test_traced_call_is_not_reported(expression: str, tmp_path: Path) -> None:
    source, _ = _model("self.point = Point()", expression)
    assert dynamo_breaks(source, tmp_path) == set()
    assert graphmend_findings(source, tmp_path) == set()
