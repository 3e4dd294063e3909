package protocol

import (
	"encoding/json"
	"fmt"
)

// RunConfig mirrors backend/spanload/model/config.py, the fields a definition's run reads. The
// supervisor always sends the whole, already validated config, so the worker never applies
// defaults or bounds of its own; the fixed sections of the report workloads (updater, watcher,
// reader) are not read: the control plane turns such a config into its definition's run.
type RunConfig struct {
	Name            *string      `json:"name"`
	Preset          *string      `json:"preset"`
	Target          Target       `json:"target"`
	DurationS       *float64     `json:"duration_s"`
	Workload        string       `json:"workload"`
	Schema          string       `json:"schema"` // the old name of Workload (singers, tweets, leaderboard)
	Processes       int          `json:"processes"`
	Runtime         string       `json:"runtime"`
	ReportIntervalS float64      `json:"report_interval_s"`
	Client          ClientConfig `json:"client"`
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

// CheckDefinition says why the Go worker cannot run the config: the control plane turns every
// report workload's config into its definition's run (model/builtin_convert.py) before any worker
// starts, and TPC-C is Python-only.
func (c RunConfig) CheckDefinition() error {
	switch c.Workload {
	case WorkloadDefinition:
		return nil
	case "tpcc":
		return fmt.Errorf("workload tpcc is not implemented by the Go worker (runtime go); run it with runtime python")
	case "":
		return fmt.Errorf("the Go worker runs workload definitions; a config of schema %q (no workload) reached it unconverted", c.Schema)
	}
	return fmt.Errorf("the Go worker runs workload definitions; workload %q reached it unconverted", c.Workload)
}
