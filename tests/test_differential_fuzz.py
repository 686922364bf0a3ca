"""benchmarks/fuzz_grammar.py's programs are valid: for a few fixed seeds each one parses, imports
and runs eagerly, marks the lines its construct is on, and the same seed gives the same programs.
Whether graphmend agrees with Dynamo on them is differential_fuzz.py's measurement, not a test."""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path

import pytest
import torch

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # the probes' own warnings.warn

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))

from fuzz_grammar import CONSTRUCTS, PLACES, build, generate, places_for  # noqa: E402


def _run(source: str, path: Path) -> torch.Tensor:
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(f"gm_fuzz_test_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        return module.Probe()(*module.inputs())
    finally:
        del sys.modules[spec.name]


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_seeded_programs_import_and_run_eagerly(seed: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    programs = generate(seed, 25)
    assert [p.source for p in programs] == [p.source for p in generate(seed, 25)]
    for i, program in enumerate(programs):
        ast.parse(program.source)
        assert program.construct_lines, program.source
        out = _run(program.source, tmp_path / f"p{i}.py")
        assert isinstance(out, torch.Tensor) and out.shape == (4, 4), (program.construct.name, program.context)


def test_every_construct_runs_in_forward_and_every_place_runs(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """Each construct once, directly in forward; each place once with a construct that fits it."""
    for construct in CONSTRUCTS:
        out = _run(build(construct, "forward", "local", "input").source, tmp_path / f"{construct.name}.py")
        assert out.shape == (4, 4), construct.name
    expression = next(c for c in CONSTRUCTS if c.name == "item")
    assert set(places_for(expression)) == set(PLACES)
    for place in PLACES:
        out = _run(build(expression, place, "self_attr", "buffer").source, tmp_path / f"place_{place}.py")
        assert out.shape == (4, 4), place
