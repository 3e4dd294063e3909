// Package serverstats reads SPANNER_SYS statistics into gauges (spanner/stats.py): the poll
// query's average latency and CPU share from QUERY_STATS_TOP_MINUTE, the average commit
// latency and participants from TXN_STATS_TOP_MINUTE, and (the local Spanner only) the
// interval's participants, commit latency, server CPU and splits from the running totals of
// SPANLOAD_COUNTERS. A target without a table goes quiet.
//
// A read keeps the figures of one minute, the newest either table has, and says which (its
// INTERVAL_END); whether that minute belongs to the run is the aggregator's call
// (model/server_minute.py), not the worker's. A reader given the run's tag keeps only the rows
// that carry it (REQUEST_TAG, TRANSACTION_TAG), so another application's or a previous run's
// statements never count as this run's.
package serverstats

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"cloud.google.com/go/spanner"
	"google.golang.org/api/iterator"
	"google.golang.org/grpc/codes"

	"github.com/spanload/spanload/goworker/internal/protocol"
)

// SampleEvery is how often the tables are read: they change once a minute.
const SampleEvery = 10 * time.Second

const minuteS = 60.0

const (
	querySQL = "SELECT TEXT, EXECUTION_COUNT, AVG_LATENCY_SECONDS, AVG_CPU_SECONDS, INTERVAL_END, REQUEST_TAG " +
		"FROM SPANNER_SYS.QUERY_STATS_TOP_MINUTE " +
		"WHERE INTERVAL_END = (SELECT MAX(INTERVAL_END) FROM SPANNER_SYS.QUERY_STATS_TOP_MINUTE)"
	txnSQL = "SELECT COMMIT_ATTEMPT_COUNT, AVG_COMMIT_LATENCY_SECONDS, AVG_PARTICIPANTS, INTERVAL_END, TRANSACTION_TAG " +
		"FROM SPANNER_SYS.TXN_STATS_TOP_MINUTE " +
		"WHERE INTERVAL_END = (SELECT MAX(INTERVAL_END) FROM SPANNER_SYS.TXN_STATS_TOP_MINUTE)"
	countersSQL = "SELECT COMMIT_COUNT, PARTICIPANTS, COMMIT_LATENCY_SECONDS, MODEL_CPU_SECONDS, " +
		"PROCESS_CPU_SECONDS, SPLITS FROM SPANNER_SYS.SPANLOAD_COUNTERS"
)

// QueryStat is one row of QUERY_STATS_TOP_MINUTE.
type QueryStat struct {
	Text                 string
	Executions           int64
	AvgLatencyS, AvgCPUS float64
	End                  time.Time
}

// PollQueryGauges are the latency and CPU share of the queries whose text starts like the poll.
func PollQueryGauges(rows []QueryStat, prefix string, out map[string]float64) {
	var executions int64
	var latency, cpu float64
	for _, r := range rows {
		if strings.HasPrefix(strings.TrimSpace(r.Text), prefix) {
			executions += r.Executions
			latency += float64(r.Executions) * r.AvgLatencyS
			cpu += float64(r.Executions) * r.AvgCPUS
		}
	}
	if executions == 0 {
		return
	}
	out[protocol.GaugeServerPollAvgLatencyS] = latency / float64(executions)
	out[protocol.GaugeServerPollCPUFraction] = cpu / minuteS
}

// TxnStat is one row of TXN_STATS_TOP_MINUTE.
type TxnStat struct {
	Commits                     int64
	AvgCommitS, AvgParticipants float64
	End                         time.Time
}

// Minute is what one read of the minute tables gave: the gauges and latencies of one minute, and
// the end of that minute (nil: neither table had a minute).
type Minute struct {
	Gauges    map[string]float64
	End       *float64 // unix seconds
	Latencies *protocol.SysLatencies
}

// newest returns the rows of the newest minute of either table, and its end.
func newest(queries []QueryStat, txns []TxnStat) ([]QueryStat, []TxnStat, *time.Time) {
	var end *time.Time
	for _, q := range queries {
		if end == nil || q.End.After(*end) {
			e := q.End
			end = &e
		}
	}
	for _, t := range txns {
		if end == nil || t.End.After(*end) {
			e := t.End
			end = &e
		}
	}
	if end == nil {
		return nil, nil, nil
	}
	var qs []QueryStat
	for _, q := range queries {
		if q.End.Equal(*end) {
			qs = append(qs, q)
		}
	}
	var ts []TxnStat
	for _, t := range txns {
		if t.End.Equal(*end) {
			ts = append(ts, t)
		}
	}
	return qs, ts, end
}

