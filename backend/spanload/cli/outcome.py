"""What `spanload run` ends with, run here or on a serve: for the summary, the thresholds'
verdicts, the ``--json`` document and the ``--html`` report."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from spanload.model.config import RunConfig
from spanload.model.samples import Sample, Summary
from spanload.model.state import RunState


@dataclass
class Outcome:
    run_id: str
    config: RunConfig
    state: RunState
    reason: str | None
    summary: Summary | None
    samples: list[Sample] = field(default_factory=list)
    interrupted: bool = False
    saved_in: str | None = None  # the run store (a URL) or the serve that holds the run
    server: str | None = None

    def document(self, verdicts: list[dict[str, Any]]) -> dict[str, Any]:
        """The ``--json`` file: the run id, where it is saved, each threshold's verdict, the config,
        the state, the summary and every sample."""
        return {
            "run_id": self.run_id,
            "saved_in": self.saved_in,
            "server": self.server,
            "passed": all(v["passed"] for v in verdicts) and self.state is not RunState.FAILED,
            "thresholds": verdicts,
            "config": self.config.model_dump(mode="json", by_alias=True),
            "state": self.state.value,
            "reason": self.reason,
            "summary": self.summary.model_dump(mode="json") if self.summary else None,
            "samples": [s.model_dump(mode="json") for s in self.samples],
        }
