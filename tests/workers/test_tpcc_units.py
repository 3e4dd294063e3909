"""TPC-C's building blocks without a server: the deck, NURand and the last names (values from the
specification), the load's units, the consistency verdicts on deliberately broken figures, and the
summary's arithmetic."""

from __future__ import annotations

import random
from collections import Counter
from decimal import Decimal

from spanload.cli.render import summary_table
from spanload.control.compare import metric_deltas
from spanload.model.config import TpccConfig
from spanload.model.samples import Percentiles, Summary
from spanload.model.tpcc import MIX, TxType, UnitKind, load_units, summarize, tpmc
from spanload.workers.tpcc.consistency import Aggregates, check
from spanload.workers.tpcc.load import delivered_below
from spanload.workers.tpcc.rand import A_LAST, C_LAST_LOAD, C_LAST_RUN, Deck, RunRandom, last_name, nurand


def test_last_names_are_three_syllables_one_per_digit() -> None:
    # clause 4.3.2.3's own example: 371 -> PRI CALLY OUGHT
    assert last_name(371) == "PRICALLYOUGHT"
    assert [last_name(n) for n in (0, 999, 40, 123)] == ["BARBARBAR", "EINGEINGEING", "BARPRESBAR", "OUGHTABLEPRI"]
    assert len({last_name(n) for n in range(1000)}) == 1000


class _Fixed(random.Random):
    """randint answers from a list, to pin NURand's two draws."""

    def __init__(self, draws: list[int]) -> None:
        super().__init__(0)
        self.draws = draws

    def randint(self, a: int, b: int) -> int:
        value = self.draws.pop(0)
        assert a <= value <= b
        return value


def test_nurand_is_the_specifications_formula() -> None:
    # NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x
    assert nurand(_Fixed([200, 700]), 255, 0, 999, 157) == ((200 | 700) + 157) % 1000  # 985
    assert nurand(_Fixed([1023, 3000]), 1023, 1, 3000, 0) == (1023 | 3000) % 3000 + 1  # 1024
    assert nurand(_Fixed([8191, 100_000]), 8191, 1, 100_000, 5) == ((8191 | 100_000) + 5) % 100_000 + 1
    rng = random.Random(7)
    draws = Counter(nurand(rng, 1023, 1, 3000, 259) for _ in range(30_000))
    assert min(draws) >= 1 and max(draws) <= 3000
    # non-uniform: the most drawn customer comes up far more often than uniform's 10 times
    assert draws.most_common(1)[0][1] > 40


def test_the_run_and_load_name_constants_differ_as_clause_2_1_6_1_asks() -> None:
    delta = abs(C_LAST_RUN - C_LAST_LOAD)
    assert 65 <= delta <= 119 and delta not in (96, 112) and 0 <= C_LAST_RUN <= A_LAST


def test_run_inputs_stay_in_range_and_names_exist_when_districts_are_small() -> None:
    rand = RunRandom(items=1000, customers=30, rng=random.Random(3))
    assert all(1 <= rand.customer_id() <= 30 for _ in range(2000))
    assert all(1 <= rand.item_id() <= 1000 for _ in range(2000))
    loaded = {last_name(n) for n in range(30)}  # below 1,000 customers: names 0..customers-1
    assert {rand.last_name() for _ in range(2000)} <= loaded


def test_every_hundred_cards_of_the_deck_are_the_standard_mix() -> None:
    deck = Deck(random.Random(11))
    first, second = [deck.deal() for _ in range(100)], [deck.deal() for _ in range(100)]
    want = {TxType.NEW_ORDER: 45, TxType.PAYMENT: 43, TxType.ORDER_STATUS: 4, TxType.DELIVERY: 4, TxType.STOCK_LEVEL: 4}
    assert Counter(first) == want == Counter(second) == MIX
    assert first != second  # shuffled each time
    assert Counter(deck.deal() for _ in range(1000)) == {t: 10 * n for t, n in want.items()}


def test_the_load_units_of_one_warehouse_at_the_specs_size() -> None:
    units = load_units(TpccConfig())
    kinds = Counter(u.kind for u in units)
    # 100 item chunks, 1 warehouse with its districts, 100 stock chunks; per district 12 customer
    # chunks (250 each) and 20 order chunks (150 each)
    assert kinds == {
        UnitKind.ITEMS: 100,
        UnitKind.WAREHOUSE: 1,
        UnitKind.STOCK: 100,
        UnitKind.CUSTOMERS: 120,
        UnitKind.ORDERS: 200,
    }
    orders = [u for u in units if u.kind is UnitKind.ORDERS and (u.w, u.d) == (1, 10)]
    assert (orders[0].lo, orders[-1].hi) == (1, 3000)
    assert sum(u.hi - u.lo + 1 for u in orders) == 3000
    assert delivered_below(3000) == 2101  # the spec's undelivered orders: 2,101..3,000
    two = load_units(TpccConfig(warehouses=2, items=1000, customers_per_district=30))
    assert len(two) == 1 + 2 * (1 + 1 + 10 * 2)


def _consistent() -> Aggregates:
    a = Aggregates()
    a.w_ytd = {1: Decimal("300123.45")}
    for d in (1, 2):
        a.d_ytd[(1, d)] = Decimal("30000.00") + (Decimal("123.45") if d == 1 else 0)
        a.d_next_o_id[(1, d)] = 3006
        a.max_o_id[(1, d)] = 3005
        a.new_order_max[(1, d)], a.new_order_min[(1, d)], a.new_order_count[(1, d)] = 3005, 2110, 896
        a.ol_cnt_sum[(1, d)] = a.order_lines[(1, d)] = 30_071
    a.w_ytd[1] = sum(a.d_ytd.values(), Decimal(0))
    return a


