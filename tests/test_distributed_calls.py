"""GM690's table of collectives is the installed torch's: the functions Dynamo rewrites
(`traceable_collective_remaps`), each with the place of `async_op` among its parameters."""

from __future__ import annotations

import inspect

import pytest

from graphmend_bot.rules.gm690_distributed_call_in_traced_code import COLLECTIVES, POINT_TO_POINT_CALLS

torch = pytest.importorskip("torch")


def test_collectives_and_their_async_op_place_are_torchs() -> None:
    if not torch.distributed.is_available():
        pytest.skip("this torch is built without torch.distributed")
    from torch.distributed._functional_collectives import traceable_collective_remaps

    remapped = {fn.__name__: fn for fn in traceable_collective_remaps}
    places = {
        name: list(inspect.signature(fn).parameters).index("async_op")
        for name, fn in remapped.items()
        if "async_op" in inspect.signature(fn).parameters
    }
    assert places == COLLECTIVES
    assert set(remapped) - set(places) == set(POINT_TO_POINT_CALLS) - {"P2POp"}
    assert all(getattr(torch.distributed, name) is remapped[name] for name in remapped)
