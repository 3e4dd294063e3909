"""Usage errors on the Typer command line: a missing or unknown command, or a bad value, is exit 2
and one sentence naming what was wrong (never Click's usage block nor a traceback)."""

from __future__ import annotations

import pytest

from spanload.cli.commands import main


@pytest.mark.parametrize(
    ("argv", "sentence"),
    [
        ([], "spanload: Missing command. Try 'spanload --help'."),
        (["runs"], "spanload runs: Missing command. Try 'spanload runs --help'."),
        (["nope"], "spanload: No such command 'nope'. Try 'spanload --help'."),
        (
            ["runs", "list", "--limit", "many"],
            "spanload runs list: Invalid value for '--limit': Input should be a valid integer, unable to parse "
            "string as an integer. Try 'spanload runs list --help'.",
        ),
        (
            ["run", "--mode", "bulk"],
            "spanload run: Invalid value for '--mode': invalid choice: 'bulk' (choose from mutations, dml, "
            "batch_insert). Try 'spanload run --help'.",
        ),
    ],
)
def test_a_usage_error_is_exit_2_and_one_sentence(
    argv: list[str], sentence: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", sentence + "\n")


def test_version_and_help_exit_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == "spanload 0.1.0\n"
    assert main(["runs", "--help"]) == 0
    assert capsys.readouterr().out.startswith("Usage: spanload runs [OPTIONS] COMMAND [ARGS]...")


def test_serve_help_says_how_to_choose_its_ports(capsys: pytest.CaptureFixture[str]) -> None:
    # `make run` takes no flags: a new user on a machine where 8000 is taken needs the variables
    assert main(["serve", "--help"]) == 0
    help_text = " ".join(capsys.readouterr().out.split())
    assert "port to bind (default 8000, or SPANLOAD_PORT)" in help_text
    assert "the local Spanner's port is SPANLOAD_LOCAL_SPANNER_PORT (default 9010; 0 picks a free one)" in help_text
