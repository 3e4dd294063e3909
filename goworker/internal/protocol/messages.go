// Package protocol is the worker protocol of backend/spanload/model/protocol.py: typed, versioned,
// newline-delimited JSON. Supervisor -> worker: start, preload, begin, patch, pause, resume,
// stop_writers, stop. Worker -> supervisor: hello, ready, preload_progress, report, writers_stopped,
// watcher_ledger, watch_switched, stopped, error.
package protocol

import "time"

// Version is PROTOCOL_VERSION; a line of another version is refused.
const Version = 1

// Message types.
const (
	TypeStart           = "start"
	TypePreload         = "preload"
	TypeBegin           = "begin"
	TypePatch           = "patch"
	TypePause           = "pause"
	TypeResume          = "resume"
	TypeStopWriters     = "stop_writers"
	TypeStop            = "stop"
	TypeHello           = "hello"
	TypeReady           = "ready"
	TypePreloadProgress = "preload_progress"
	TypeReport          = "report"
	TypeWritersStopped  = "writers_stopped"
	TypeWatcherLedger   = "watcher_ledger"
	TypeWatchSwitched   = "watch_switched"
	TypeStopped         = "stopped"
	TypeError           = "error"
)

// -- supervisor -> worker ----------------------------------------------------------------------

type Start struct {
	RunID        string    `json:"run_id"`
	Worker       int       `json:"worker"`
	Workers      int       `json:"workers"`
	Config       RunConfig `json:"config"`
	EmulatorHost *string   `json:"emulator_host"`
	SetupSchema  bool      `json:"setup_schema"`
	// RunTag and Tags are the Spanner request/transaction tags of the run and of each operation
	// (backend/spanload/model/tags.py builds them; this runtime uses them as given).
	RunTag string            `json:"run_tag"`
	Tags   map[string]string `json:"tags"`
	// WatchStreamDDL creates the stream a change_stream watch reads when the database has none of
	// that name (model/workload.py Watch.stream_ddl: its dialect's form, NEW_ROW capture with versions).
	WatchStreamDDL string `json:"watch_stream_ddl"`
}

// Preload asks for rows [Start, Start+Count) of the Rows the run's table is to hold (the load
// phase, between ready and begin); Resume: the table is not empty, skip the batches already full.
type Preload struct {
	Rows   int64 `json:"rows"`
	Start  int64 `json:"start"`
	Count  int64 `json:"count"`
	Resume bool  `json:"resume"`
}

type Begin struct {
	StartedAt float64 `json:"started_at"`
}

type Patch struct {
	Config RunConfig `json:"config"`
}

type Pause struct{}
type Resume struct{}
type StopWriters struct{}
type Stop struct{}

// -- worker -> supervisor ----------------------------------------------------------------------

type Hello struct {
	Worker   int    `json:"worker"`
	Pid      int    `json:"pid"`
	Language string `json:"language"`
	Client   string `json:"client"`
	Host     string `json:"host"`
}

type Ready struct {
	Worker int `json:"worker"`
	// TableRows is what worker 0 counted in the run's table when the config asks for a preload.
	TableRows *int64 `json:"table_rows,omitempty"`
}

// PreloadProgressEvery is how often a worker tells how far its load is (PRELOAD_PROGRESS_EVERY_S).
const PreloadProgressEvery = 500 * time.Millisecond

// PreloadProgress is how far a worker is in its share of the load phase: cumulative, not deltas.
type PreloadProgress struct {
	Worker      int   `json:"worker"`
	RowsDone    int64 `json:"rows_done"`
	RowsSkipped int64 `json:"rows_skipped"`
	Done        bool  `json:"done"`
	// CPUS is the CPU seconds the process used since the preload arrived.
	CPUS *float64 `json:"cpu_s"`
}

