"""The Python worker runtime: updater, watcher, reader, pacing, the worker process."""
