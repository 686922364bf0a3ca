"""Methods of `threading` / `queue` objects built outside the compiled region (in `__init__`, at module
level) and called from traced code; near misses: `Event.is_set()`, an object built in the frame."""

import queue
import threading

import torch
from torch import nn

_LOCK = threading.Lock()
_RLOCK = threading.RLock()


class ProbeHeldLockAcquire(nn.Module):
    def __init__(self):
        super().__init__()
        self._lock = threading.Lock()

    def forward(self, x):
        x = x * 2
        self._lock.acquire()
        x = x + 1
        self._lock.release()
        return x


class ProbeHeldRLockAcquire(nn.Module):
    def __init__(self):
        super().__init__()
        self._lock = threading.RLock()

    def forward(self, x):
        x = x * 2
        self._lock.acquire()
        x = x + 1
        self._lock.release()
        return x


class ProbeGlobalLockAcquire(nn.Module):
    def forward(self, x):
        x = x * 2
        _LOCK.acquire()
        x = x + 1
        _LOCK.release()
        return x


class ProbeGlobalRLockLocked(nn.Module):
    def forward(self, x):
        x = x * 2
        if _LOCK.locked():
            x = x + 1
        return x


class ProbeHeldEventSet(nn.Module):
    def __init__(self):
        super().__init__()
        self._done = threading.Event()

    def forward(self, x):
        x = x * 2
        self._done.set()
        return x + 1


class ProbeHeldEventClear(nn.Module):
    def __init__(self):
        super().__init__()
        self._done = threading.Event()

    def forward(self, x):
        x = x * 2
        self._done.clear()
        return x + 1


class ProbeNearMissEventIsSet(nn.Module):
    def __init__(self):
        super().__init__()
        self._done = threading.Event()

    def forward(self, x):
        x = x * 2
        if self._done.is_set():
            x = x + 1
        return x + 1


class ProbeHeldQueuePut(nn.Module):
    def __init__(self):
        super().__init__()
        self._out = queue.Queue()

    def forward(self, x):
        x = x * 2
        self._out.put(1)
        return x + 1


class ProbeHeldQueueEmpty(nn.Module):
    def __init__(self):
        super().__init__()
        self._out = queue.Queue()

    def forward(self, x):
        x = x * 2
        if self._out.empty():
            x = x + 1
        return x + 1


class ProbeHeldQueueQsize(nn.Module):
    def __init__(self):
        super().__init__()
        self._out = queue.SimpleQueue()

    def forward(self, x):
        x = x * 2
        self._out.put(1)
        return x + 1


class ProbeHeldSemaphore(nn.Module):
    def __init__(self):
        super().__init__()
        self._slots = threading.Semaphore(2)

    def forward(self, x):
        x = x * 2
        self._slots.acquire()
        x = x + 1
        self._slots.release()
        return x


class ProbeHeldCondition(nn.Module):
    def __init__(self):
        super().__init__()
        self._cond = threading.Condition()

    def forward(self, x):
        x = x * 2
        self._cond.acquire()
        x = x + 1
        self._cond.release()
        return x


class ProbeLocalLockAcquire(nn.Module):
    def forward(self, x):
        x = x * 2
        lock = threading.Lock()
        lock.acquire()
        x = x + 1
        lock.release()
        return x


class ProbeLocalEventSet(nn.Module):
    def forward(self, x):
        x = x * 2
        done = threading.Event()
        done.set()
        return x + 1


class ProbeLocalQueuePut(nn.Module):
    def forward(self, x):
        x = x * 2
        out = queue.Queue()
        out.put(1)
        return x + 1


def inputs():
    return (torch.randn(4),)
