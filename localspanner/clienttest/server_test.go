// Package clienttest drives the local Spanner server with the official Go client
// (cloud.google.com/go/spanner) over gRPC, to show that it serves the protocol and
// not one client's habits.
package clienttest

import (
	"context"
	"fmt"
	"net"
	"testing"

	"cloud.google.com/go/spanner"
	database "cloud.google.com/go/spanner/admin/database/apiv1"
	"cloud.google.com/go/spanner/admin/database/apiv1/databasepb"
	instance "cloud.google.com/go/spanner/admin/instance/apiv1"
	"cloud.google.com/go/spanner/admin/instance/apiv1/instancepb"

	"github.com/spanload/spanload/localspanner/frontend"
	"github.com/spanload/spanload/localspanner/storage"
)

const project = "projects/go-client"

// startServer runs the server in-process on a free port (in-memory data) and
// points the Go client at it through SPANNER_EMULATOR_HOST.
func startServer(t *testing.T) {
	t.Helper()
	reg, err := storage.OpenRegistry("")
	if err != nil {
		t.Fatalf("open registry: %v", err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	srv := frontend.NewGRPCServer()
	ctx, cancel := context.WithCancel(context.Background())
	frontend.Start(ctx, srv, reg)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(func() {
		cancel()
		srv.Stop()
		reg.Close()
	})
	t.Setenv("SPANNER_EMULATOR_HOST", lis.Addr().String())
	t.Setenv("SPANNER_DISABLE_BUILTIN_METRICS", "true")
}

// newDatabase creates an instance and a database with ddl and returns a client.
func newDatabase(t *testing.T, name string, ddl []string) *spanner.Client {
	t.Helper()
	return createDatabase(t, newInstance(t, name), &databasepb.CreateDatabaseRequest{CreateStatement: "CREATE DATABASE `db`", ExtraStatements: ddl})
}

// newInstance creates an instance and returns its name.
func newInstance(t *testing.T, name string) string {
	t.Helper()
	ctx := context.Background()
	ia, err := instance.NewInstanceAdminClient(ctx)
	if err != nil {
		t.Fatalf("instance admin client: %v", err)
	}
	defer ia.Close()
	instName := project + "/instances/" + name
	op, err := ia.CreateInstance(ctx, &instancepb.CreateInstanceRequest{
		Parent: project, InstanceId: name,
		Instance: &instancepb.Instance{Config: project + "/instanceConfigs/emulator-config", DisplayName: name, NodeCount: 1},
	})
	if err != nil {
		t.Fatalf("create instance: %v", err)
	}
	if _, err := op.Wait(ctx); err != nil {
		t.Fatalf("create instance: %v", err)
	}
	return instName
}

// createDatabase creates the database req asks for (its Parent set to instName; the
// database is named "db") and returns a client of it.
func createDatabase(t *testing.T, instName string, req *databasepb.CreateDatabaseRequest) *spanner.Client {
	t.Helper()
	ctx := context.Background()
	da, err := database.NewDatabaseAdminClient(ctx)
	if err != nil {
		t.Fatalf("database admin client: %v", err)
	}
	defer da.Close()
	req.Parent = instName
	dop, err := da.CreateDatabase(ctx, req)
	if err != nil {
		t.Fatalf("create database: %v", err)
	}
	if _, err := dop.Wait(ctx); err != nil {
		t.Fatalf("create database: %v", err)
	}
	client, err := spanner.NewClient(ctx, fmt.Sprintf("%s/databases/db", instName))
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	t.Cleanup(client.Close)
	return client
}
