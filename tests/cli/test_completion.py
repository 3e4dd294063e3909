"""`spanload completion bash|zsh` prints a completion script generated from the parser itself: it
names every subcommand and the flags generated from the config fields, bash accepts it, and
sourcing it completes subcommands, flags and file paths."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from spanload.cli.commands import build_parser, main

COMMANDS = ("serve", "local-spanner", "openapi", "run", "validate", "workloads", "runs", "report", "experiment")


def _complete(script: Path, *words: str) -> list[str]:
    """What bash offers for the last of ``words`` after sourcing ``script``."""
    line = " ".join(words)
    program = (
        f'source "$1"; COMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; COMP_LINE="{line}"; '
        'COMP_POINT=${#COMP_LINE}; _shtab_spanload; printf "%s\\n" "${COMPREPLY[@]}"'
    )
    done = subprocess.run(["bash", "-c", program, "bash", str(script)], capture_output=True, text=True, check=True)
    return done.stdout.split()


def test_the_bash_script_names_subcommands_and_generated_flags_and_completes_them(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["completion", "bash"]) == 0
    text = capsys.readouterr().out
    subcommands = next(line for line in text.splitlines() if line.startswith("_shtab_spanload_subparsers="))
    assert subcommands.partition("=")[2].strip("()").split() == [*COMMANDS, "completion"]
    for flag in ("--tps", "--workload-file", "--interface", "--threshold"):
        assert f"{flag} " in text or f"'{flag}'" in text, flag
    script = tmp_path / "spanload.bash"
    script.write_text(text)
    syntax = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
    assert syntax.returncode == 0, syntax.stderr

    assert _complete(script, "spanload", "ru") == ["run", "runs"]
    assert "--workload-file" in _complete(script, "spanload", "run", "--workload-f")
    (tmp_path / "orders.yaml").write_text("")
    assert _complete(script, "spanload", "run", "--workload-file", str(tmp_path / "ord")) == [
        str(tmp_path / "orders.yaml")
    ]


def test_zsh_gets_a_script_and_an_unknown_shell_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["completion", "zsh"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("#compdef spanload") and "--workload-file" in text
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(["completion", "fish"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'fish'" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
