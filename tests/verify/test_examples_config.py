"""The bundled examples ship a working verify configuration."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphmend_bot.cli import main
from graphmend_bot.config import load_config
from graphmend_bot.verify.settings import parse_verify_config

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_examples_config_lists_entry_points() -> None:
    config = load_config(EXAMPLES / ".graphmend.yml")
    verify = parse_verify_config(config.verify, config.source or "")
    assert [entry.factory for entry in verify.entry_points] == [
        "graphmend_verify:causal_lm",
        "graphmend_verify:long_context",
    ]
    assert verify.settings.backend == "inductor"
    assert verify.settings.tolerances() == (0.0, 0.0)


def test_verify_runs_on_the_examples(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(EXAMPLES)
    flags = ["--backend", "eager", "--seeds", "0", "--warmup", "0", "--repeat", "2", "--json", "-q"]
    code = main(["verify", *flags])
    data = json.loads(capsys.readouterr().out)
    for entry in data["entry_points"]:
        assert entry["original"]["ok"] and entry["rewritten"]["ok"], entry["reasons"]
        assert entry["rewritten"]["graph_count"] <= entry["original"]["graph_count"]
        assert entry["outputs_equal"] is True
    assert code == 0
    assert data["passed"] is True
