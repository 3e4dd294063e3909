package nullspanner

import (
	"context"
	"strings"
	"sync"

	"cloud.google.com/go/longrunning/autogen/longrunningpb"
	dbpb "cloud.google.com/go/spanner/admin/database/apiv1/databasepb"
	instpb "cloud.google.com/go/spanner/admin/instance/apiv1/instancepb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/emptypb"
)

// admin answers the instance and database admin calls a worker makes at setup. Every instance
// and database exists; the DDL a database was sent is remembered, so that a client that checks
// its schema after UpdateDatabaseDdl finds it there. Operations are done at once.
type admin struct {
	dbpb.UnimplementedDatabaseAdminServer

	mu  sync.Mutex
	ddl map[string][]string // database name -> statements
}

func done(name string, response, metadata proto.Message) (*longrunningpb.Operation, error) {
	op := &longrunningpb.Operation{Name: name + "/operations/done", Done: true}
	if metadata != nil {
		md, err := anypb.New(metadata)
		if err != nil {
			return nil, err
		}
		op.Metadata = md
	}
	res, err := anypb.New(response)
	if err != nil {
		return nil, err
	}
	op.Result = &longrunningpb.Operation_Response{Response: res}
	return op, nil
}

// instances answers the instance admin calls: every instance exists.
type instances struct {
	instpb.UnimplementedInstanceAdminServer
}

// operations answers GetOperation: every operation is done.
type operations struct {
	longrunningpb.UnimplementedOperationsServer
}

func (instances) GetInstance(_ context.Context, req *instpb.GetInstanceRequest) (*instpb.Instance, error) {
	return &instpb.Instance{Name: req.Name, DisplayName: req.Name, NodeCount: 1, State: instpb.Instance_READY}, nil
}

func (instances) CreateInstance(_ context.Context, req *instpb.CreateInstanceRequest) (*longrunningpb.Operation, error) {
	name := req.Parent + "/instances/" + req.InstanceId
	return done(name, &instpb.Instance{Name: name, NodeCount: 1, State: instpb.Instance_READY}, nil)
}

func (a *admin) database(name string) *dbpb.Database {
	return &dbpb.Database{Name: name, State: dbpb.Database_READY}
}

func (a *admin) GetDatabase(_ context.Context, req *dbpb.GetDatabaseRequest) (*dbpb.Database, error) {
	return a.database(req.Name), nil
}

func (a *admin) CreateDatabase(_ context.Context, req *dbpb.CreateDatabaseRequest) (*longrunningpb.Operation, error) {
	id := strings.Trim(strings.TrimPrefix(strings.TrimSpace(req.CreateStatement), "CREATE DATABASE"), " `")
	name := req.Parent + "/databases/" + id
	a.remember(name, req.ExtraStatements)
	return done(name, a.database(name), &dbpb.CreateDatabaseMetadata{Database: name})
}

func (a *admin) GetDatabaseDdl(_ context.Context, req *dbpb.GetDatabaseDdlRequest) (*dbpb.GetDatabaseDdlResponse, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return &dbpb.GetDatabaseDdlResponse{Statements: append([]string(nil), a.ddl[req.Database]...)}, nil
}

func (a *admin) UpdateDatabaseDdl(_ context.Context, req *dbpb.UpdateDatabaseDdlRequest) (*longrunningpb.Operation, error) {
	a.remember(req.Database, req.Statements)
	return done(req.Database, &emptypb.Empty{}, &dbpb.UpdateDatabaseDdlMetadata{Database: req.Database, Statements: req.Statements})
}

func (a *admin) remember(database string, statements []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ddl == nil {
		a.ddl = map[string][]string{}
	}
	a.ddl[database] = append(a.ddl[database], statements...)
}

func (operations) GetOperation(_ context.Context, req *longrunningpb.GetOperationRequest) (*longrunningpb.Operation, error) {
	op, err := done("", &emptypb.Empty{}, nil)
	if op != nil {
		op.Name = req.Name
	}
	return op, err
}
