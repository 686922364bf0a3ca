"""A map over files that a process pool and this process compute together.

The parent of a pool used to wait while its workers summarised, then unpickle every summary they
sent back: on transformers' models/ the parent's unpickling and the workers' pickling were a tenth
of the check's CPU, spent only to move summaries between processes. Here the parent is one of the
workers: it takes the smallest files itself (what it computes needs no pickling either way), the
pool takes chunks of the largest ones, each worker holding one chunk queued behind the one it runs
so it never waits for this process to hand out more. Both ends meet in the middle, so neither
side is left with a big file while the other has nothing to do.
"""

from __future__ import annotations

import multiprocessing.pool
import threading
from collections import deque
from collections.abc import Callable, Sequence
from functools import partial
from typing import Generic, TypeVar, cast

S = TypeVar("S")
T = TypeVar("T")

# Chunks a worker has queued: the one it runs and the next, so that it never waits for more.
CHUNKS_PER_WORKER = 2
# A chunk is at most this fraction of each process's share of the work left.
CHUNKS_PER_SHARE = 8


def apply_each(function: Callable[[S], T], items: list[S]) -> list[T]:
    """A worker's chunk (module level: the pool pickles it by name)."""
    return [function(item) for item in items]


class _Shared(Generic[S, T]):
    """The work left, taken by the pool from the large end and by this process from the small one."""

    def __init__(
        self,
        function: Callable[[S], T],
        items: Sequence[S],
        largest_first: list[int],
        pool: multiprocessing.pool.Pool,
        workers: int,
    ) -> None:
        self.function, self.items, self.pool = function, items, pool
        self.shares = (workers + 1) * CHUNKS_PER_SHARE
        self.pending = deque(largest_first)
        self.results: list[T | None] = [None] * len(items)
        self.submitted: list[multiprocessing.pool.AsyncResult[list[T]]] = []
        # The pool's result thread submits the next chunk as one comes back, while this process
        # takes from the other end.
        self.lock = threading.Lock()
        self.stopped = False  # the map failed or was interrupted: the pool is about to be ended

    def submit(self) -> None:
        with self.lock:
            if self.stopped:
                return  # an ended pool refuses work, and the refusal would kill its result thread
            # Chunks shrink with the work left (guided scheduling): few round trips while there is
            # plenty, and at the end a worker's queue is a file or two, not a sixteenth of the tree.
            size = max(1, len(self.pending) // self.shares)
            taken = [self.pending.popleft() for _ in range(min(size, len(self.pending)))]
            if taken:
                self.submitted.append(
                    self.pool.apply_async(
                        apply_each,
                        (self.function, [self.items[i] for i in taken]),
                        callback=partial(self._returned, taken),
                    )
                )

    def _returned(self, taken: list[int], outcomes: list[T]) -> None:
        for index, outcome in zip(taken, outcomes, strict=True):
            self.results[index] = outcome
        self.submit()

    def own_next(self) -> int | None:
        with self.lock:
            return self.pending.pop() if self.pending else None

    def wait(self) -> None:
        """Until every chunk submitted is back (a worker's exception is raised here)."""
        while True:
            with self.lock:
                submitted = list(self.submitted)
            for result in submitted:
                result.get()  # a chunk's callback, and the submission it makes, run before this returns
            with self.lock:
                if len(self.submitted) == len(submitted):
                    return


def shared_map(
    function: Callable[[S], T],
    items: Sequence[S],
    sizes: Sequence[int],
    pool: multiprocessing.pool.Pool,
    workers: int,
) -> list[T]:
    """`[function(x) for x in items]`, computed by `pool`'s `workers` and this process at once;
    `sizes`: each item's cost, roughly (a file's size)."""
    largest_first = sorted(range(len(items)), key=lambda index: -sizes[index])
    shared = _Shared(function, items, largest_first, pool, workers)
    for _ in range(workers * CHUNKS_PER_WORKER):
        shared.submit()
    try:
        while (index := shared.own_next()) is not None:
            shared.results[index] = function(items[index])
        shared.wait()
    except BaseException:  # Ctrl-C included: the caller ends the pool, which must be handed no more
        with shared.lock:
            shared.stopped = True
        raise
    return cast(list[T], shared.results)
