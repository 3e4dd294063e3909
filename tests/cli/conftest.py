"""Fixtures of the CLI tests: the load engine tests' local Spanner, for the runs `spanload run` and
`spanload experiment` make against it."""

from tests.engine.conftest import local_spanner  # noqa: F401
