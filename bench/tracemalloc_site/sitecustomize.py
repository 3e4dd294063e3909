"""Loaded by every Python process started with this directory on PYTHONPATH (bench/soak.py's
``--tracemalloc DIR``): in `spanload serve` only, a daemon thread starts tracing allocations (8
frames) once soak.py creates ``$SPANLOAD_TRACEMALLOC_DIR/start`` (when its run is running: tracing
serve's imports slowed its start-up tenfold, and what grows later is what counts), then dumps a
snapshot to ``serve-<seconds>.snap`` there every ``$SPANLOAD_TRACEMALLOC_EVERY_S`` seconds, so that
soak.py can diff the first steady one with the last.

With each snapshot it appends a line to ``heap.tsv``: what the C allocator holds besides, to tell a
Python leak from memory outside the traced heap: glibc's ``mallinfo2`` (bytes in use and free but
kept in its arenas, and in mmapped blocks) and SQLite's own allocations (``sqlite3_memory_used``:
its page caches and statements)."""

import ctypes
import os
import sys
import threading
import time
import tracemalloc
from pathlib import Path

_DIR = os.environ.get("SPANLOAD_TRACEMALLOC_DIR")
_argv = getattr(sys, "orig_argv", sys.argv)
HEAP_COLUMNS = ("t_s", "traced", "arena", "mmapped", "in_use", "free", "sqlite")


MALLINFO2 = ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")


class _Mallinfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in MALLINFO2]


def _heap_line(t: float) -> str:
    """One ``heap.tsv`` line: seconds since serve started and the figures of HEAP_COLUMNS in bytes
    (-1 where this libc or SQLite does not say)."""
    values = [tracemalloc.get_traced_memory()[0], -1, -1, -1, -1, -1]
    try:
        libc = ctypes.CDLL(None)
        libc.mallinfo2.restype = _Mallinfo2
        info = libc.mallinfo2()
        values[1:5] = [info.arena, info.hblkhd, info.uordblks, info.fordblks]
    except (OSError, AttributeError):
        pass
    try:
        sqlite = ctypes.CDLL("libsqlite3.so.0")
        sqlite.sqlite3_memory_used.restype = ctypes.c_int64
        values[5] = sqlite.sqlite3_memory_used()
    except (OSError, AttributeError):
        pass
    return "\t".join([f"{t:.0f}", *map(str, values)]) + "\n"


if _DIR and len(_argv) >= 2 and _argv[-1] == "serve" and _argv[-2].endswith("spanload"):
    _every = float(os.environ.get("SPANLOAD_TRACEMALLOC_EVERY_S", "60"))
    _began = time.monotonic()

    def _dump() -> None:
        while not (Path(_DIR) / "start").exists():
            time.sleep(1.0)
        tracemalloc.start(8)
        with (Path(_DIR) / "heap.tsv").open("w") as heap:
            heap.write("\t".join(HEAP_COLUMNS) + "\n")
            while True:
                time.sleep(_every)
                t = time.monotonic() - _began
                path = Path(_DIR) / f"serve-{t:05.0f}.snap"
                tracemalloc.take_snapshot().dump(str(path.with_suffix(".tmp")))
                path.with_suffix(".tmp").rename(path)
                heap.write(_heap_line(t))
                heap.flush()

    threading.Thread(target=_dump, name="tracemalloc-dump", daemon=True).start()
