"""Why some findings on executed lines of torchio never meet Dynamo: measured on the installed torch.

`Transform.__call__` runs `subject = copy.deepcopy(subject)` in traced code, and Dynamo's copy of a
`dict` subclass (torchio's `Subject`) comes back empty: no break, a wrong result. The transform then
loops over no images, so `Affine.get_default_pad_value`'s `.item()` (random_affine.py:394),
`apply_affine_transform`'s `float(...)` (:451) and `Noise`'s `_use_seed` (transform.py:586) run in
the eager reference run and never under Dynamo. `.item()` and `_use_seed`'s `get_rng_state()` break
where their public methods are compiled themselves (roots of the library scope; measured on
torchio), so graphmend keeps them. This pins the torch behaviour that explains the benchmark's
count, so that a torch that copies correctly is noticed.
"""

from __future__ import annotations

import copy

import pytest

torch = pytest.importorskip("torch")


class Box(dict):
    """A dict subclass, as torchio's Subject."""


def _copied(box: dict[str, object], x: object) -> tuple[dict[str, object], object]:
    return copy.deepcopy(box), x + 1  # type: ignore[operator]


def test_a_traced_deepcopy_of_a_dict_subclass_is_empty_and_of_a_dict_is_not() -> None:
    torch._dynamo.reset()
    compiled = torch.compile(_copied, backend="eager")
    box = Box(image=torch.ones(2), name="a")
    assert dict(_copied(box, torch.ones(1))[0]).keys() == {"image", "name"}  # eagerly
    assert dict(compiled(box, torch.ones(1))[0]) == {}  # traced: the items are lost, with no break
    torch._dynamo.reset()
    plain = {"image": torch.ones(2), "name": "a"}
    assert compiled(plain, torch.ones(1))[0].keys() == plain.keys()
    torch._dynamo.reset()
