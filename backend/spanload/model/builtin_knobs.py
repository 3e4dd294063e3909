"""The one mapping from the fixed config sections (``updater``, ``watcher``, ``reader``, ``preload``)
to the built-in definitions' knobs and operations, so that the documented flags (``--tps``,
``--mutations``, ``--poll-interval``, ``--no-watcher``, ``--reader``, ``--preload-rows``...), old
configs' fields and live patches keep working on a run of a built-in definition
(``workloads/<name>.yaml``). A field the table does not map for that definition is refused, naming it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from spanload.model.errors import RunInvalid
from spanload.model.op_metrics import OpCounter, OpGauge, OpHistogram
from spanload.model.op_metrics import name as op_metric


@dataclass(frozen=True)
class ToKnob:
    """The field sets knob ``knob`` to its value times ``scale`` (``mutations_per_transaction`` m is
    the mean of a uniform 1..2m, so ``max_mutations`` = 2m)."""

    knob: str
    scale: int = 1


@dataclass(frozen=True)
class OperationGroup:
    """Operations that a pair of fields picks: ``switch`` (a bool field) false disables every one of
    them; ``choose`` (e.g. ``updater.mode``) picks, by its value, the ones that run (the others of
    the group are disabled); switched on without a choice, ``default``'s run."""

    switch: str
    choose: str
    by_value: dict[str, tuple[str, ...]]
    default: str

    @property
    def among(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(op for ops in self.by_value.values() for op in ops))


WATCH = "watch"  # watcher.enabled false: the run's definition loses its watch
# watcher.table_hint on a definition whose watch names no index (participants: UserTable has none):
# there is nothing to force, so the field changes nothing; the legacy config took only false there
# with a watcher on ("workload 'participants' has no index to force")
UNHINTED = "unhinted"

_WRITES = OperationGroup(
    "updater.enabled",
    "updater.mode",
    {"mutations": ("write",), "dml": ("write_dml",), "batch_insert": ("batch_insert",)},
    "mutations",
)
_KNOBS_CHANGE: dict[str, ToKnob | str] = {
    "updater.transactions_per_second": ToKnob("transactions_per_second"),
    "updater.mutations_per_transaction": ToKnob("max_mutations", 2),
    "updater.parallelism": ToKnob("parallelism"),
    "updater.batch_rows": ToKnob("batch_rows"),
    "updater.key_space": ToKnob("key_space"),
    "reader.reads_per_second": ToKnob("reads_per_second"),
    "reader.concurrency": ToKnob("read_concurrency"),
    "watcher.enabled": WATCH,
}
# the hand-written watcher's fields, on every built-in's watch (its pollers split the ShardId values)
_WATCHER: dict[str, ToKnob | str] = {
    "watcher.watchers": ToKnob("watchers"),
    "watcher.poll_interval_ms": ToKnob("poll_interval"),
    "watcher.limit": ToKnob("limit"),
}
_HINTED_WATCHER: dict[str, ToKnob | str] = {**_WATCHER, "watcher.table_hint": ToKnob("table_hint")}
_PRELOAD: dict[str, ToKnob | str] = {"preload.rows": ToKnob("preload_rows")}

