"""Pause Python's cyclic garbage collector around allocation-heavy work that makes no cycles.

Parsing a module and summarising it allocates hundreds of thousands of AST nodes and kinds that
reference counting frees on its own (a tree of 100 transformers files leaves no cyclic garbage),
yet every 700 allocations the collector walks the young objects, and the still-alive tree
is promoted and walked again by the full collections it triggers: a fifth of `check`'s CPU time
on transformers' models/. Pausing per unit of work (one file, one scope solve) and restoring the
previous state keeps memory bounded even if some input did make cycles: they are collected as
soon as the unit ends.

A whole `check` is one such unit in the parent process (engine.check): the summaries it holds
are what the collections after a shorter pause walked, twice, finding nothing (a third of the
parent's serial time). Worker processes forked meanwhile start with the collector on again and
pause it per file; the parent's own objects are frozen for the fork, so their collections never
walk (and copy-on-write) what they inherited.
"""

from __future__ import annotations

import gc
import signal
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Run the block with the cyclic collector off; nested uses leave it as the outermost found it."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@contextmanager
def frozen_for_fork() -> Iterator[None]:
    """Fork worker processes in this block: what is alive now is hidden from their collectors.

    Python's recipe for fork without exec (gc.freeze's documentation): the children's collections
    then never walk, nor touch the pages of, the parent's objects. The parent thaws them on exit,
    so its own collector is as before.
    """
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


# A worker's youngest generation is collected once this many more tracked objects are alive than
# at the last collection (Python's default: 700). Each file is a paused unit, and re-enabling after
# it made the next allocation walk the summary just built, which holds no cycles: about 0.3 ms a
# file, 0.2 s of CPU on transformers' models/, for nothing. Freed objects count back down, so only
# what stays alive (held results, cyclic garbage) moves the count, and cycles still get collected.
WORKER_YOUNG_THRESHOLD = 100_000


def worker_start() -> None:
    """A pool worker's first act: the collector on, whatever pause the parent forked it in
    (each file is then its own paused unit, see summarize_source)."""
    # Ctrl-C reaches the whole process group: the parent says "Interrupted." once and ends the pool;
    # a worker that raised KeyboardInterrupt too would print a traceback per process.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    gc.enable()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(WORKER_YOUNG_THRESHOLD, middle, old)
