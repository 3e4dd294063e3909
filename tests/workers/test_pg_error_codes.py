"""A PostgreSQL driver's error (the pgadapter interface) counts in errors_by_code under the gRPC code
behind its SQLSTATE, the key the Go worker gives pgx's errors (both from protocol.PG_SQLSTATE_CODES).
SQLSTATEs and psycopg's classes for them are PostgreSQL's Appendix A and psycopg's errors module:
40001 serialization_failure, 23505 unique_violation, 42703 undefined_column (class 42)."""

from __future__ import annotations

import psycopg
import pytest

from spanload.workers.stats import error_code


@pytest.mark.parametrize(
    ("err", "code"),
    [
        (psycopg.errors.SerializationFailure("aborted"), "ABORTED"),
        (psycopg.errors.UniqueViolation("exists"), "ALREADY_EXISTS"),
        (psycopg.errors.UndefinedColumn("no column"), "INVALID_ARGUMENT"),
        (psycopg.errors.RaiseException("P0001"), "UNKNOWN"),
        (psycopg.OperationalError("connection refused"), "UNAVAILABLE"),
        (psycopg.errors.ConnectionTimeout("connection timeout expired"), "UNAVAILABLE"),
    ],
    ids=lambda v: type(v).__name__ if isinstance(v, Exception) else v,
)
def test_psycopg_errors_count_under_the_grpc_code_of_their_sqlstate(err: Exception, code: str) -> None:
    assert error_code(err) == code