# definition name -> legacy field (dotted) -> the knob it sets; and the operations its fields pick
LEGACY_KNOBS: dict[str, dict[str, ToKnob | str]] = {
    "change_watcher": {**_KNOBS_CHANGE, **_HINTED_WATCHER, **_PRELOAD},
    "write_benchmark": {**_KNOBS_CHANGE, **_HINTED_WATCHER, **_PRELOAD},
    "session_pool": {
        "updater.parallelism": ToKnob("agents"),
        "reader.concurrency": ToKnob("agents"),
        "reader.think_time_ms": ToKnob("think_time"),
        "updater.key_space": ToKnob("key_space"),
        "watcher.enabled": WATCH,
        **_HINTED_WATCHER,
        **_PRELOAD,
    },
    "participants": {
        "updater.transactions_per_second": ToKnob("commits_per_second"),
        "updater.parallelism": ToKnob("in_flight"),
        "updater.batch_rows": ToKnob("batch_rows"),
        "watcher.enabled": WATCH,
        **_WATCHER,
        "watcher.table_hint": UNHINTED,
        **_PRELOAD,
    },
}
LEGACY_OPERATIONS: dict[str, tuple[OperationGroup, ...]] = {
    "change_watcher": (
        _WRITES,
        OperationGroup(
            "reader.enabled",
            "reader.query",
            {"point": ("point_read",), "recent_changes": ("recent_changes",)},
            "point",
        ),
    ),
    "write_benchmark": (_WRITES, OperationGroup("reader.enabled", "reader.query", {"point": ("point_read",)}, "point")),
    "session_pool": (
        OperationGroup("updater.enabled", "updater.mode", {"mutations": ("insert_score",)}, "mutations"),
        OperationGroup("reader.enabled", "reader.query", {"leaderboard": ("leaderboard",)}, "leaderboard"),
    ),
    "participants": (
        OperationGroup("updater.enabled", "updater.mode", {"batch_insert": ("batch_insert",)}, "batch_insert"),
    ),
}
# each PostgreSQL twin (workloads/<name>_pg.yaml) has exactly its original's knobs and operations
# (tests/engine/test_builtin_definitions.py), so the same flags drive it
LEGACY_KNOBS.update({f"{name}_pg": table for name, table in list(LEGACY_KNOBS.items())})
LEGACY_OPERATIONS.update({f"{name}_pg": groups for name, groups in list(LEGACY_OPERATIONS.items())})
LEGACY_SECTIONS = ("updater", "watcher", "reader", "preload")


def _flat(section: str, body: dict[str, Any]) -> dict[str, Any]:
    return {f"{section}.{k}": v for k, v in body.items()}


