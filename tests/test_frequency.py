"""Honest counts (issue 16 part 3): each finding says whether its break happens on every call or
only on a branch valid inputs rarely take, and every report counts the two apart.

The classification is checked against Dynamo: with a valid configuration, the compiled model
breaks exactly at the every-call findings.
"""

from __future__ import annotations

import importlib.util
import io
import json
import warnings
from contextlib import redirect_stdout
from pathlib import Path

import pytest
import torch

from graphmend_bot.cli import main
from graphmend_bot.config import Config
from graphmend_bot.engine import check
from graphmend_bot.finding_records import read_finding
from graphmend_bot.github.review.bundle import BundleError, read_bundle
from graphmend_bot.report.json_report import render_json
from graphmend_bot.report.markdown import SummaryView, finding_comment, summary_markdown
from graphmend_bot.report.sarif import render_sarif_text
from graphmend_bot.report.text import render_text
from graphmend_bot.rewrite import fix_outcome
from graphmend_bot.shards import dump_result

MODEL = '''import warnings

import torch
from torch import nn


class Dice(nn.Module):
    def __init__(self, softmax=True):
        super().__init__()
        self.softmax = softmax

    def forward(self, x):
        n_pred_ch = x.shape[1]
        if self.softmax:
            if n_pred_ch == 1:
                warnings.warn("single channel prediction, `softmax=True` ignored.")
            else:
                x = torch.softmax(x, 1)
        if x.dim() != 2:
            raise ValueError(f"expected 2 dimensions, got {x.dim()}")
        try:
            y = torch.sin(x)
        except RuntimeError:
            print("failed on", x.shape)
            raise
        print("shape", x.shape)
        return torch.cos(y)
'''


@pytest.fixture
def model_path(tmp_path: Path) -> Path:
    path = tmp_path / "dice.py"
    path.write_text(MODEL, encoding="utf-8")
    return path


def frequencies(path: Path) -> dict[int, str]:
    return {f.location.row: f.frequency for f in check([str(path)]).findings}


def test_error_and_misconfiguration_branches_are_rare_the_rest_every_call(model_path: Path) -> None:
    assert frequencies(model_path) == {
        16: "rare-branch",  # warns about a configuration valid inputs never take
        24: "rare-branch",  # an `except` handler
        26: "every-call",
    }


def test_a_logged_problem_is_rare_when_the_arm_only_logs_or_bails_out(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text(
        "import logging\n\nimport torch\n\nlogger = logging.getLogger(__name__)\n\n\n@torch.compile\n"
        "def f(x, items):\n"
        "    if len(items) == 0:\n        logging.warning('received an empty data list')\n        return None\n"
        "    if x.shape[0] > 1:\n        logger.warning('batch of %d rows', x.shape[0])\n        x = x + 1\n"
        "    if x.shape[0] > 2:\n        logger.warning('kwargs are not expected and will be ignored')\n"
        "    return x * 2\n", encoding="utf-8")
    assert frequencies(path) == {11: "rare-branch", 14: "every-call", 17: "rare-branch"}


def test_dynamo_breaks_at_exactly_the_every_call_findings_for_valid_inputs(model_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("dice_model", model_path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    torch._dynamo.reset()
    with warnings.catch_warnings(), redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        explained = torch._dynamo.explain(module.Dice())(torch.randn(2, 3))
    torch._dynamo.reset()
    every_call = [row for row, frequency in frequencies(model_path).items() if frequency == "every-call"]
    assert int(explained.graph_break_count) == len(every_call) == 1
    assert "print" in str(explained.break_reasons[0].reason) or "builtin" in str(explained.break_reasons[0].reason)


def test_reports_carry_the_frequency_and_count_it_apart(model_path: Path) -> None:
    result = check([str(model_path)])
    assert [f["frequency"] for f in json.loads(render_json(result))] == ["rare-branch", "rare-branch", "every-call"]
    sarif = json.loads(render_sarif_text(result))
    assert [r["properties"]["frequency"] for r in sarif["runs"][0]["results"]] == [
        "rare-branch", "rare-branch", "every-call"]
    text = render_text(result)
    assert "Found 3 graph break(s) in 1 file(s): 1 on every call, 2 only on rare error/misconfiguration branches." in text
    assert text.count("= note: only on a branch valid inputs rarely take") == 2
    summary = summary_markdown(SummaryView(findings=result.findings, files_checked=1, changed_files=1))
    assert "1 break(s) happen on every call; 2 only on branches valid inputs rarely take" in summary
    assert summary.count("(rare branch: error or misconfiguration path)") == 2
    assert "rarely take" in finding_comment(result.findings[0], "<!-- m -->")
    assert "rarely take" not in finding_comment(result.findings[2], "<!-- m -->")


def test_without_rare_findings_the_summaries_read_as_before(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text("import torch\n\n\n@torch.compile\ndef f(x):\n    print(x.shape)\n    return x\n")
    text = render_text(check([str(path)]))
    assert "Found 1 graph break(s) in 1 file(s)." in text
    assert "on every call" not in text and "rarely take" not in text


RARE_FIXABLE = '''import torch


@torch.compile
def f(x):
    try:
        y = torch.sin(x)
    except RuntimeError:
        y = x * 2 if x.sum() > 0 else x + 1
    print("step")
    return y
'''


def test_fixed_count_separates_rare_branch_fixes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "m.py"
    path.write_text(RARE_FIXABLE, encoding="utf-8")
    assert frequencies(path) == {9: "rare-branch", 10: "every-call"}
    outcome = fix_outcome([str(path)], Config(), with_remaining=False)
    assert [(c.breaks_removed, c.rare_breaks_removed) for c in outcome.changes] == [(2, 1)]
    assert main(["check", "--fix", str(path)]) in (0, 1)
    assert "Fixed 2 graph break(s) (1 on every call, 1 only on rare branches) in 1 file(s)." in capsys.readouterr().err


def test_bundles_and_shards_keep_the_frequency_and_refuse_a_forged_one(model_path: Path, tmp_path: Path) -> None:
    result = check([str(model_path)])
    shard = json.loads(json.dumps(dump_result(result, "1/1", [str(model_path)])))
    assert [read_finding(f, "finding").frequency for f in shard["findings"]] == [f.frequency for f in result.findings]
    item = {"code": "GM401", "graph_break_id": "GB0059", "message": "m", "filename": "m.py",
            "location": {"row": 6, "column": 5}, "end_location": {"row": 6, "column": 19}, "fix": None}
    path = tmp_path / "bundle.json"
    for frequency, expected in (("rare-branch", "rare-branch"), (None, "every-call")):
        finding = {**item, **({"frequency": frequency} if frequency else {})}
        path.write_text(json.dumps({"version": 1, "repository": "o/r", "pull_request": 2, "head_sha": "abc",
                                    "findings": [finding]}))
        assert read_bundle(path).result.findings[0].frequency == expected
    path.write_text(json.dumps({"version": 1, "repository": "o/r", "pull_request": 2, "head_sha": "abc",
                                "findings": [{**item, "frequency": "<!-- graphmend:summary -->"}]}))
    with pytest.raises(BundleError, match="frequency"):
        read_bundle(path)
