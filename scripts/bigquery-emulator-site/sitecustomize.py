"""Imported at start-up by the BigQuery emulator's Python: the emulator
harness puts this directory on its PYTHONPATH (docs/emulators.md).

bqemulator serves each open AppendRows connection on a thread of asyncio's
default executor, whose size Python derives from the CPU count (six threads
on two cores), and a connection whose client was killed keeps its thread for
good. Crash tests kill writers with open connections, and a test may open
more than six at once: both would hang the emulator. Only the default size
of thread pools changes here; threads are still made on demand.
"""

import concurrent.futures.thread as _thread

_DEFAULT_MAX_WORKERS = 256
_original_init = _thread.ThreadPoolExecutor.__init__


def _init(self, max_workers=None, *args, **kwargs):
    if max_workers is None:
        max_workers = _DEFAULT_MAX_WORKERS
    _original_init(self, max_workers, *args, **kwargs)


_thread.ThreadPoolExecutor.__init__ = _init