def translate(name: str, overrides: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """``overrides`` (nested like the config) with its legacy sections turned into the built-in
    definition ``name``'s ``knobs``, ``operations`` and (``watcher.enabled: false``) ``watch: null``
    of its ``definition``. Unchanged when ``name`` is not a built-in or nothing legacy is given.
    Raises :class:`RunInvalid` naming a field with no counterpart in that definition, or a value
    it cannot take."""
    table = LEGACY_KNOBS.get(name)
    if table is None:
        return overrides
    overrides = _drivers(name, overrides)
    given = {s: overrides[s] for s in LEGACY_SECTIONS if isinstance(overrides.get(s), dict) and overrides[s]}
    if not given:
        return overrides
    groups = LEGACY_OPERATIONS[name]
    out = {k: v for k, v in overrides.items() if k not in given}
    knobs: dict[str, Any] = dict(out.get("knobs") or {})
    operations: dict[str, dict[str, Any]] = {k: dict(v) for k, v in (out.get("operations") or {}).items()}
    fields = {f: getattr(v, "value", v) for s, body in given.items() for f, v in _flat(s, body).items()}
    picked = {g.switch for g in groups} | {g.choose for g in groups}
    for field, value in fields.items():
        target = table.get(field)
        if target is None and field not in picked:
            accepted = sorted({*table, *picked})
            raise RunInvalid(
                f"{prefix}{field}: workload {name!r} (workloads/{name}.yaml) has no knob for it; "
                f"it takes {', '.join(accepted)}, or its knobs by name (--set)",
                field,
            )
        if isinstance(target, ToKnob):
            knobs[target.knob] = value * target.scale if target.scale != 1 else value
        elif target == WATCH and value is False:
            out["definition"] = {**(out.get("definition") or {}), "watch": None}
    for group in groups:
        _pick(group, fields, operations, name, prefix)
    if knobs:
        out["knobs"] = knobs
    if operations:
        out["operations"] = operations
    return out


def _drivers(name: str, overrides: dict[str, Any]) -> dict[str, Any]:
    """A profile or a capacity search that names no operation (or ``updater``, as old configs did)
    drives the operation the updater's mode runs: what "the updater's rate" is in built-in ``name``."""
    mode = (overrides.get("updater") or {}).get("mode")
    operation = updater_operation(name, getattr(mode, "value", mode))
    out = overrides
    for section in ("profile", "capacity"):
        body = overrides.get(section)
        if isinstance(body, dict) and body.get("operation") in (None, "updater"):
            out = {**out, section: {**body, "operation": operation}}
    return out


def _pick(
    group: OperationGroup, fields: dict[str, Any], operations: dict[str, dict[str, Any]], name: str, prefix: str
) -> None:
    switch, choice = fields.get(group.switch), fields.get(group.choose)
    if choice is not None and choice not in group.by_value:
        raise RunInvalid(
            f"{prefix}{group.choose}: workload {name!r} takes {', '.join(map(repr, group.by_value))} (got {choice!r})",
            group.choose,
        )
    if switch is False:
        on: tuple[str, ...] = ()
    elif choice is not None:
        on = group.by_value[choice]
    elif switch is True:
        on = group.by_value[group.default]
    else:
        return
    for op in group.among:
        operations.setdefault(op, {})["enabled"] = op in on


def updater_operation(name: str, mode: str | None) -> str:
    """The operation of built-in ``name`` that the legacy updater's ``mode`` runs (what a profile or a
    capacity search of an old config drove: "the updater's rate")."""
    group = next(g for g in LEGACY_OPERATIONS[name] if g.switch == "updater.enabled")
    return group.by_value.get(mode or group.default, group.by_value[group.default])[0]


def legacy_field(name: str, knob: str) -> str | None:
    """The legacy field (dotted) that sets built-in ``name``'s ``knob`` one to one, if any: what a
    message about the knob names, since that is the field a user of the report's terms gave."""
    for field, target in LEGACY_KNOBS.get(name, {}).items():
        if isinstance(target, ToKnob) and target.knob == knob and target.scale == 1:
            return field
    return None


# The legacy figures' names (samples.Op, samples.Gauge) -> the same figure of the definition's
# operation that took the legacy role over (``updater``: the enabled write, ``reader``: the enabled
# read): the one table by which thresholds, abort rules and the compare with old saved runs read a
# run of a built-in definition under the names they always had.
LEGACY_FIGURES: dict[str, tuple[str, OpHistogram | OpGauge | OpCounter]] = {
    "updater.txn": ("updater", OpHistogram.LATENCY),
    "updater.txn_intended": ("updater", OpHistogram.INTENDED),
    "updater.txn_server": ("updater", OpHistogram.SERVER),
    "updater.txn.failed": ("updater", OpHistogram.FAILED),
    "updater.target_tps": ("updater", OpGauge.TARGET_PS),
    "updater.scheduled_tps": ("updater", OpGauge.SCHEDULED_PS),
    "updater.behind": ("updater", OpGauge.BEHIND),
    "updater.tps": ("updater", OpGauge.PS),
    "reader.read": ("reader", OpHistogram.LATENCY),
    "reader.read_intended": ("reader", OpHistogram.INTENDED),
    "reader.read_server": ("reader", OpHistogram.SERVER),
    "reader.read.failed": ("reader", OpHistogram.FAILED),
    "reader.target_rps": ("reader", OpGauge.TARGET_PS),
    "reader.scheduled_rps": ("reader", OpGauge.SCHEDULED_PS),
    "reader.behind": ("reader", OpGauge.BEHIND),
    "reader.rps": ("reader", OpGauge.PS),
    "reads": ("reader", OpCounter.DONE),  # the reads counter (Counter.READS), the summary's reads total
}


def legacy_figures(name: str, enabled: set[str]) -> dict[str, str]:
    """Legacy figure name -> the figure of a run of built-in ``name`` whose ``enabled`` operations run
    (empty for a definition that is no built-in)."""
    roles: dict[str, str] = {}
    for group in LEGACY_OPERATIONS.get(name, ()):
        role = group.switch.partition(".")[0]
        on = [op for op in group.among if op in enabled]
        if on:
            roles[role] = on[0]
    return {old: op_metric(t, roles[role]) for old, (role, t) in LEGACY_FIGURES.items() if role in roles}
