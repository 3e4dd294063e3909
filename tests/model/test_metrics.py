"""HDR histograms: the wire encoding round-trips and merging adds counts (never averages percentiles)."""

from __future__ import annotations

import random
import threading

import pytest

from spanload.model import metrics


def _recorded(values: list[int]) -> metrics.HdrHistogram:
    h = metrics.new_histogram()
    for v in values:
        h.record_value(v)
    return h


def test_encode_decode_round_trip_keeps_every_count() -> None:
    rng = random.Random(1)
    values = [rng.randrange(1, 5_000_000) for _ in range(5000)]
    assert len(set(values)) > 4000, "the sample must spread over many buckets"
    original = _recorded(values)
    text = metrics.encode(original)
    assert text.startswith("HISTF")  # base64 of the standard compressed encoding's cookie
    decoded = metrics.decode(text)
    assert decoded.get_total_count() == 5000
    for pct in (1, 10, 25, 50, 75, 90, 99, 99.9):
        assert decoded.get_value_at_percentile(pct) == original.get_value_at_percentile(pct), pct
    assert decoded.get_min_value() == original.get_min_value()
    assert decoded.get_max_value() == original.get_max_value()
    # every recorded value is counted in the same bucket after the round trip
    for v in values[:200]:
        assert decoded.get_count_at_value(v) == original.get_count_at_value(v)


def test_merged_percentiles_are_those_of_all_values_not_an_average() -> None:
    fast = [100] * 990 + [200] * 10  # p99 = 100 us
    slow = [50_000] * 100  # p99 = 50 ms
    merged = metrics.merge([metrics.encode(_recorded(fast)), metrics.encode(_recorded(slow))])
    every = _recorded(fast + slow)
    assert merged.get_total_count() == 1100
    p = metrics.percentiles(merged)
    assert p.p99 == metrics.percentiles(every).p99
    # 100 of 1100 values are 50 ms, so the merged p99 is 50 ms; averaging the two p99s would say ~25 ms.
    assert p.p99 == pytest.approx(50.0, rel=0.001)
    assert p.p50 == pytest.approx(0.1, rel=0.01)


def test_percentiles_of_an_empty_histogram_are_none() -> None:
    p = metrics.percentiles(metrics.new_histogram())
    assert p.count == 0 and p.p50 is None and p.max is None


def test_decode_rejects_garbage_with_a_value_error() -> None:
    with pytest.raises(ValueError, match="HdrHistogram"):
        metrics.decode("not-a-histogram")


def test_recorder_hands_out_deltas_and_resets() -> None:
    recorder = metrics.Recorder()
    recorder.record("a", 10)
    recorder.record_many("a", [20, 30])
    recorder.record("b", 0)  # clamped into range, still counted
    first = recorder.take()
    assert set(first) == {"a", "b"}
    assert metrics.decode(first["a"]).get_total_count() == 3
    assert recorder.take() == {}


def test_values_outside_the_range_are_clamped_not_lost() -> None:
    assert metrics.clamp_us(-5) == metrics.LOWEST_US
    assert metrics.clamp_us(1e12) == metrics.HIGHEST_US


def test_server_timing_values_parse_and_sum_per_thread() -> None:
    from spanload.spanner import timing

    assert timing.parse_ms("gfet4t7; dur=1.25") == 1.25
    assert timing.parse_ms("afe; dur=7") == 7.0
    assert timing.parse_ms("gfet4t7") is None
    # The local server's fine header is preferred over Spanner's whole milliseconds, whatever their order.
    assert timing.header_ms([("server-timing", "gfet4t7; dur=0"), ("x-spanload-server-timing", "dur=0.412")]) == 0.412
    assert timing.header_ms([("x-spanload-server-timing", "dur=2.5"), ("server-timing", "gfet4t7; dur=2")]) == 2.5
    assert timing.header_ms([("server-timing", "gfet4t7; dur=3")]) == 3.0
    assert timing.header_ms([("other", "dur=9")]) is None
    timing.begin()
    assert timing.take() is None  # no RPC said anything


def test_server_timing_sums_a_threads_rpcs_and_keeps_other_threads_out() -> None:
    """Through the real interceptor: two threads' operations overlap RPC by RPC, and each one's total
    is the sum of its own RPCs' headers (the Commit counted, the statements kept in order)."""
    from types import SimpleNamespace

    from spanload.spanner import timing

    interceptor = timing.ServerTimingInterceptor()
    step = threading.Barrier(2)

    def rpc(method: str, ms: str, sql: str | None = None) -> None:
        call = SimpleNamespace(initial_metadata=lambda: [("x-spanload-server-timing", f"dur={ms}")])
        details = SimpleNamespace(method=f"/google.spanner.v1.Spanner/{method}")
        interceptor.intercept_unary_unary(lambda d, r: call, details, SimpleNamespace(sql=sql))
        step.wait()  # the other thread's RPC lands between this one and the next

    taken: dict[str, timing.OpParts] = {}

    def operation(name: str, rpcs: list[tuple[str, str, str | None]]) -> None:
        timing.begin()
        for method, ms, sql in rpcs:
            rpc(method, ms, sql)
        taken[name] = timing.take_parts()

    a = [("ExecuteSql", "1.5", "SELECT 1"), ("ExecuteSql", "2.25", "UPDATE T"), ("Commit", "0.5", None)]
    b = [("ExecuteSql", "10", "SELECT 2"), ("ExecuteSql", "20", "SELECT 3"), ("ExecuteSql", "40", "SELECT 4")]
    threads = [threading.Thread(target=operation, args=(n, r)) for n, r in (("a", a), ("b", b))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not [t for t in threads if t.is_alive()]
    assert (taken["a"].server_ms, taken["a"].commits, taken["a"].statements) == (4.25, 1, ["SELECT 1", "UPDATE T"])
    assert (taken["b"].server_ms, taken["b"].commits, taken["b"].statements) == (
        70.0,
        0,
        ["SELECT 2", "SELECT 3", "SELECT 4"],
    )


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_fast_percentiles_equal_the_librarys_own(seed: int) -> None:
    rng = random.Random(seed)
    h = _recorded([int(rng.lognormvariate(8, 2)) + 1 for _ in range(3000)])
    p = metrics.percentiles(h)
    expected = h.get_percentile_to_value_dict(list(metrics.PERCENTILES))
    assert [p.p50, p.p90, p.p95, p.p99, p.p999] == [expected[q] / 1000 for q in metrics.PERCENTILES]
    assert p.mean == pytest.approx(h.get_mean_value() / 1000)
    assert p.max == h.get_max_value() / 1000
