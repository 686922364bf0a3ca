"""The pool gets files largest first; results must still line up with their files."""

import gc

from graphmend_bot.engine import PARALLEL_THRESHOLD, Workspace, _pool, check
from graphmend_bot.gc_pause import collector_paused


def _package(tmp_path, count):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for index in range(count):
        # Sizes vary so the largest-first order differs from the path order.
        padding = "\n".join(f"CONSTANT_{n} = {n}" for n in range((index * 7) % 23))
        (package / f"model_{index:03d}.py").write_text(
            "import torch\n"
            f"{padding}\n"
            f"class Model{index}(torch.nn.Module):\n"
            "    def forward(self, x):\n"
            f"        if x.sum() > {index}:\n"
            "            x = x + 1\n"
            "        return x\n"
        )
    (package / "broken.py").write_text("def forward(:\n")
    return package


def test_parallel_check_matches_the_serial_one(tmp_path):
    package = _package(tmp_path, PARALLEL_THRESHOLD + 12)
    serial = check([str(package)], jobs=1)
    parallel = check([str(package)], jobs=2)
    assert len(serial.findings) == PARALLEL_THRESHOLD + 12
    assert [(f.path, f.location.row, f.source_line) for f in parallel.findings] == [
        (f.path, f.location.row, f.source_line) for f in serial.findings
    ]
    assert [(e.path, e.message) for e in parallel.errors] == [(e.path, e.message) for e in serial.errors]
    assert any("broken.py" in e.path and "syntax error" in e.message for e in parallel.errors)


def test_summaries_come_back_in_path_order_each_for_its_file(tmp_path):
    package = _package(tmp_path, PARALLEL_THRESHOLD + 12)
    workspace = Workspace([str(package)], jobs=2)
    # The scope solver sees modules in the order of the files, as without a pool.
    assert list(workspace.summaries) == list(Workspace([str(package)], jobs=1).summaries)
    assert list(workspace.summaries) == sorted(workspace.summaries)
    for path, summary in workspace.summaries.items():
        assert summary.path == path
        if "model_" in path:
            index = int(path.rsplit("model_", 1)[1][:3])
            assert f"Model{index}" in summary.classes


def test_collector_paused_restores_what_it_found():
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner block leaves the outer pause alone
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()  # never turned on by a block that found it off
    finally:
        gc.enable()


def _collector_on(_: object) -> bool:
    return gc.isenabled()


def test_workers_forked_during_a_pause_start_with_the_collector_on():
    # check() pauses the parent's collector for the whole run; each worker must still collect
    # between its files, and the parent's objects must be thawed again after the fork.
    frozen_before = gc.get_freeze_count()
    with collector_paused():
        with _pool(PARALLEL_THRESHOLD, 2) as pool:
            assert pool is not None
            assert pool.map(_collector_on, range(8), chunksize=1) == [True] * 8
        assert not gc.isenabled()
    assert gc.isenabled()
    assert gc.get_freeze_count() == frozen_before


def test_check_leaves_the_collector_as_it_found_it(tmp_path):
    package = _package(tmp_path, PARALLEL_THRESHOLD + 2)
    result = check([str(package)], jobs=2)
    assert len(result.findings) == PARALLEL_THRESHOLD + 2
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0