// TxnGauges are the commit-weighted average commit latency and participants.
func TxnGauges(rows []TxnStat, out map[string]float64) {
	var commits int64
	var latency, participants float64
	for _, r := range rows {
		commits += r.Commits
		latency += float64(r.Commits) * r.AvgCommitS
		participants += float64(r.Commits) * r.AvgParticipants
	}
	if commits == 0 {
		return
	}
	out[protocol.GaugeServerTxnAvgCommitLatencyS] = latency / float64(commits)
	out[protocol.GaugeServerTxnAvgParticipants] = participants / float64(commits)
}

// Counters is one read of SPANLOAD_COUNTERS (running totals since the server started), and when
// it was taken.
type Counters struct {
	At                              time.Time
	Commits, Participants           int64
	CommitS, ModelCPUS, ProcessCPUS float64
	Splits                          int64
}

// CounterGauges are the gauges of the interval between two reads (prev nil: the first read). An
// interval without commits has no per-commit gauges (missing, not zero), and a server that
// restarted in between (its totals went down) gives only the split count until the next read.
func CounterGauges(prev *Counters, cur Counters, out map[string]float64) {
	out[protocol.GaugeServerSplits] = float64(cur.Splits)
	if prev == nil {
		return
	}
	elapsed := cur.At.Sub(prev.At).Seconds()
	commits := cur.Commits - prev.Commits
	cpu := (cur.ProcessCPUS - prev.ProcessCPUS) + (cur.ModelCPUS - prev.ModelCPUS)
	if elapsed <= 0 || commits < 0 || cpu < 0 {
		return
	}
	out[protocol.GaugeServerCPUFraction] = cpu / elapsed
	if commits > 0 {
		n := float64(commits)
		out[protocol.GaugeServerCommitParticipants] = float64(cur.Participants-prev.Participants) / n
		out[protocol.GaugeServerCommitLatencyS] = (cur.CommitS - prev.CommitS) / n
		out[protocol.GaugeServerCPUPerCommitMs] = cpu / n * 1000
	}
}

// Reader reads the tables, and stops asking for a table the target does not have.
type Reader struct {
	mu          sync.Mutex
	runTag      string // "": every row counts
	prefix      string
	unavailable map[string]bool
	counters    *Counters // the previous read of SPANLOAD_COUNTERS
}

func NewReader(prefix, runTag string) *Reader {
	return &Reader{prefix: prefix, runTag: runTag, unavailable: map[string]bool{}}
}

// RunsTag says whether a row's tag is one of the run's: the run's own tag, or one of its
// operations' (run tag + "-" + operation). The same rule as backend/spanload/model/tags.is_runs;
// TestRunsTag and tests/engine/test_server_minute_rule.py check the same cases.
func RunsTag(tag, runTag string) bool {
	return tag != "" && (tag == runTag || strings.HasPrefix(tag, runTag+"-"))
}

func (r *Reader) mine(tag spanner.NullString) bool {
	return r.runTag == "" || RunsTag(tag.StringVal, r.runTag)
}

func (r *Reader) SetPrefix(prefix string) {
	r.mu.Lock()
	r.prefix = prefix
	r.mu.Unlock()
}

// Read returns the gauges of the newest minute either table has, with its end.
func (r *Reader) Read(ctx context.Context, client *spanner.Client) (Minute, error) {
	r.mu.Lock()
	prefix := r.prefix
	r.mu.Unlock()
	var queries []QueryStat
	err := r.query(ctx, client, "QUERY_STATS_TOP_MINUTE", querySQL, func(row *spanner.Row) error {
		var text spanner.NullString
		var n spanner.NullInt64
		var lat, cpu spanner.NullFloat64
		var end spanner.NullTime
		var tag spanner.NullString
		if err := row.Columns(&text, &n, &lat, &cpu, &end, &tag); err != nil {
			return err
		}
		if end.Valid && r.mine(tag) {
			queries = append(queries, QueryStat{text.StringVal, n.Int64, lat.Float64, cpu.Float64, end.Time})
		}
		return nil
	})
	if err != nil {
		return Minute{}, err
	}
	var txns []TxnStat
	err = r.query(ctx, client, "TXN_STATS_TOP_MINUTE", txnSQL, func(row *spanner.Row) error {
		var n spanner.NullInt64
		var lat, parts spanner.NullFloat64
		var end spanner.NullTime
		var tag spanner.NullString
		if err := row.Columns(&n, &lat, &parts, &end, &tag); err != nil {
			return err
		}
		if end.Valid && r.mine(tag) {
			txns = append(txns, TxnStat{n.Int64, lat.Float64, parts.Float64, end.Time})
		}
		return nil
	})
	if err != nil {
		return Minute{}, err
	}
	return MinuteOf(queries, txns, prefix), nil
}

