package frontend

import (
	"context"
	"strings"
	"time"

	"cloud.google.com/go/longrunning/autogen/longrunningpb"
	dbpb "cloud.google.com/go/spanner/admin/database/apiv1/databasepb"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/spanload/spanload/localspanner/exec"
	"github.com/spanload/spanload/localspanner/internal/spanerr"
	"github.com/spanload/spanload/localspanner/schema"
	"github.com/spanload/spanload/localspanner/storage"
)

// databaseAdmin serves google.spanner.admin.database.v1.DatabaseAdmin.
type databaseAdmin struct {
	dbpb.UnimplementedDatabaseAdminServer
	b *Backend
}

func databasePB(db *storage.DB) *dbpb.Database {
	pb := &dbpb.Database{
		Name:                   db.Name,
		State:                  dbpb.Database_READY,
		CreateTime:             timestamppb.New(db.Created),
		VersionRetentionPeriod: "1h",
		EarliestVersionTime:    timestamppb.New(earliestVersion(db, time.Now())),
		DatabaseDialect:        dialectPB(db.Dialect()),
	}
	cat := db.Catalog()
	if o, ok := cat.Option("version_retention_period"); ok {
		pb.VersionRetentionPeriod = o.Value
	}
	if o, ok := cat.Option("default_leader"); ok {
		pb.DefaultLeader = o.Value
	}
	return pb
}

// earliestVersion is the earliest time whose versions of the data can still be
// read: the database's version retention period ago, or its creation if later.
func earliestVersion(db *storage.DB, now time.Time) time.Time {
	if t := now.Add(-db.Retention()); t.After(db.Created) {
		return t
	}
	return db.Created
}

// createStatementName returns the database ID of "CREATE DATABASE `name`".
func createStatementName(stmt string) (string, error) {
	f := strings.Fields(stmt)
	if len(f) != 3 || !strings.EqualFold(f[0], "CREATE") || !strings.EqualFold(f[1], "DATABASE") {
		return "", spanerr.InvalidArgument("Invalid create statement: %q; want CREATE DATABASE name", stmt)
	}
	return strings.Trim(f[2], "`\""), nil
}

func (s *databaseAdmin) CreateDatabase(ctx context.Context, req *dbpb.CreateDatabaseRequest) (*longrunningpb.Operation, error) {
	dialect, err := requestDialect(req)
	if err != nil {
		return nil, err
	}
	id, err := createStatementName(req.CreateStatement)
	if err != nil {
		return nil, err
	}
	name := req.Parent + "/databases/" + id
	db, err := s.b.Reg.CreateDatabase(name)
	if err != nil {
		return nil, err
	}
	if err := db.SetDialect(ctx, dialect); err != nil {
		if _, derr := s.b.Reg.DropDatabase(name); derr != nil {
			return nil, derr
		}
		return nil, err
	}
	meta := &dbpb.CreateDatabaseMetadata{Database: name}
	if _, err := exec.ApplyDDL(ctx, db, req.ExtraStatements, req.ProtoDescriptors); err != nil {
		if _, derr := s.b.Reg.DropDatabase(name); derr != nil {
			return nil, derr
		}
		// The call itself fails, as in Cloud Spanner and the emulator (whose handler
		// returns the schema's error before it makes an operation): no database, no
		// operation to poll.
		return nil, err
	}
	return s.b.ops.finish(name, meta, databasePB(db), nil)
}

func (s *databaseAdmin) GetDatabase(_ context.Context, req *dbpb.GetDatabaseRequest) (*dbpb.Database, error) {
	db, err := s.b.Reg.Database(req.Name)
	if err != nil {
		return nil, err
	}
	return databasePB(db), nil
}

func (s *databaseAdmin) ListDatabases(_ context.Context, req *dbpb.ListDatabasesRequest) (*dbpb.ListDatabasesResponse, error) {
	dbs, err := s.b.Reg.Databases(req.Parent)
	if err != nil {
		return nil, err
	}
	resp := &dbpb.ListDatabasesResponse{}
	for _, db := range dbs {
		resp.Databases = append(resp.Databases, databasePB(db))
	}
	return resp, nil
}

func (s *databaseAdmin) DropDatabase(_ context.Context, req *dbpb.DropDatabaseRequest) (*emptypb.Empty, error) {
	db, err := s.b.Reg.DropDatabase(req.Database)
	if db != nil {
		s.b.dropped(db)
	}
	if err != nil {
		return nil, err
	}
	return &emptypb.Empty{}, nil
}

func (s *databaseAdmin) UpdateDatabaseDdl(ctx context.Context, req *dbpb.UpdateDatabaseDdlRequest) (*longrunningpb.Operation, error) {
	db, err := s.b.Reg.Database(req.Database)
	if err != nil {
		return nil, err
	}
	if len(req.Statements) == 0 {
		return nil, spanerr.InvalidArgument("UpdateDatabaseDdl needs at least one statement.")
	}
	opName := ""
	if req.OperationId != "" {
		if opName, err = s.b.ops.reserve(req.Database, req.OperationId); err != nil {
			return nil, err
		}
	}
	received := timestamppb.Now()
	var stamps []*timestamppb.Timestamp // each applied statement's commit timestamp
	ctx = storage.WithDDLCommitted(ctx, func(ts int64) { stamps = append(stamps, timestamppb.New(time.UnixMicro(ts))) })
	n, err := exec.ApplyDDL(ctx, db, req.Statements, req.ProtoDescriptors)
	if n == 0 && spanerr.IsSyntax(err) {
		// Spanner rejects a batch that does not parse before it makes an operation.
		if opName != "" {
			s.b.ops.release(opName)
		}
		return nil, err
	}
	// Spanner's metadata: the commit timestamps of the statements applied so far, and per statement
	// when the request was received and when the statement completed (or failed).
	meta := &dbpb.UpdateDatabaseDdlMetadata{Database: req.Database, Statements: req.Statements, CommitTimestamps: stamps}
	now := timestamppb.Now()
	meta.Progress = make([]*dbpb.OperationProgress, len(req.Statements))
	for i := range req.Statements {
		p := &dbpb.OperationProgress{StartTime: received}
		switch {
		case i < n && i < len(stamps):
			p.ProgressPercent, p.EndTime = 100, stamps[i]
		case i == n && err != nil:
			p.EndTime = now
		}
		meta.Progress[i] = p
	}
	if opName != "" {
		return s.b.ops.finishNamed(opName, meta, nil, err)
	}
	return s.b.ops.finish(req.Database, meta, nil, err)
}

func (s *databaseAdmin) GetDatabaseDdl(_ context.Context, req *dbpb.GetDatabaseDdlRequest) (*dbpb.GetDatabaseDdlResponse, error) {
	db, err := s.b.Reg.Database(req.Database)
	if err != nil {
		return nil, err
	}
	resp := &dbpb.GetDatabaseDdlResponse{Statements: db.DDL()}
	if db.Dialect() == schema.PostgreSQL {
		resp.Statements = db.Catalog().RenderPG()
	}
	if b := db.Catalog().Protos(); b != nil {
		resp.ProtoDescriptors = b.Descriptors
	}
	return resp, nil
}
