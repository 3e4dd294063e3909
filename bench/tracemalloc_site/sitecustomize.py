"""Loaded by every Python process started with this directory on PYTHONPATH (bench/soak.py's
``--tracemalloc DIR``): in `spanload serve` only, a daemon thread starts tracing allocations (8
frames) once soak.py creates ``$SPANLOAD_TRACEMALLOC_DIR/start`` (when its run is running: tracing
serve's imports slowed its start-up tenfold, and what grows later is what counts), then dumps a
snapshot to ``serve-<seconds>.snap`` there every ``$SPANLOAD_TRACEMALLOC_EVERY_S`` seconds, so that
soak.py can diff the first steady one with the last."""

import os
import sys
import threading
import time
import tracemalloc
from pathlib import Path

_DIR = os.environ.get("SPANLOAD_TRACEMALLOC_DIR")
_argv = getattr(sys, "orig_argv", sys.argv)
if _DIR and len(_argv) >= 2 and _argv[-1] == "serve" and _argv[-2].endswith("spanload"):
    _every = float(os.environ.get("SPANLOAD_TRACEMALLOC_EVERY_S", "60"))
    _began = time.monotonic()

    def _dump() -> None:
        while not (Path(_DIR) / "start").exists():
            time.sleep(1.0)
        tracemalloc.start(8)
        while True:
            time.sleep(_every)
            path = Path(_DIR) / f"serve-{time.monotonic() - _began:05.0f}.snap"
            tracemalloc.take_snapshot().dump(str(path.with_suffix(".tmp")))
            path.with_suffix(".tmp").rename(path)

    threading.Thread(target=_dump, name="tracemalloc-dump", daemon=True).start()