// MinuteOf turns both tables' rows into the gauges and latencies of their newest minute.
func MinuteOf(queries []QueryStat, txns []TxnStat, prefix string) Minute {
	out := Minute{Gauges: map[string]float64{}}
	queries, txns, end := newest(queries, txns)
	if end == nil {
		return out
	}
	unix := float64(end.UnixNano()) / 1e9
	out.End = &unix
	PollQueryGauges(queries, prefix, out.Gauges)
	latencies := &protocol.SysLatencies{QueryS: QueryLatencies(queries)}
	TxnGauges(txns, out.Gauges)
	if commit, ok := out.Gauges[protocol.GaugeServerTxnAvgCommitLatencyS]; ok {
		latencies.CommitS = &commit
	}
	if len(latencies.QueryS) > 0 || latencies.CommitS != nil {
		out.Latencies = latencies
	}
	return out
}

// QueryLatencies are each statement text's average latency, for the breakdown (stats.py's
// query_latencies). A tagged row groups every statement of its tag under one of their texts, so a
// text that two rows show says nothing certain about that statement: it is left out.
func QueryLatencies(rows []QueryStat) map[string]float64 {
	out := map[string]float64{}
	seen := map[string]bool{}
	for _, q := range rows {
		if q.Executions == 0 {
			continue
		}
		text := strings.TrimSpace(q.Text)
		if seen[text] {
			delete(out, text)
			continue
		}
		seen[text] = true
		out[text] = q.AvgLatencyS
	}
	return out
}

// ReadCounters returns the interval's gauges from SPANLOAD_COUNTERS since the previous call
// (none on a target without the table).
func (r *Reader) ReadCounters(ctx context.Context, client *spanner.Client) (map[string]float64, error) {
	out := map[string]float64{}
	var cur *Counters
	err := r.query(ctx, client, "SPANLOAD_COUNTERS", countersSQL, func(row *spanner.Row) error {
		var commits, participants, splits spanner.NullInt64
		var commitS, modelCPU, processCPU spanner.NullFloat64
		if err := row.Columns(&commits, &participants, &commitS, &modelCPU, &processCPU, &splits); err != nil {
			return err
		}
		cur = &Counters{time.Now(), commits.Int64, participants.Int64, commitS.Float64, modelCPU.Float64,
			processCPU.Float64, splits.Int64}
		return nil
	})
	if err != nil || cur == nil {
		return out, err
	}
	r.mu.Lock()
	prev := r.counters
	r.counters = cur
	r.mu.Unlock()
	CounterGauges(prev, *cur, out)
	return out, nil
}

func (r *Reader) query(ctx context.Context, client *spanner.Client, table, sql string, each func(*spanner.Row) error) error {
	r.mu.Lock()
	skip := r.unavailable[table]
	r.mu.Unlock()
	if skip {
		return nil
	}
	it := client.Single().Query(ctx, spanner.NewStatement(sql))
	defer it.Stop()
	for {
		row, err := it.Next()
		if errors.Is(err, iterator.Done) {
			return nil
		}
		if err != nil {
			switch spanner.ErrCode(err) {
			case codes.InvalidArgument, codes.NotFound, codes.Unimplemented, codes.FailedPrecondition:
				slog.Info("SPANNER_SYS table is not available on this target", "table", table, "err", err)
				r.mu.Lock()
				r.unavailable[table] = true
				r.mu.Unlock()
				return nil
			}
			return fmt.Errorf("read SPANNER_SYS.%s: %w", table, err)
		}
		if err := each(row); err != nil {
			return fmt.Errorf("decode SPANNER_SYS.%s: %w", table, err)
		}
	}
}
