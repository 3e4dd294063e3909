package protocol

import (
	"encoding/json"
	"fmt"
)

// RunConfig mirrors backend/spanload/model/config.py. The supervisor always sends the whole,
// already validated config, so the worker never applies defaults or bounds of its own.
type RunConfig struct {
	Name            *string       `json:"name"`
	Preset          *string       `json:"preset"`
	Target          Target        `json:"target"`
	DurationS       *float64      `json:"duration_s"`
	Workload        string        `json:"workload"`
	Schema          string        `json:"schema"` // the old name of Workload (singers, tweets, leaderboard)
	Processes       int           `json:"processes"`
	Runtime         string        `json:"runtime"`
	ReportIntervalS float64       `json:"report_interval_s"`
	Preload         PreloadConfig `json:"preload"`
	Updater         UpdaterConfig `json:"updater"`
	Watcher         WatcherConfig `json:"watcher"`
	Reader          ReaderConfig  `json:"reader"`
	Client          ClientConfig  `json:"client"`
	// Definition is workload "definition"'s workload, in the user's form (interp decodes it).
	Definition json.RawMessage `json:"definition,omitempty"`
	// Knobs are the definition's knob values; unset knobs keep their defaults.
	Knobs map[string]json.RawMessage `json:"knobs,omitempty"`
	// Operations are per-operation pacing overrides (model/pacing.py OperationPacing).
	Operations map[string]OperationPacing `json:"operations,omitempty"`
	// Seed is the generators' seed (nil: 0).
	Seed *uint64 `json:"seed,omitempty"`
}

// WorkloadDefinition is the workload of a config that carries a definition.
const WorkloadDefinition = "definition"

// OperationPacing overrides one operation's pacing; nil fields keep the definition's.
type OperationPacing struct {
	Enabled     *bool    `json:"enabled,omitempty"`
	Rate        *float64 `json:"rate,omitempty"`
	MaxInFlight *int     `json:"max_in_flight,omitempty"`
	Concurrency *int     `json:"concurrency,omitempty"`
	ThinkTimeMs *float64 `json:"think_time_ms,omitempty"`
}

// PreloadConfig is the load phase: fill the run's table up to Rows rows before the measured phase.
type PreloadConfig struct {
	Rows int64 `json:"rows"`
}

// Target kinds.
const (
	TargetLocal    = "local"
	TargetEmulator = "emulator"
	TargetCloud    = "cloud"
)

type Target struct {
	Kind         string  `json:"kind"`
	EmulatorHost *string `json:"emulator_host"`
	Project      string  `json:"project"`
	Instance     string  `json:"instance"`
	Database     string  `json:"database"`
	// LatencyModel is the local Spanner's database option spanload_latency_model (local only).
	LatencyModel string `json:"latency_model"`
}

// Updater modes.
const (
	ModeMutations   = "mutations"
	ModeDML         = "dml"
	ModeBatchInsert = "batch_insert"
)

type UpdaterConfig struct {
	Enabled                 bool    `json:"enabled"`
	TransactionsPerSecond   float64 `json:"transactions_per_second"`
	MutationsPerTransaction int     `json:"mutations_per_transaction"`
	Parallelism             int     `json:"parallelism"`
	Mode                    string  `json:"mode"`
	BatchRows               int     `json:"batch_rows"`
	KeySpace                int64   `json:"key_space"`
}

// Shard filters of the watcher's poll query.
const (
	ShardFixed   = "fixed"
	ShardNotNull = "not_null"
	ShardNone    = "none"
)

type WatcherConfig struct {
	Enabled        bool   `json:"enabled"`
	Watchers       int    `json:"watchers"`
	PollIntervalMs int    `json:"poll_interval_ms"`
	Limit          int64  `json:"limit"`
	TableHint      bool   `json:"table_hint"`
	ShardFilter    string `json:"shard_filter"`
}

// Reader queries.
const (
	QueryPoint         = "point"
	QueryRecentChanges = "recent_changes"
	QueryLeaderboard   = "leaderboard"
)

type ReaderConfig struct {
	Enabled        bool    `json:"enabled"`
	ReadsPerSecond float64 `json:"reads_per_second"`
	Concurrency    int     `json:"concurrency"`
	ThinkTimeMs    int     `json:"think_time_ms"`
	Query          string  `json:"query"`
	StalenessS     float64 `json:"staleness_s"`
}

type ClientConfig struct {
	// Interface is how the worker speaks to Spanner (InterfaceGooglesql, InterfacePostgresql,
	// InterfacePgadapter); "" is googlesql.
	Interface string `json:"interface"`
	// PgadapterHost is the host:port of the PGAdapter the pgadapter interface speaks to (the engine
	// starts one for the run and sets it).
	PgadapterHost       *string `json:"pgadapter_host"`
	MultiplexedSessions bool    `json:"multiplexed_sessions"`
	SessionPoolSize     int     `json:"session_pool_size"`
	// TimeoutMs is the per-operation deadline, where the config has one (absent: none).
	TimeoutMs *float64 `json:"timeout_ms,omitempty"`
}

// The schema of each workload the Go worker runs (model/config.py WORKLOAD_SCHEMAS).
var workloadSchemas = map[string]string{
	"change_watcher":  "singers",
	"write_benchmark": "tweets",
	"session_pool":    "leaderboard",
	"participants":    "usertable",
}

// SchemaKind is the schema of the run's workload: "singers", "tweets" or "leaderboard". A
// config from an older supervisor names the schema itself. TPC-C is Python-only: an error says so.
func (c RunConfig) SchemaKind() (string, error) {
	if c.Workload == "" {
		return c.Schema, nil
	}
	if kind, ok := workloadSchemas[c.Workload]; ok {
		return kind, nil
	}
	if c.Workload == WorkloadDefinition {
		return "", nil // no schema of its own: the definition's DDL, run by the control plane
	}
	if c.Workload == "tpcc" {
		return "", fmt.Errorf("workload tpcc is not implemented by the Go worker (runtime go); run it with runtime python")
	}
	return "", fmt.Errorf("unknown workload %q", c.Workload)
}
