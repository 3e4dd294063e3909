"""The command line: argument parsing, the headless run and its rendering. The only package that prints."""

from spanload.cli.commands import main

__all__ = ["main"]
