"""The command line run in-process: its parser, error handling and exit codes, without a new
interpreter's seconds of imports."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
from pathlib import Path

from spanload.cli import main
from spanload.model.settings import get_settings


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
