"""The census explains one call per (target, input signature). The signature must tell apart what
sends Dynamo down other code: constant arguments (found on the wild benchmark: `sdeint(...,
method="milstein")` was taken for the `method="euler"` call already explained, so the Milstein
solver's breaks went unrecorded) and a module's train/eval mode (gpytorch's ExactGP predicts in eval
mode, through code the training call never runs)."""

from __future__ import annotations

import enum

import pytest

torch = pytest.importorskip("torch")

from graphmend_bot.census.recorder import signature  # noqa: E402


class Mode(enum.Enum):
    FAST = 1
    EXACT = 2


def test_constants_are_part_of_the_signature() -> None:
    x = torch.ones(2, 3)
    assert signature({"method": "euler"}) != signature({"method": "milstein"})
    assert signature((x, 0.1)) != signature((x, 0.2))
    assert signature((x, 1)) != signature((x, 2))
    assert signature(Mode.FAST) != signature(Mode.EXACT)
    assert signature(True) != signature(1)  # Dynamo guards on the type too
    assert signature(float("nan")) == signature(float("nan"))  # a NaN does not make every call new
    # what Dynamo does not specialise on still shares one explain
    assert signature((torch.zeros(2, 3), "euler")) == signature((torch.ones(2, 3), "euler"))


def test_a_modules_train_or_eval_mode_is_part_of_the_signature() -> None:
    model = torch.nn.Linear(2, 2)
    training = signature(model)
    assert signature(model.eval()) != training
    assert signature(model.train()) == training
