"""Fixtures of the Spanner client tests: the load engine tests' local Spanner."""

from tests.engine.conftest import local_spanner  # noqa: F401
