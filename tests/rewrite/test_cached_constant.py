"""A cached loader marked `torch.compiler.assume_constant_result` under its cache (rewrite/loaders/cached_constant.py).

The fixture pair tests/fixtures/rewrite/cached_constant/mel_filters (whisper's mel filterbank) is run
by test_fixture_pairs.py: the exact rewrite, bit-identical eager outputs, fewer breaks. Here, measured
on torch 2.13: the marked loader compiles whole, each argument value gets its own result compiled
(never the first one's), eager calls still go through the cache, and the cases that must get no fix.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import torch
from fixture_support import FIXTURES, break_count, load_module

from graphmend_bot.config import Config
from graphmend_bot.engine import check
from graphmend_bot.findings import Finding
from graphmend_bot.rewrite import attach_fixes

CASE = FIXTURES / "cached_constant" / "mel_filters"


def test_the_marked_loader_compiles_whole_and_serves_each_argument_its_own_result(tmp_path: Path) -> None:
    before = load_module(CASE.with_suffix(".in.py"), tmp_path, "cached_constant_before")
    after = load_module(CASE.with_suffix(".out.py"), tmp_path, "cached_constant_after")
    audio = torch.randn(4000)
    assert break_count(before.log_mel_spectrogram, (audio,)) >= 1
    assert break_count(after.log_mel_spectrogram, (audio,)) == 0

    torch._dynamo.reset()
    whole = torch.compile(after.log_mel_spectrogram, fullgraph=True, backend="eager")
    expected = before.log_mel_spectrogram(audio)
    assert torch.equal(whole(audio), expected)
    # Another filterbank size: a new compilation (the argument is guarded), not the first result.
    torch._dynamo.reset()
    compiled = torch.compile(after.log_mel_spectrogram, backend="eager")
    for n_mels in (8, 4, 8):
        got = compiled(audio, n_mels)
        assert got.shape[0] == n_mels
        assert torch.equal(got, before.log_mel_spectrogram(audio, n_mels))
    # Eager calls still share the cached tensor, as before the rewrite.
    assert after.mel_filters("cpu", 8) is after.mel_filters("cpu", 8)


LOADER = '''
import functools
from functools import lru_cache

import numpy as np
import torch

PATH = "table.npy"


{decorators}
def load_table({parameters}){returns}:
    return torch.from_numpy(np.load(PATH)).to(device)


def forward({caller}) -> torch.Tensor:
    return x * {call}


compiled = torch.compile(forward)
'''


def _fixes(tmp_path: Path, **parts: str) -> list[Finding]:
    values = {"decorators": "@lru_cache(maxsize=None)", "parameters": "device, size: int",
              "returns": " -> torch.Tensor", "call": "load_table(x.device, size)",
              "caller": "x: torch.Tensor, device: torch.device, size: int", **parts}
    path = tmp_path / "loader.py"
    path.write_text(LOADER.format(**values), encoding="utf-8")
    findings = attach_fixes(check([str(path)], Config()), Config()).findings
    return [f for f in findings if f.code == "GM604"]


def test_a_container_with_python_element_types_is_a_python_value(tmp_path: Path) -> None:
    typed = "x: torch.Tensor, device: torch.device, size: tuple[int, ...]"
    (finding,) = _fixes(tmp_path, parameters="device, size: tuple[int, ...]", caller=typed)
    assert finding.fix is not None


@pytest.mark.parametrize("decorators", ["@lru_cache(maxsize=None)", "@functools.lru_cache", "@functools.cache"])
def test_a_functools_cache_gets_the_marker_under_it_as_an_unsafe_fix(decorators: str, tmp_path: Path) -> None:
    (finding,) = _fixes(tmp_path, decorators=decorators)
    assert finding.fix is not None and finding.fix.applicability == "unsafe"
    assert [e.content for e in finding.fix.edits] == ["@torch.compiler.assume_constant_result\n"]
    assert "not tensors" in finding.fix.message


@pytest.mark.parametrize(("why", "parts"), [
    ("not cached", {"decorators": ""}),
    ("a cache of another library", {"decorators": "@cachetools.cached({})"}),
    ("a second decorator", {"decorators": "@lru_cache(maxsize=None)\n@torch.no_grad()"}),
    ("a tensor parameter", {"parameters": "device, size: torch.Tensor"}),
    ("a bare container parameter, which may hold tensors", {"parameters": "device, size: tuple",
                                                            "caller": "x: torch.Tensor, device: torch.device, size: tuple"}),
    ("no return annotation", {"returns": ""}),
    ("a tensor argument at a call", {"call": "load_table(x.device, x)"}),
    ("a local of unknown type at a call", {"call": "load_table(x.device, len(x))"}),
    ("an unannotated parameter passed on", {"caller": "x, device, size"}),
    ("star arguments", {"call": "load_table(*(x.device, size))"}),
    ("handed on as a value", {"call": "load_table(x.device, size) * len(list(map(load_table, [1])))"}),
    # An annotated parameter rebound to a tensor: the tensor's value would be baked with no guard
    # (measured: a second input compiled the first one's result).
    ("a parameter rebound by a comprehension", {"call": "[load_table(x.device, size) for size in x.unbind(0)][0]"}),
    ("a parameter rebound by a walrus", {"call": "((size := x) * load_table(x.device, size))"}),
])
def test_no_fix_without_proof_the_loader_is_called_with_python_values(
    why: str, parts: dict[str, str], tmp_path: Path
) -> None:
    findings = _fixes(tmp_path, **parts)
    assert findings, why  # still reported
    assert all(f.fix is None for f in findings), why


def test_no_fix_for_a_method_or_an_entry_point(tmp_path: Path) -> None:
    method = textwrap.dedent('''
        import functools
        import numpy as np
        import torch


        class Front(torch.nn.Module):
            @functools.lru_cache(maxsize=None)
            def table(self, size: int) -> torch.Tensor:
                return torch.from_numpy(np.load("t.npy"))

            def forward(self, x):
                return x * self.table(3)
    ''')
    path = tmp_path / "front.py"
    path.write_text(method, encoding="utf-8")
    findings = [f for f in attach_fixes(check([str(path)], Config()), Config()).findings if f.code == "GM604"]
    assert findings and all(f.fix is None for f in findings)

    path = tmp_path / "loader.py"
    path.write_text(LOADER.format(decorators="@lru_cache(maxsize=None)", parameters="device, size: int",
                                  returns=" -> torch.Tensor", call="load_table(x.device, size)",
                                  caller="x: torch.Tensor, device: torch.device, size: int")
                    + "\nentry = torch.compile(load_table)\n", encoding="utf-8")
    findings = [f for f in attach_fixes(check([str(path)], Config()), Config()).findings if f.code == "GM604"]
    assert findings and all(f.fix is None for f in findings)


def test_a_marked_loader_is_not_traced_so_nothing_is_reported_again(tmp_path: Path) -> None:
    marked = "@lru_cache(maxsize=None)\n@torch.compiler.assume_constant_result"
    assert _fixes(tmp_path) and not _fixes(tmp_path, decorators=marked)
