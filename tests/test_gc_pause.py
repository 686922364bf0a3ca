"""A pool worker's collector runs rarely (gc_pause.worker_start) but still frees cyclic garbage."""

import subprocess
import sys
import textwrap


def test_a_worker_still_collects_cycles_left_behind():
    # In a fresh interpreter, so this process keeps its own collector settings.
    script = textwrap.dedent(
        """
        import gc, weakref
        from graphmend_bot.gc_pause import WORKER_YOUNG_THRESHOLD, collector_paused, worker_start

        class Node:
            pass

        gc.disable()  # as the parent forks its workers
        worker_start()
        assert gc.isenabled() and gc.get_threshold()[0] == WORKER_YOUNG_THRESHOLD
        first = None
        for _ in range(3 * WORKER_YOUNG_THRESHOLD):  # cycles nothing refers to, as a leaky file would leave
            with collector_paused():
                node = Node()
                node.self = node
            first = first or weakref.ref(node)
            del node
        assert first() is None, "the first cycle was never collected"
        print("collected")
        """
    )
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "collected"
