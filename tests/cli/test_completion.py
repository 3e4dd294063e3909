"""`spanload completion bash|zsh|fish` prints Typer's completion script, which asks the command
itself what to offer: sourced in bash it completes subcommands and the flags generated from the
config fields. zsh is not installed here: its script is checked for the program and the entry
point, and that entry point (the command under ``_SPANLOAD_COMPLETE=complete_zsh``) is run."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from spanload.cli.commands import main
from tests.helpers import VENV_BIN

TIMEOUT_S = 120  # each completion starts the command once; a loaded machine takes seconds


def _complete(script: Path, *words: str) -> list[str]:
    """What bash offers for the last of ``words`` after sourcing ``script`` (the completion function
    run as bash runs it on TAB, with the command found on PATH)."""
    line = " ".join(words)
    program = (
        f'source "$1"; COMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; '
        '_spanload_completion spanload; printf "%s\\n" "${COMPREPLY[@]}"'
    )
    env = {**os.environ, "PATH": f"{VENV_BIN}:{os.environ['PATH']}"}
    done = subprocess.run(
        ["bash", "-c", program, "bash", str(script)], capture_output=True, text=True, check=True, env=env,
        timeout=TIMEOUT_S,
    )  # fmt: skip
    return done.stdout.split()


def test_the_bash_script_completes_subcommands_and_generated_flags(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["completion", "bash"]) == 0
    text = capsys.readouterr().out
    assert "complete -o default -F _spanload_completion spanload" in text
    script = tmp_path / "spanload.bash"
    script.write_text(text)
    syntax = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
    assert syntax.returncode == 0, syntax.stderr

    assert _complete(script, "spanload", "ru") == ["run", "runs"]
    # --workload-file is written in run_command.py; --tps / --transactions-per-second are generated
    assert _complete(script, "spanload", "run", "--workload-f") == ["--workload-file"]
    assert _complete(script, "spanload", "run", "--transactions-per") == ["--transactions-per-second"]
    assert _complete(script, "spanload", "runs", "export", "x", "--format", "c") == ["csv"]


def test_zsh_gets_a_script_whose_entry_point_completes_generated_flags(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["completion", "zsh"]) == 0
    text = capsys.readouterr().out.strip()
    assert text.startswith("#compdef spanload")
    assert "_SPANLOAD_COMPLETE=complete_zsh spanload" in text and "compdef _spanload_completion spanload" in text
    env = {**os.environ, "_SPANLOAD_COMPLETE": "complete_zsh", "_TYPER_COMPLETE_ARGS": "spanload run --staleness"}
    done = subprocess.run(
        [str(VENV_BIN / "spanload")], capture_output=True, text=True, env=env, timeout=TIMEOUT_S, check=True
    )
    assert "--staleness" in done.stdout and "--staleness-s" in done.stdout, done.stdout


def test_an_unknown_shell_is_a_usage_error_in_one_sentence(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["completion", "tcsh"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "spanload completion: Invalid value for 'SHELL': invalid choice: 'tcsh' (choose from bash, zsh, fish). "
        "Try 'spanload completion --help'.\n"
    )
