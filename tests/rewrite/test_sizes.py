"""Sizes read from a tensor built from a Python list -> pass the list (rewrite/scalars/sizes.py).

The fixture pairs (tests/fixtures/rewrite/sizes/) check outputs bit for bit and that Dynamo counts
fewer breaks; here: what the fixes say, and every condition that must block the rewrite.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture_support import FIXTURES

from graphmend_bot.config import Config
from graphmend_bot.engine import check
from graphmend_bot.findings import Finding
from graphmend_bot.rewrite import attach_fixes

SIZES = FIXTURES / "sizes"


def _gm302(source: str, tmp_path: Path) -> list[Finding]:
    path = tmp_path / "case.py"
    path.write_text(source, encoding="utf-8")
    return [f for f in attach_fixes(check([str(path)]), Config()).findings if f.code == "GM302"]


def test_list_built_locally_drops_the_dead_tensor_and_assumes_only_no_override(tmp_path: Path) -> None:
    (finding,) = _gm302((SIZES / "built_from_list.in.py").read_text(encoding="utf-8"), tmp_path)
    assert finding.fix is not None and finding.fix.applicability == "unsafe"
    assert "`shapes_list` for `shapes`" in finding.fix.message
    assert "line building it is removed" in finding.fix.message
    assert finding.fix.message.count("assumes") == 1
    assert "assumes no subclass overrides `proposals`" in finding.fix.message


def test_parameter_twin_is_unsafe_and_states_its_assumptions(tmp_path: Path) -> None:
    (finding,) = _gm302((SIZES / "parameter_twin.in.py").read_text(encoding="utf-8"), tmp_path)
    assert finding.fix is not None and finding.fix.applicability == "unsafe"
    assert "pass `spatial_shapes_list` holding the sizes in `spatial_shapes`" in finding.fix.message
    assert "below 2**23" in finding.fix.message


BASE = (SIZES / "built_from_list.in.py").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # The row names reach something other than a size: a tensor there would differ.
        ("grids.append(grid.reshape(batch_size, -1, 2) * 2.0**level)",
         "grids.append(grid.reshape(batch_size, -1, 2) * 2.0**level * height)"),
        # The parameter is also read outside the loop.
        ("        return torch.cat(grids, 1)", "        return torch.cat(grids, 1) + spatial_shapes.sum()"),
        # A float dtype: the tensor is not the list's ints.
        ("dtype=torch.long)", "dtype=torch.float32)"),
        # The list changes after the tensor is built.
        ("        return self.proposals(", "        shapes_list.append((1, 1))\n        return self.proposals("),
        # The list holds something that is not a size.
        ("shapes_list.append((height, width))", "shapes_list.append((height, feature_map.mean()))"),
        # Rows of different lengths: as_tensor would raise, iterating would not.
        ("        shapes = torch.as_tensor(", "        shapes_list.append((1, 1, 1))\n        shapes = torch.as_tensor("),
    ],
    ids=["row-in-arithmetic", "parameter-read-elsewhere", "float-dtype", "list-modified", "not-a-size", "ragged"],
)
def test_no_fix_when_the_list_and_the_tensor_may_differ(old: str, new: str, tmp_path: Path) -> None:
    assert old in BASE
    findings = _gm302(BASE.replace(old, new, 1), tmp_path)
    assert findings, "the break is still reported"
    assert all(f.fix is None for f in findings)