def test_consistent_figures_pass_all_four_conditions() -> None:
    assert check(_consistent()) == {f"condition_{n}": "ok" for n in (1, 2, 3, 4)}


def test_each_condition_fails_on_its_own_broken_figure_naming_it() -> None:
    ok = "ok"
    a = _consistent()
    a.w_ytd[1] += Decimal("0.01")
    assert check(a) == {
        "condition_1": "failed: warehouse 1: W_YTD 60123.46 != sum(D_YTD) 60123.45",
        "condition_2": ok,
        "condition_3": ok,
        "condition_4": ok,
    }
    a = _consistent()
    a.d_next_o_id[(1, 2)] = 3007  # an order number skipped
    verdicts = check(a)
    assert verdicts["condition_2"] == (
        "failed: warehouse 1 district 2: D_NEXT_O_ID - 1 = 3006, max(O_ID) = 3005, max(NO_O_ID) = 3005"
    )
    assert [v for k, v in verdicts.items() if k != "condition_2"] == [ok, ok, ok]
    a = _consistent()
    a.new_order_count[(1, 1)] = 895  # a hole in the new orders
    assert (
        check(a)["condition_3"]
        == "failed: warehouse 1 district 1: max - min + 1 of NO_O_ID = 896, new-order rows = 895"
    )
    a = _consistent()
    a.order_lines[(1, 1)] -= 1  # an order line lost
    assert check(a)["condition_4"] == "failed: warehouse 1 district 1: sum(O_OL_CNT) = 30071, order-line rows = 30070"
    assert check(Aggregates())["condition_1"] == "failed: no warehouses to check"


def test_a_district_with_every_order_delivered_has_no_new_order_bounds_to_check() -> None:
    a = _consistent()
    for figures in (a.new_order_max, a.new_order_min, a.new_order_count):
        del figures[(1, 2)]
    assert set(check(a).values()) == {"ok"}


def test_the_summary_counts_the_mix_and_tpmc_leaves_rollbacks_out() -> None:
    counters = {
        "tpcc.new_order": 450,
        "tpcc.new_order.rollbacks": 5,
        "tpcc.new_order.retries": 7,
        "tpcc.new_order.aborts": 9,
        "tpcc.payment": 430,
        "tpcc.order_status": 40,
        "tpcc.delivery": 40,
        "tpcc.delivery.skipped": 3,
        "tpcc.stock_level": 40,
    }
    summary = summarize(counters, duration_s=30.0, warehouses=1)
    assert summary.tpmc == 890.0  # (450 - 5) committed New-Orders in half a minute
    new_order = summary.by_type["new_order"]
    assert (new_order.completed, new_order.share_pct, new_order.standard_pct) == (450, 45.0, 45.0)
    assert (new_order.rollbacks, new_order.retries, new_order.aborts) == (5, 7, 9)
    assert summary.by_type["payment"].share_pct == 43.0 and summary.by_type["delivery"].skipped == 3
    assert tpmc({"transactions": 3}, 1.0) is None


def test_compare_puts_tpcc_runs_side_by_side_and_a_report_run_beside_them() -> None:
    def run(new_orders: int, p99: float) -> Summary:
        counters = {"tpcc.new_order": new_orders, "tpcc.payment": new_orders, "tpcc.payment.aborts": 2}
        latency = {"tpcc.new_order": Percentiles(count=new_orders, p50=3.0, p99=p99)}
        return Summary(duration_s=60.0, latency=latency, tpcc=summarize(counters, 60.0, 1))

    other = Summary(duration_s=60.0, latency={"updater.txn": Percentiles(count=5, p50=1.0, p99=2.0)})
    metrics = {m.metric: (m.better, m.values, m.delta) for m in metric_deltas([run(100, 9.0), run(150, 6.0), other])}
    assert metrics["tpcc.tpmc"] == ("higher", [100.0, 150.0, None], [0.0, 50.0, None])
    assert metrics["latency.tpcc.new_order.p99"] == ("lower", [9.0, 6.0, None], [0.0, -3.0, None])
    assert metrics["tpcc.payment.aborts"][:2] == ("lower", [2.0, 2.0, None])
    assert metrics["tpcc.new_order.share_pct"][0] is None  # a share is neither better nor worse
    assert metrics["latency.updater.txn.p99"][1] == [None, None, 2.0]


def test_the_cli_summary_lists_the_tpcc_histograms_the_mix_and_the_verdicts() -> None:
    counters = {"tpcc.new_order": 45, "tpcc.new_order.rollbacks": 1, "tpcc.payment": 43, "tpcc.delivery": 4}
    summary = Summary(
        duration_s=60.0,
        latency={"tpcc.new_order": Percentiles(count=45, p50=12.0, p90=20.0, p99=31.0, p999=40.0, max=41.0)},
        tpcc=summarize(counters, 60.0, 1),
    )
    summary.tpcc.consistency = {"condition_1": "ok", "condition_2": "failed: warehouse 1 district 1: ..."}  # type: ignore[union-attr]
    lines = summary_table(summary)
    assert "tpcc.new_order" in next(line for line in lines if line.startswith("tpcc.new_order"))
    assert "TPC-C, 1 warehouse(s): tpmC 44.0" in lines
    (row,) = [line for line in lines if line.startswith("new_order ")]
    assert row.split() == ["new_order", "45", "48.9%", "45.0%", "1", "0", "0", "0"]
    assert lines[-1] == "consistency: condition_1 ok  condition_2 failed: warehouse 1 district 1: ..."
