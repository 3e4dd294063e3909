"""The command line run in-process: its parser, error handling and exit codes, without a new
interpreter's seconds of imports."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import uvicorn

from spanload.cli import main
from spanload.main import create_app
from spanload.model.settings import Settings, get_settings
from tests.helpers import free_port, wait_for


def spanload(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The command line in-process (its parser, error handling and exit codes, without a new
    interpreter's seconds of imports), on the store of ``data_dir``."""
    out, err = io.StringIO(), io.StringIO()
    saved = os.environ.get("SPANLOAD_DATA_DIR")
    os.environ["SPANLOAD_DATA_DIR"] = str(data_dir)
    get_settings.cache_clear()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as exit_:
                code = int(exit_.code or 0)
    finally:
        if saved is None:
            os.environ.pop("SPANLOAD_DATA_DIR")
        else:
            os.environ["SPANLOAD_DATA_DIR"] = saved
        get_settings.cache_clear()
    return subprocess.CompletedProcess(["spanload", *args], code, out.getvalue(), err.getvalue())


@contextlib.contextmanager
def serving(settings: Settings) -> Iterator[str]:
    """The app as `spanload serve` builds it, served by uvicorn on a free 127.0.0.1 port in a thread
    of this process (no interpreter start); yields its URL and stops it after."""
    config = uvicorn.Config(create_app(settings), host="127.0.0.1", port=free_port(), log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="test-serve", daemon=True)
    thread.start()
    try:
        wait_for(lambda: server.started or None, 60, "uvicorn to start")
        yield f"http://127.0.0.1:{config.port}"
    finally:
        server.should_exit = True
        thread.join(30)
        assert not thread.is_alive(), "the in-thread serve did not stop"
