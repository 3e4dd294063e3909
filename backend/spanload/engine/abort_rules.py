"""``config.abort_on`` (``--abort-on 'updater.p99_ms>500 for 30s'``): conditions judged on every
interval while the run goes. Once one has held for its time in intervals in a row, the run stops
itself (the workers drain as at any stop) and ends FAILED, the rule and the figure on its timeline:
the safety brake of a load test against a database that must not be hurt.

An interval without the rule's figure (no operation of that kind completed in it) breaks the
streak: nothing measured is not a breach."""

from __future__ import annotations

from dataclasses import dataclass

from spanload.engine.thresholds import metrics_of_sample
from spanload.model.conditions import AbortRule, parse_abort
from spanload.model.samples import Sample


@dataclass
class _Streak:
    rule: AbortRule
    lasted_s: float = 0.0  # the breached intervals in a row so far, their lengths added up


class AbortWatch:
    """Feeds a run's samples to its abort rules, in order."""

    def __init__(self, rules: list[str]) -> None:
        self.streaks = [_Streak(parse_abort(text)) for text in rules]

    def observe(self, sample: Sample) -> dict[str, object] | None:
        """None while every rule holds back; else the first rule whose breach lasted long enough, as
        the timeline event's content: ``{rule, metric, value, for_s, breached_s, reason}``."""
        metrics = metrics_of_sample(sample)
        for streak in self.streaks:
            rule = streak.rule
            if not rule.breached(metrics):
                streak.lasted_s = 0.0
                continue
            streak.lasted_s += sample.interval_s  # intervals counted, not the clock read between reports
            lasted = streak.lasted_s
            if lasted + 1e-6 >= rule.for_s:
                value = metrics[rule.condition.metric]
                return {
                    "rule": rule.text,
                    "metric": rule.condition.metric,
                    "value": value,
                    "for_s": rule.for_s,
                    "breached_s": round(lasted, 3),
                    "reason": f"aborted by '{rule.text}': {rule.condition.metric} was {value:.6g} for {lasted:.1f} s",
                }
        return None
