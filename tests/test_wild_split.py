"""The wild corpus's development/test split (benchmarks/wild/split.py) is fixed and roughly balanced.

The split decides which libraries detection may be tuned against; if it moved, a library tuned
against could land in the test half and the test figures would no longer be figures on unseen code.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks" / "wild"))

import hf_corpus
from split import DEV, SALT, TEST, corpus_names, half

# Halves as first assigned (2026-11-28): a change of the rule or the salt moves some of these
PINNED = {
    "kornia": DEV, "stable_baselines3": DEV, "torchmetrics": DEV, "vector_quantize_pytorch": DEV,
    "torchdiffeq": TEST, "torchsde": TEST, "gpytorch": TEST, "torch_geometric": TEST,
    "transformers-bart": DEV, "transformers-whisper": DEV, "transformers-t5": TEST, "transformers-llama": TEST,
}  # fmt: skip


def test_the_split_is_the_documented_hash() -> None:
    for name in corpus_names():
        first_byte = hashlib.sha256((SALT + name).encode("utf-8")).digest()[0]
        assert half(name) == (DEV if first_byte % 2 == 0 else TEST), name


def test_the_split_is_stable() -> None:
    assert {name: half(name) for name in PINNED} == PINNED


def test_the_split_is_roughly_balanced_in_each_group() -> None:
    families = hf_corpus.unit_names()
    pypi = [name for name in corpus_names() if name not in families]
    assert len(pypi) >= 40 and len(families) >= 40
    for group in (pypi, families):
        share = sum(half(name) == DEV for name in group) / len(group)
        assert 0.4 <= share <= 0.6, (share, len(group))


def test_transformers_classes_are_split_by_family() -> None:
    """A family's classes share a half: BartModel and BartForConditionalGeneration are one unit."""
    assert sum(len(classes) for classes in hf_corpus.MODELS.values()) >= 60
    assert all(hf_corpus.is_unit(name) for name in hf_corpus.unit_names())
    assert not hf_corpus.is_unit("transformers-no_such_family") and not hf_corpus.is_unit("kornia")
