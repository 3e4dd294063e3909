"""TPC-C's contracts (``workload: tpcc``): the five transaction types and their standard mix, the
names of their histograms and counters, the load's units, and what the summary says of a run.

The load is cut into *units*, each one commit of the preload phase (its ``rows`` are units): a
chunk of items; per warehouse, the warehouse with its districts, and chunks of stock; per district,
chunks of customers (with their history rows) and chunks of orders (with their order lines and,
for the newest 30 %, their new-order rows). :func:`load_units` lists them in order.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from pydantic import BaseModel, Field

from spanload.model.config import RunConfig, TpccConfig, Workload

DISTRICTS = 10  # per warehouse
NEW_ORDER_FRACTION = 0.3  # the spec's 900 of 3,000 initial orders per district are undelivered
ITEM_CHUNK = 1000  # items per load commit (5 columns)
STOCK_CHUNK = 1000  # stock rows per load commit (17 columns)
CUSTOMER_CHUNK = 250  # customers (+ one history row each) per load commit (21 + 9 columns)
ORDER_CHUNK = 150  # orders (+ 5..15 order lines each, + new orders) per load commit


class TxType(StrEnum):
    NEW_ORDER = "new_order"
    PAYMENT = "payment"
    ORDER_STATUS = "order_status"
    DELIVERY = "delivery"
    STOCK_LEVEL = "stock_level"

    @property
    def op(self) -> str:
        """Its latency histogram: ``tpcc.new_order`` (successes, from the actual start)."""
        return f"tpcc.{self.value}"

    @property
    def op_intended(self) -> str:
        return f"tpcc.{self.value}_intended"

    @property
    def op_server(self) -> str:
        return f"tpcc.{self.value}_server"

    @property
    def op_failed(self) -> str:
        return f"tpcc.{self.value}.failed"

    def counter(self, what: str = "") -> str:
        """Report counter of this type: ``tpcc.new_order`` (completed), or ``tpcc.new_order.aborts``..."""
        return f"tpcc.{self.value}" + (f".{what}" if what else "")


# The standard mix in cards per deck of 100 (clause 5.2.3: at least 43 % Payment and 4 % each of
# Order-Status, Delivery and Stock-Level; New-Order takes the rest).
MIX: dict[TxType, int] = {
    TxType.NEW_ORDER: 45,
    TxType.PAYMENT: 43,
    TxType.ORDER_STATUS: 4,
    TxType.DELIVERY: 4,
    TxType.STOCK_LEVEL: 4,
}
DECK_SIZE = sum(MIX.values())

# Report counters per type, besides the completed count (``TxType.counter()``).
ABORTS = "aborts"  # attempts the server aborted (the client ran the transaction again)
RETRIES = "retries"  # re-runs of a transaction after an abort (= aborts of the ones that committed)
ROLLBACKS = "rollbacks"  # New-Order's 1 % rolled back on an unused item id (completed, not committed)
ERRORS = "errors"  # failed for good (deadline, unavailable...)
SKIPPED = "skipped"  # Delivery: districts that had no undelivered order

TPMC_GAUGE = "tpcc.tpmc"  # committed New-Orders per minute (interval and whole run)


class ConditionResult(StrEnum):
    OK = "ok"
    FAILED = "failed"


class TpccTypeFigures(BaseModel):
    """One transaction type over the whole run."""

    completed: int = Field(0, description="committed, plus New-Orders rolled back on purpose")
    share_pct: float = Field(0.0, description="its percentage of every completed transaction")
    standard_pct: float = Field(0.0, description="the standard mix's percentage")
    rollbacks: int = Field(0, description="New-Order: rolled back on an unused item (the spec's 1 %)")
    aborts: int = Field(0, description="attempts the server aborted")
    retries: int = Field(0, description="re-runs after an abort")
    errors: int = Field(0, description="failed for good")
    skipped: int = Field(0, description="Delivery: districts without an undelivered order")


class TpccSummary(BaseModel):
    """What a TPC-C run measured, and whether the database is still consistent after it."""

    warehouses: int
    tpmc: float = Field(description="committed New-Orders per minute over the measured phase")
    by_type: dict[str, TpccTypeFigures] = Field(default_factory=dict, description="keyed by type: new_order...")
    consistency: dict[str, str] = Field(
        default_factory=dict,
        description="condition_1..condition_4 of clause 3.3.2: 'ok' or 'failed: <detail>'; "
        "empty if the check could not run",
    )
    consistency_error: str | None = Field(None, description="why the consistency check could not run")


def summarize(counters: dict[str, int], duration_s: float, warehouses: int) -> TpccSummary:
    """The run's figures per type from its whole-run counters."""
    completed = {t: counters.get(t.counter(), 0) for t in TxType}
    total = sum(completed.values())
    by_type = {
        t.value: TpccTypeFigures(
            completed=completed[t],
            share_pct=round(100 * completed[t] / total, 3) if total else 0.0,
            standard_pct=100 * MIX[t] / DECK_SIZE,
            rollbacks=counters.get(t.counter(ROLLBACKS), 0),
            aborts=counters.get(t.counter(ABORTS), 0),
            retries=counters.get(t.counter(RETRIES), 0),
            errors=counters.get(t.counter(ERRORS), 0),
            skipped=counters.get(t.counter(SKIPPED), 0),
        )
        for t in TxType
    }
    return TpccSummary(warehouses=warehouses, tpmc=round(tpmc(counters, duration_s) or 0.0, 3), by_type=by_type)


