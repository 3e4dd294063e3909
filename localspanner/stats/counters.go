package stats

import (
	"encoding/json"
	"syscall"
	"time"
)

// CountersTable is a local-server table (Spanner has none like it): one row of
// running totals since the server started, which a poller turns into figures per
// interval of any length by taking differences. The TXN_STATS tables give the same
// commit figures per closed minute, as Spanner does.
//
//	COMMIT_COUNT            committed read-write transactions of this database
//	PARTICIPANTS            the sum of their participants (splits touched)
//	COMMIT_LATENCY_SECONDS  the sum of their commit latencies, as the server timed them
//	MODEL_CPU_SECONDS       CPU the latency model charged this database's commits
//	PROCESS_CPU_SECONDS     the server process's own CPU time (user + system), all databases
//	SPLITS                  the splits of this database's tables and indexes now
const CountersTable = "SPANLOAD_COUNTERS"

var countersCols = []column{
	col("COMMIT_COUNT", tInt64), col("PARTICIPANTS", tInt64),
	col("COMMIT_LATENCY_SECONDS", tFloat64), col("MODEL_CPU_SECONDS", tFloat64),
	col("PROCESS_CPU_SECONDS", tFloat64), col("SPLITS", tInt64),
}

type totals struct {
	commits, participants  int64
	commitSec, modelCPUSec float64
}

// ProcessCPUSeconds is the CPU time the server process has used (user + system).
func ProcessCPUSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

func (t *Tables) countersJSON() string {
	s := t.c.of(t.db)
	s.mu.Lock()
	tot := s.totals
	s.mu.Unlock()
	row := []any{tot.commits, tot.participants, jfloat(tot.commitSec), jfloat(tot.modelCPUSec), jfloat(ProcessCPUSeconds()), t.db.SplitCount()}
	b, err := json.Marshal([][]any{row})
	if err != nil {
		return "[]"
	}
	return string(b)
}
