"""`spanload run`: a load test without the web UI (for CI). Owned by the load engine."""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--preset", help="a preset name (see `spanload run --list-presets`)")


def main(args: argparse.Namespace) -> int:
    print("spanload run: the load engine is not built yet.")
    return 1