def tpmc(counters: dict[str, int], seconds: float) -> float | None:
    """Committed New-Orders per minute (rolled-back ones left out, as HammerDB's NOPM does);
    None when the counters have no New-Order (not a TPC-C run, or none ended)."""
    completed = counters.get(TxType.NEW_ORDER.counter())
    if completed is None or seconds <= 0:
        return None
    return (completed - counters.get(TxType.NEW_ORDER.counter(ROLLBACKS), 0)) * 60 / seconds


# -- the load's units ------------------------------------------------------------------------------


class UnitKind(StrEnum):
    ITEMS = "items"
    WAREHOUSE = "warehouse"  # the warehouse row and its districts
    STOCK = "stock"
    CUSTOMERS = "customers"  # with one history row each
    ORDERS = "orders"  # with their order lines and new orders


@dataclass(frozen=True)
class Unit:
    """One commit of the load: ``kind`` rows numbered ``lo..hi`` (inclusive, 1-based as in the
    spec) of warehouse ``w`` and district ``d`` (0 where they do not apply)."""

    kind: UnitKind
    w: int
    d: int
    lo: int
    hi: int


def _chunks(n: int, size: int) -> list[tuple[int, int]]:
    return [(lo, min(lo + size - 1, n)) for lo in range(1, n + 1, size)]


def load_units(tpcc: TpccConfig) -> list[Unit]:
    """Every unit of the initial population, in load order."""
    units = [Unit(UnitKind.ITEMS, 0, 0, lo, hi) for lo, hi in _chunks(tpcc.items, ITEM_CHUNK)]
    for w in range(1, tpcc.warehouses + 1):
        units.append(Unit(UnitKind.WAREHOUSE, w, 0, 1, DISTRICTS))
        units += [Unit(UnitKind.STOCK, w, 0, lo, hi) for lo, hi in _chunks(tpcc.items, STOCK_CHUNK)]
        for d in range(1, DISTRICTS + 1):
            customers = tpcc.customers_per_district
            units += [Unit(UnitKind.CUSTOMERS, w, d, lo, hi) for lo, hi in _chunks(customers, CUSTOMER_CHUNK)]
            units += [Unit(UnitKind.ORDERS, w, d, lo, hi) for lo, hi in _chunks(customers, ORDER_CHUNK)]
    return units


def preload_rows(config: RunConfig) -> int:
    """What the run's load phase counts: TPC-C's units (always loaded, skipped when present), a
    definition's rows of every table of its ``load``, else ``preload.rows`` rows of the watched table."""
    if config.workload is Workload.TPCC:
        return len(load_units(config.tpcc))
    if config.definition is not None:  # every table of its ``load``, concatenated
        knobs = config.knob_values()
        return sum(int(config.definition.numeric_knob(t.rows, knobs)) for t in config.definition.load.values())
    return config.preload.rows