// Report holds the deltas of one report interval.
type Report struct {
	Worker       int                `json:"worker"`
	Seq          int                `json:"seq"`
	T            float64            `json:"t"`
	IntervalS    float64            `json:"interval_s"`
	Counters     map[string]int64   `json:"counters"`
	Gauges       map[string]float64 `json:"gauges"`
	ErrorsByCode map[string]int64   `json:"errors_by_code"`
	Hdr          map[string]string  `json:"hdr"`
	Final        bool               `json:"final"`
	// CPUS is the process's cumulative CPU seconds since begin (not a delta); nil: not measured.
	CPUS *float64 `json:"cpu_s"`
	// Timings are each operation kind's breakdown sums of this interval (model/breakdown.py).
	Timings map[string]*OpTiming `json:"timings,omitempty"`
	// SysLatencies are SPANNER_SYS statement and commit latencies, when read anew (worker 0).
	SysLatencies *SysLatencies `json:"sys_latencies,omitempty"`
	// SysIntervalEnd is the end (unix seconds) of the SPANNER_SYS minute the minute gauges and
	// SysLatencies come from; the aggregator keeps them only for a minute inside the run.
	SysIntervalEnd *float64 `json:"sys_interval_end,omitempty"`
	// SysError is why the last read of SPANNER_SYS failed ("": it read, or reads none).
	SysError string `json:"sys_error,omitempty"`
}

// SysLatencies are the SPANNER_SYS averages of the last complete minute (model.breakdown).
type SysLatencies struct {
	QueryS  map[string]float64 `json:"query_s"`
	CommitS *float64           `json:"commit_s"`
}

// Session wait states of an OpTiming (model.breakdown.SessionWait).
const (
	SessionWaitMeasured      = "measured"
	SessionWaitNotApplicable = "not_applicable"
	SessionWaitNotMeasured   = "not_measured"
)

// OpTiming sums the parts of the successful operations of one kind in one interval, in
// microseconds (model.breakdown.OpTiming).
type OpTiming struct {
	Count       int64            `json:"count"`
	TotalUS     float64          `json:"total_us"`
	QueueUS     float64          `json:"queue_us"`
	SessionUS   float64          `json:"session_us"`
	SessionWait string           `json:"session_wait"`
	ServerUS    float64          `json:"server_us"`
	ServerCount int64            `json:"server_count"`
	Statements  map[string]int64 `json:"statements"`
	Commits     int64            `json:"commits"`
}

// WritersStopped carries the write ledger rows of a definition's operations [key, last_version, versions_committed].
type WritersStopped struct {
	Worker        int        `json:"worker"`
	WriterID      string     `json:"writer_id"`
	Ledger        [][3]int64 `json:"ledger"`
	UncertainKeys []int64    `json:"uncertain_keys"`
	// new keys (fresh_key) committed, and of unknown outcome: ranges [lo, hi) of their numbers
	FreshCommitted [][2]int64 `json:"fresh_committed,omitempty"`
	FreshUncertain [][2]int64 `json:"fresh_uncertain,omitempty"`
}

// WatcherLedger carries rows [key, highest_version, distinct_versions].
type WatcherLedger struct {
	Worker     int        `json:"worker"`
	Received   [][3]int64 `json:"received"`
	Duplicates int64      `json:"duplicates"`
	Foreign    int64      `json:"foreign"`
	// worker -> ranges [lo, hi) of the numbers of its new keys received
	FreshReceived map[int][][2]int64 `json:"fresh_received,omitempty"`
}

// WatchSwitched: the definition's watch switched mode live; the old way received the changes
// committed up to Handover (RFC 3339), the new one those after it. Error: the switch failed and
// the watch goes on the old way.
type WatchSwitched struct {
	Worker   int    `json:"worker"`
	Mode     string `json:"mode"`
	Previous string `json:"previous"`
	Handover string `json:"handover"`
	Error    string `json:"error,omitempty"`
}

type Stopped struct {
	Worker int `json:"worker"`
}

type Error struct {
	Worker  int    `json:"worker"`
	Message string `json:"message"`
	Fatal   bool   `json:"fatal"`
}
