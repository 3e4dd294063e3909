package frontend

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

// IdentityHeader is the binary header with which ListInstanceConfigs says which
// server answers: JSON {"version", "pid", "data_dir"} ("" for data kept in
// memory). Spanload's launcher asks it of whatever holds the port it was to
// listen on, to use a server of its own data directory and to name any other
// (backend/spanload/spanner/local_server.py).
const IdentityHeader = "x-spanload-local-spanner-bin"

// Identity is the content of IdentityHeader.
type Identity struct {
	Version string `json:"version"`
	PID     int    `json:"pid"`
	DataDir string `json:"data_dir"`
}

func (b *Backend) identity() Identity {
	dir := b.Reg.PersistentDir()
	if dir != "" {
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
	}
	return Identity{Version: b.Version, PID: os.Getpid(), DataDir: dir}
}

// sendIdentity sets IdentityHeader on the response of the call of ctx.
func (b *Backend) sendIdentity(ctx context.Context) {
	if v, err := json.Marshal(b.identity()); err == nil {
		_ = grpc.SetHeader(ctx, metadata.Pairs(IdentityHeader, string(v)))
	}
}
