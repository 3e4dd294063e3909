"""The command line: argument parsing (flags generated from the run config), the headless run and
its rendering. The only package that prints; everything else logs (``logging.getLogger(__name__)``).
A worker process writes its protocol on stdout, which is a wire, not printing."""

from spanload.cli.commands import main

__all__ = ["main"]
