"""End-of-run proof that the watchers missed nothing and counted nothing twice.

Each updater writes increasing versions per key (never two writes of one key at once, keys split
between processes), and keeps ``key -> (last version, versions committed)``. The watcher keeps
``key -> (highest version seen, distinct versions seen)`` and counts a version it received before
as a duplicate (pollers of different shards can deliver a key's versions out of order:
``SeenLedger``). Then for every key:

- its final version was received iff the highest version seen equals the last version written;
- versions written but never seen, other than a missing final one, were superseded before any
  poll could see them: that is why the received total can be a little below the mutations.

New keys (batch_insert) are written once each and numbered per worker, so both sides keep ranges of
numbers instead of rows: committed ``C`` and of unknown outcome ``U`` (disjoint) by the updater,
received ``S`` by the watcher (a number received twice is a duplicate). Each committed number is
a key written and received iff it is in ``S``; a number in ``S`` but in neither ``C`` nor ``U`` is
unexpected.
"""

from __future__ import annotations

from collections.abc import Iterable

from spanload.model.protocol import WatcherLedger, WritersStopped
from spanload.model.ranges import count, overlap
from spanload.model.samples import MISSING_KEYS_SHOWN, Reconciliation


def reconcile(ledgers: Iterable[WritersStopped], watcher: WatcherLedger) -> Reconciliation:
    """Compare what the updaters committed with what the watcher received."""
    ledgers = list(ledgers)
    written: dict[int, tuple[int, int]] = {}
    uncertain: set[int] = set()
    for ledger in ledgers:
        uncertain.update(ledger.uncertain_keys)
        for key, last_version, committed in ledger.ledger:
            written[key] = (last_version, committed)
    received = {key: (highest, distinct) for key, highest, distinct in watcher.received}

    out = Reconciliation(duplicates=watcher.duplicates, foreign_changes=watcher.foreign)
    out.uncertain_keys = len(uncertain)
    for key, (last_version, committed) in written.items():
        if key in uncertain:
            continue
        out.keys_written += 1
        out.versions_written += committed
        highest, distinct = received.get(key, (0, 0))
        if highest > last_version:
            out.unexpected += 1
            continue
        out.versions_received += distinct
        final_seen = highest == last_version
        if final_seen:
            out.final_versions_received += 1
        else:
            out.final_versions_missing += 1
            if len(out.missing_keys) < MISSING_KEYS_SHOWN:
                out.missing_keys.append(key)
        out.superseded_unseen += max(0, committed - distinct - (0 if final_seen else 1))
    out.unexpected += sum(1 for key in received if key not in written and key not in uncertain)
    _reconcile_fresh(out, ledgers, watcher)
    out.ok = out.keys_written > 0 and out.final_versions_missing == 0 and out.duplicates == 0 and out.unexpected == 0
    out.detail = "" if out.keys_written else "nothing was written, so nothing is proven; "
    out.detail += (
        f"{out.final_versions_received}/{out.keys_written} final versions received, "
        f"{out.duplicates} duplicates, {out.superseded_unseen} superseded before any poll, "
        f"{out.unexpected} unexpected"
    )
    if out.missing_keys:
        out.detail += f"; final version missing for keys {', '.join(map(str, out.missing_keys))}"
        if len(out.missing_keys) < out.final_versions_missing:
            out.detail += " among others"
    return out


def _reconcile_fresh(out: Reconciliation, ledgers: list[WritersStopped], watcher: WatcherLedger) -> None:
    """Add the new keys' figures, from ranges of their numbers (see the module's docstring)."""
    received = dict(watcher.fresh_received)
    for ledger in ledgers:
        committed, uncertain = ledger.fresh_committed, ledger.fresh_uncertain
        seen = received.pop(ledger.worker, [])
        both = overlap(seen, committed)
        out.keys_written += count(committed)
        out.versions_written += count(committed)
        out.versions_received += both
        out.final_versions_received += both
        out.final_versions_missing += count(committed) - both
        out.uncertain_keys += count(uncertain)
        out.unexpected += count(seen) - both - overlap(seen, uncertain)
    out.unexpected += sum(count(seen) for seen in received.values())  # from no worker of this run
