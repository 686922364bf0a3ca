"""The parent <-> child protocol: strict both ways, and a bad result is one failed arm, not a crash."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from graphmend_bot.verify import ArmSource, EntryPoint, Settings, verify
from graphmend_bot.verify.protocol import ArmResult, ChildRequest, ProtocolError, SavedOutput
from graphmend_bot.verify.runner import ERROR, UNCHANGED, child_command, read_child_result

QUICK = Settings(device="cpu", backend="eager", seeds=(0,), warmup=0, repeat=1, timeout=300)


def request(tmp_path: Path) -> ChildRequest:
    return ChildRequest(
        root=str(tmp_path), factory="m:f", device="cpu", dtype="float32", seeds=(0, 1), backend="eager",
        mode=None, warmup=1, repeat=2, no_grad=True, backward=False, reference=True,
        coverage={"m.py": [3, 4]}, output_dir=str(tmp_path / "outputs"),
    )  # fmt: skip


def measured(output_dir: Path) -> dict[str, Any]:
    """A measured result as the child writes it."""
    saved: SavedOutput = {"tensors": str(output_dir / "seed0-eager.pt"), "leaves": {"output[1]": "None"}}
    return ArmResult(
        ok=True, device="cpu", torch_version="2.13.0", graph_count=2, graph_break_count=1,
        break_reasons=[{"reason": "logging.Logger.info", "location": "m.py:7"}], cold_start_s=0.5,
        steady_state_s=0.001, outputs={"0": {"eager": saved, "compiled": saved}},
        covered={"m.py": [3]},
    ).to_json()  # fmt: skip


def test_a_request_and_a_result_survive_the_round_trip(tmp_path: Path) -> None:
    sent = request(tmp_path)
    assert ChildRequest.from_json(json.loads(json.dumps(sent.to_json()))) == sent
    data = json.loads(json.dumps(measured(tmp_path)))
    parsed = ArmResult.from_child(data, str(tmp_path))
    assert parsed.to_json() == data
    assert parsed.torch_version == "2.13.0"  # once dropped silently: not a field of the old result
    failed = ArmResult.failed("factory-raised", "factory m:f raised ValueError: no")
    assert ArmResult.from_child(failed.to_json()) == failed


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"approved": True}, "the measurement result: unknown key(s) 'approved'"),
        ({"graph_count": None}, "the measurement result: `graph_count` must be an integer >= 0, got NoneType None"),
        ({"graph_count": "1"}, "`graph_count` must be an integer >= 0, got str '1'"),
        ({"graph_break_count": True}, "`graph_break_count` must be an integer >= -1, got bool True"),
        ({"graph_break_count": -2}, "`graph_break_count` must be an integer >= -1, got int -2"),
        ({"cold_start_s": float("nan")}, "`cold_start_s` must be a finite number of seconds"),
        ({"break_reasons": [{"reason": "x"}]}, "`break_reasons` must be a list of {reason, location}"),
        ({"outputs": {"0": {"weights": {"tensors": "x", "leaves": {}}}}}, "`outputs` must be {seed: {kind:"),
        ({"covered": {"m.py": ["3"]}}, "`covered` must be {path: [line, ...]}"),
    ],
)
def test_a_bad_result_is_an_error_that_names_the_key(tmp_path: Path, change: dict[str, Any], message: str) -> None:
    with pytest.raises(ProtocolError) as raised:
        ArmResult.from_child(measured(tmp_path) | change, str(tmp_path))
    assert message in str(raised.value)


def test_a_missing_key_or_a_stray_one_in_a_failure_is_an_error(tmp_path: Path) -> None:
    incomplete = measured(tmp_path)
    del incomplete["outputs"], incomplete["device"]
    with pytest.raises(ProtocolError, match=r"missing key\(s\) 'device', 'outputs'"):
        ArmResult.from_child(incomplete)
    with pytest.raises(ProtocolError, match=r"the failed measurement result: unknown key\(s\) 'graph_count'"):
        ArmResult.from_child({"ok": False, "error_kind": "run-failed", "error": "x", "graph_count": 0})
    with pytest.raises(ProtocolError, match="expected an object with a boolean `ok`"):
        ArmResult.from_child(["ok"])
    with pytest.raises(ProtocolError, match=r"the verify request: unknown key\(s\) 'extra'"):
        ChildRequest.from_json(request(tmp_path).to_json() | {"extra": 1})
    with pytest.raises(ProtocolError, match="`seeds` must be a non-empty list of integers, got list"):
        ChildRequest.from_json(request(tmp_path).to_json() | {"seeds": []})


def test_a_saved_output_outside_the_arms_folder_is_refused(tmp_path: Path) -> None:
    """The parent torch.loads what the result points at: only files in the arm's own folder."""
    outputs = tmp_path / "outputs"
    with pytest.raises(ProtocolError, match="is not in the arm's output folder"):
        ArmResult.from_child(measured(tmp_path), str(outputs))


