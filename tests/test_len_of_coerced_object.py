"""GM652 through a coercing helper (`if isinstance(w, str): return pywt.Wavelet(w)` / `return w`,
ptwt's `_as_wavelet`): `len()` of what it returns breaks with GB6012 whether the caller passes a
name (the helper builds the Cython class) or a Wavelet built outside, measured with Dynamo beside
what graphmend reports; a tuple passed through, from a local or an attribute, traces and is not
reported, nor is a helper that passes through a parameter it never coerces."""

from __future__ import annotations

from pathlib import Path

from tests.sample_modules import dynamo_breaks, graphmend_findings, line_of

HEAD = """import pywt
import torch

WAVELET = pywt.Wavelet("db2")


def as_wavelet(wavelet):
    if isinstance(wavelet, str):
        return pywt.Wavelet(wavelet)
    else:
        return wavelet


def or_default(wavelet, default):
    if isinstance(wavelet, str):
        return pywt.Wavelet(wavelet)
    return default


def filter_count(wavelet):
    return len(as_wavelet(wavelet))


"""


def _len_findings(source: str, tmp_path: Path) -> set[tuple[int, str]]:
    return {(line, gb) for line, code, gb in graphmend_findings(source, tmp_path) if code == "GM652"}


def test_a_name_coerced_to_a_wavelet_breaks_at_len(tmp_path: Path) -> None:
    source = HEAD + """class Model(torch.nn.Module):
    def forward(self, x):
        x = x * 2
        size = len(as_wavelet("db2"))
        return x + size
"""
    line = line_of(source, 'size = len(as_wavelet("db2"))')
    assert (line, "GB6012") in dynamo_breaks(source, tmp_path)
    assert _len_findings(source, tmp_path) == {(line, "GB6012")}


def test_a_wavelet_passed_through_breaks_at_len(tmp_path: Path) -> None:
    source = HEAD + """class Model(torch.nn.Module):
    def forward(self, x):
        x = x * 2
        return x + filter_count(WAVELET)
"""
    line = line_of(source, "return len(as_wavelet(wavelet))")
    assert dynamo_breaks(source, tmp_path) == {(line, "GB6012")}
    assert _len_findings(source, tmp_path) == {(line, "GB6012")}


def test_a_tuple_passed_through_or_an_uncoerced_parameter_traces(tmp_path: Path) -> None:
    source = HEAD + """class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.bank = ([1.0, 2.0], [3.0, 4.0])

    def forward(self, x):
        x = x * 2
        local = ([1.0], [2.0])
        size = len(as_wavelet(self.bank)) + len(as_wavelet(local))
        size += len(or_default(WAVELET, [1, 2]))
        return x + size
"""
    assert dynamo_breaks(source, tmp_path) == set()
    assert _len_findings(source, tmp_path) == set()
