"""`spanload run` refuses bad flags with exit code 2 and one sentence (no server needed)."""

from __future__ import annotations

import subprocess

import pytest

from tests.helpers import VENV_BIN


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(VENV_BIN / "spanload"), "run", *args], capture_output=True, text=True, timeout=60, check=False
    )


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--tps", "abc"], "--tps"),
        (["--mode", "bulk"], "--mode"),
        (["--duration", "soon"], "duration"),
        (["--watchers", "2", "--shard-filter", "none"], "watcher.shard_filter"),
        (["--tps", "0"], "updater.transactions_per_second"),
        (["--query", "leaderboard"], "reader.query"),
        (["--preset", "nope"], "unknown preset 'nope'"),
        (["--threshold", "updater.p99_ms"], "threshold"),
        (["--threshold", "nonsense.p99_ms<3"], "is not an operation"),
    ],
)
def test_bad_flags_exit_2_with_a_sentence(args: list[str], says: str) -> None:
    result = _run(*args)
    assert result.returncode == 2, result.stderr
    assert says in result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_list_presets_prints_every_preset() -> None:
    result = _run("--list-presets")
    assert result.returncode == 0
    names = [line.split()[0] for line in result.stdout.splitlines()]
    for name in ("very-light", "light-no-hint", "light-not-null", "very-high-8", "2pc-batch-insert"):
        assert name in names