def test_the_runner_turns_an_unusable_result_into_a_failed_arm(tmp_path: Path) -> None:
    path = tmp_path / "result.json"
    for text, expected in (
        (json.dumps(measured(tmp_path) | {"approved": True}), "unknown key(s) 'approved'"),
        ("{not json", "not JSON: JSONDecodeError"),
        ("[" * 100_000 + "]" * 100_000, "not JSON: RecursionError"),
    ):
        path.write_text(text, encoding="utf-8")
        result = read_child_result(path, tmp_path)
        assert (result.ok, result.error_kind) == (False, "bad-result"), result
        assert result.error is not None and result.error.startswith(
            "the measurement process wrote an unusable result: "
        )
        assert expected in result.error


def test_the_child_refuses_a_malformed_request_with_a_result_not_a_traceback(tmp_path: Path) -> None:
    request_path, result_path = tmp_path / "request.json", tmp_path / "result.json"
    request_path.write_text(json.dumps(request(tmp_path).to_json() | {"seeds": "0"}), encoding="utf-8")
    done = subprocess.run(
        child_command(sys.executable, request_path, result_path), cwd=tmp_path, capture_output=True, text=True,
        check=False, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    result = ArmResult.from_child(json.loads(result_path.read_text("utf-8")))
    assert (result.ok, result.error_kind) == (False, "bad-request")
    assert result.error == "the verify request: `seeds` must be a non-empty list of integers, got str '0'"


HOSTILE = '''\
import atexit
import json
import sys

import torch


def forged():
    """The code under test rewrites the result after the child wrote it."""
    with open(sys.argv[2], "w") as handle:
        json.dump({"ok": True, "approved": True}, handle)


def factory():
    atexit.register(forged)
    return torch.nn.Identity(), (torch.ones(2),)


def honest():
    return torch.nn.Identity(), (torch.ones(2),)
'''


def test_a_result_rewritten_by_the_code_under_test_fails_its_entry_point_and_the_run_goes_on(
    tmp_path: Path,
) -> None:
    for arm in ("original", "rewritten"):
        (tmp_path / arm).mkdir()
        (tmp_path / arm / "hostile.py").write_text(HOSTILE, encoding="utf-8")
    report = verify(
        [EntryPoint("forged", "hostile:factory", QUICK), EntryPoint("honest", "hostile:honest", QUICK)],
        ArmSource(tmp_path / "original", "original"),
        ArmSource(tmp_path / "rewritten", "rewritten"),
        rewritten_lines=[],
    )
    forged, honest = report.results
    assert forged.verdict == ERROR and not forged.passed
    assert forged.original.error_kind == "bad-result"
    assert forged.reasons[0].startswith("original arm failed: the measurement process wrote an unusable result")
    assert "unknown key(s) 'approved'" in forged.reasons[0]
    assert honest.original.ok and honest.rewritten.ok, (honest.original.error, honest.rewritten.error)
    # Dynamo's own count for a function it captured no graph of: 0 graphs, -1 breaks, accepted as is.
    assert (honest.original.graph_count, honest.original.graph_break_count) == (0, -1)
    assert honest.verdict == UNCHANGED
