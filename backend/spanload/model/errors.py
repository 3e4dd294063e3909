"""The one error tree. Every error a user can cause or meet is a :class:`RunError`: ``str()`` is one
sentence for them, ``status_code`` is the HTTP status the API answers with (one exception handler,
in api/), and ``exit_code`` is what the command line exits with (cli/)."""

from __future__ import annotations

import re
from typing import ClassVar

from pydantic import ValidationError

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
# A cross-field rule's message starts with the dotted field it is about: "reader.query 'leaderboard'
# needs ...", or "field: sentence" (then the prefix is taken off the sentence).
_LEADING_FIELD = re.compile(r"^([a-z_][a-z0-9_]*(?:\.[A-Za-z0-9_]+)+)(: |\s)")


class RunError(Exception):
    """Base of the tree; raised as is for a run that could not start or go on."""

    status_code: ClassVar[int] = 500
    exit_code: ClassVar[int] = EXIT_FAILED

    def __init__(self, detail: str, field: str | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.field = field  # the dotted config field at fault, when there is one


class RunNotFound(RunError, LookupError):
    """No run with that id."""

    status_code = 404

    @classmethod
    def of(cls, run_id: str) -> RunNotFound:
        """The one sentence for an id that names no run: REST's 404, the live socket's 4404, the pages'."""
        return cls(f"There is no run {run_id!r} on this server: it was never started here, or it was deleted.")


class RunConflict(RunError):
    """The run exists but its state does not accept the request (or a run with that id is active)."""

    status_code = 409


class RunInvalid(RunError, ValueError):
    """A request, config, patch or flag that is not valid; ``field`` names the offending knob."""

    status_code = 422
    exit_code = EXIT_USAGE

    @classmethod
    def from_validation(cls, err: ValidationError, prefix: str = "") -> RunInvalid:
        """One sentence naming the field(s) of a pydantic error; ``field`` is the first field's dotted name."""
        parts = []
        first: str | None = None
        for e in err.errors():
            loc = ".".join(str(x) for x in e["loc"] if x != "schema_")
            message = str(e["msg"]).removeprefix("Value error, ")
            inner = _LEADING_FIELD.match(message)
            named = False
            if inner is not None:  # a cross-field rule's message starts with the field it is about
                # A section's rule names its field from the top ("watcher.shard_filter" under "watcher").
                field = inner.group(1)
                loc = field if not loc or field.startswith(f"{loc}.") else f"{loc}.{field}"
                named = inner.group(2) != ": "
                if not named:
                    message = message[inner.end() :]
            first = first or loc or None
            parts.append(f"{loc}: {message}" if loc and not named else message)
        return cls(prefix + "; ".join(parts), first)


class UnknownPreset(RunInvalid, LookupError):
    """No preset by that name; ``str()`` lists the names there are."""


class Unavailable(RunError):
    """Something the request needs (the local Spanner, a worker process) is missing or down."""

    status_code = 503
