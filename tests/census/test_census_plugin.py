"""The pytest plugin end to end: a real project's tests, run with and without the census."""

from __future__ import annotations

import json
from pathlib import Path

from project import line_of, outcomes

from graphmend_bot.census.record import load_census


def test_off_by_default_and_never_changes_an_outcome(runs: tuple[Path, str, str]) -> None:
    _, plain, censused = runs
    before, after = outcomes(plain), outcomes(censused)
    assert len(before) == 7 and before == after, (plain, censused)
    assert before["tests/test_model.py::test_a_failing_test_stays_failing"] == "FAILED"
    assert "graphmend census" not in plain
    assert "graphmend census: " in censused


def test_records_dynamos_breaks_with_the_test_that_showed_them(runs: tuple[Path, str, str]) -> None:
    root = runs[0]
    census = load_census(root / "graphmend-census.json")
    by_line = {(b.path, b.line): b for b in census.breaks}
    branch = by_line[("pkg/model.py", line_of("# break: branch"))]
    assert (branch.gb_id, branch.reason) == ("GB0170", "Data-dependent branching")
    assert branch.test == "tests/test_model.py::test_forward_sees_its_own_randomness_logs_and_stats"
    assert by_line[("pkg/model.py", line_of("# break: logger"))].gb_id == "GB0291"
    printed = by_line[("pkg/model.py", line_of("# break: print"))]
    assert printed.test == "tests/test_model.py::test_score_prints_once"  # a configured entry point
    assert set(by_line) == {("pkg/model.py", line_of(m)) for m in ("# break: branch", "# break: logger",
                                                                     "# break: print", "# break: time",
                                                                     "# break: only Dynamo")}
    # Lines that ran: the clean entry point ran without a break.
    assert census.ran("pkg/model.py", line_of("return torch.relu(x) * 2"))
    assert census.coverage and len(census.commit) == 40


def test_a_module_explain_cannot_handle_is_recorded_as_such(runs: tuple[Path, str, str]) -> None:
    census = load_census(runs[0] / "graphmend-census.json")
    failed = [call for call in census.calls if call.target == "pkg.model.Untraceable"]
    assert len(failed) == 1 and "UncapturedHigherOrderOpError" in failed[0].error
    assert failed[0].test == "tests/test_model.py::test_untraceable_module_still_runs"


def test_one_explain_per_module_and_input_signature(runs: tuple[Path, str, str]) -> None:
    census = load_census(runs[0] / "graphmend-census.json")
    nets = [call for call in census.calls if call.target == "pkg.model.Net"]
    # Batch 3 in the first test (twice, one explain), batch 2 in the failing one.
    assert [call.test.rsplit("::", 1)[1] for call in nets] == [
        "test_forward_sees_its_own_randomness_logs_and_stats", "test_a_failing_test_stays_failing"]
    assert json.loads((runs[0] / "graphmend-census.json").read_text())["format"] == "graphmend-census"


def test_a_module_with_no_project_code_is_not_explained(runs: tuple[Path, str, str]) -> None:
    root, _, censused = runs
    census = load_census(root / "graphmend-census.json")
    # test_compiled_fullgraph_is_untouched calls an nn.Sequential of torch layers: nothing of the
    # project's can run in it, so no explain (and no line tracing) is spent on it.
    assert not [call for call in census.calls if call.target.startswith("torch.")]
    assert "not explained (no project code runs in them): torch.nn.modules.container.Sequential" in censused
    assert census.calls and all(call.seconds > 0 for call in census.calls)  # what each explain cost


def test_project_code_reachable_from_a_torch_module_is_still_explained(tmp_path: Path) -> None:
    """A project layer inside torch's container, a project hook, or a project function held by a
    torch module makes the module worth explaining."""
    import importlib.util

    import torch

    from graphmend_bot.census.dynamo import Tree
    from graphmend_bot.census.recorder import Recorder

    source = tmp_path / "layers.py"
    source.write_text("import torch\n\n\nclass Double(torch.nn.Module):\n    def forward(self, x):\n"
                      "        return x * 2\n\n\ndef hook(module, args):\n    return None\n")
    spec = importlib.util.spec_from_file_location("census_layers_under_test", source)
    assert spec is not None and spec.loader is not None
    layers = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(layers)
    recorder = Recorder(tmp_path, Tree([str(tmp_path)]))

    torch_only = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU())
    assert not recorder._may_run_project_code(torch_only)
    assert recorder._may_run_project_code(torch.nn.Sequential(torch.nn.Linear(2, 2), layers.Double()))
    hooked = torch.nn.Sequential(torch.nn.Linear(2, 2))
    hooked[0].register_forward_pre_hook(layers.hook)
    assert recorder._may_run_project_code(hooked)
    holder = torch.nn.Linear(2, 2)
    holder.post = layers.hook
    assert recorder._may_run_project_code(holder)
    assert recorder._may_run_project_code(layers.hook)  # an entry point is always explained
