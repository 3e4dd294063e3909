package frontend

import (
	"strings"

	"cloud.google.com/go/longrunning/autogen/longrunningpb"
	dbpb "cloud.google.com/go/spanner/admin/database/apiv1/databasepb"
	instpb "cloud.google.com/go/spanner/admin/instance/apiv1/instancepb"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc"

	"github.com/spanload/spanload/localspanner/exec"
	"github.com/spanload/spanload/localspanner/stats"
	"github.com/spanload/spanload/localspanner/storage"
	"github.com/spanload/spanload/localspanner/txn"
)

// Backend is the state every service shares.
type Backend struct {
	Reg  *storage.Registry
	Txns *txn.Manager
	Exec *exec.Engine
	ops  *operations

	// Version is the server's version, told with its identity (identity.go).
	Version string

	collector *stats.Collector
}

// dropped forgets a dropped database everywhere.
func (b *Backend) dropped(db *storage.DB) {
	b.Txns.DropDatabase(db)
	if b.collector != nil {
		b.collector.Forget(db)
	}
}

// Register registers every service of the local Spanner server on srv.
func Register(srv *grpc.Server, b *Backend) {
	b.ops = newOperations()
	spannerpb.RegisterSpannerServer(srv, &spannerServer{b: b})
	dbpb.RegisterDatabaseAdminServer(srv, &databaseAdmin{b: b})
	instpb.RegisterInstanceAdminServer(srv, &instanceAdmin{b: b})
	longrunningpb.RegisterOperationsServer(srv, &operationsServer{b: b})
}

// databaseOf returns the database part of a session name.
func databaseOf(session string) string {
	if i := strings.Index(session, "/sessions/"); i >= 0 {
		return session[:i]
	}
	return session
}
