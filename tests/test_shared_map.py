"""shared_map: the pool and the parent process compute one map together, each item once, in order."""

import multiprocessing
import os

import pytest

from graphmend_bot.engine import PARALLEL_THRESHOLD, _pool
from graphmend_bot.shared_map import shared_map

PARENT = os.getpid()


def _square_where(item: int) -> tuple[int, int]:
    return item * item, os.getpid()


def _fail_on_large(item: int) -> int:
    if item >= 990 and os.getpid() != PARENT:
        raise ValueError(f"worker failed on {item}")
    return item


def _interrupted_in_the_parent(item: int) -> int:
    if os.getpid() == PARENT and item == 0:
        raise KeyboardInterrupt
    return item


def test_each_item_once_in_order_shared_by_parent_and_workers():
    items = list(range(1000))
    sizes = [(item * 7919) % 1000 for item in items]  # an order unlike the items'
    with _pool(len(items), 3) as pool:
        outcomes = shared_map(_square_where, items, sizes, pool, pool.workers)
    assert [value for value, _ in outcomes] == [item * item for item in items]
    where = {pid for _, pid in outcomes}
    assert PARENT in where  # the parent took its share
    assert len(where - {PARENT}) >= 1  # and the pool its own
    largest = max(range(len(items)), key=lambda index: sizes[index])
    assert outcomes[largest][1] != PARENT  # the pool starts from the largest


def test_a_workers_exception_reaches_the_caller():
    items = list(range(1000))
    with _pool(len(items), 2) as pool, pytest.raises(ValueError, match="worker failed"):
        shared_map(_fail_on_large, items, items, pool, pool.workers)


def test_ctrl_c_in_the_parents_share_leaves_no_worker_behind():
    items = list(range(PARALLEL_THRESHOLD * 4))
    with pytest.raises(KeyboardInterrupt), _pool(len(items), 3) as pool:
        workers = multiprocessing.active_children()
        assert len(workers) == 2
        # The parent takes the smallest first: item 0 (size 0) is its first.
        shared_map(_interrupted_in_the_parent, items, items, pool, pool.workers)
    for worker in workers:
        worker.join(timeout=10)
        assert not worker.is_alive()
