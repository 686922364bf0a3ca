"""Breaks after a first break are measured on their own source lines (census/dynamo.py, true_resume_lines).

Dynamo's line table for a resume function repeats the line delta of an instruction longer than 8
code units (3.11's LOAD_METHOD), so without the correction a break after a multi-line
`(...).view(3)` was logged two lines further down, on a statement that does not break."""

from __future__ import annotations

from pathlib import Path

from torch._dynamo import bytecode_transformation

from graphmend_bot.census.dynamo import graph_break_log
from tests.sample_modules import agreed_break_lines, dynamo_breaks, line_of

AFTER_MULTILINE = '''
import torch

class Model(torch.nn.Module):
    def forward(self, x):
        first = x.sum().item()
        z = (
            x
            + 1
        ).view(3)
        second = z.sum().item()
        for _ in range(2):
            z = (
                z
                + 1
            ).view(3)
            third = z.sum().item()
        return z * first * second * third
'''

# torch-kmeans' k-means++ loop: the frame resumed after the first multinomial breaks again, in the
# loop, at the multinomial given the generator (not at the gather that follows it).
GENERATOR_IN_LOOP = '''
import torch

class Model(torch.nn.Module):
    def forward(self, x):
        gen = torch.Generator(device=x.device)
        gen.manual_seed(0)
        x = x.view(1, 3)
        idx = torch.multinomial(x.abs() + 1, 2, generator=gen)
        centers = torch.zeros(1, 3)
        for nc in range(1, 3):
            pot = (
                x.abs()
                + nc
            ).view(1, 3)
            idx = torch.multinomial(pot, 1, generator=gen).view(1, 1)
            centers[:, nc] = x.gather(
                index=idx, dim=1
            ).view(-1)
        return centers
'''


def test_break_after_a_multiline_statement_is_on_its_own_line(tmp_path: Path) -> None:
    lines = agreed_break_lines(AFTER_MULTILINE, tmp_path)
    item_lines = {i for i, line in enumerate(AFTER_MULTILINE.splitlines(), 1) if ".item()" in line}
    assert lines == item_lines  # the three `.item()`, not the lines two further down


def test_generator_break_in_a_resumed_loop_is_at_the_draw(tmp_path: Path) -> None:
    lines = agreed_break_lines(GENERATOR_IN_LOOP, tmp_path)
    assert line_of(GENERATOR_IN_LOOP, "multinomial(pot") in lines
    assert line_of(GENERATOR_IN_LOOP, "centers[:, nc] =") not in lines
    assert line_of(GENERATOR_IN_LOOP, "index=idx") not in lines


def test_writer_restored_after_measuring(tmp_path: Path) -> None:
    writer = bytecode_transformation.linetable_311_writer
    with graph_break_log():
        assert bytecode_transformation.linetable_311_writer is not writer
    assert bytecode_transformation.linetable_311_writer is writer
    assert dynamo_breaks(AFTER_MULTILINE, tmp_path)  # measuring leaves it restored too
    assert bytecode_transformation.linetable_311_writer is writer
