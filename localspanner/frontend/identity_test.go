package frontend

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"testing"

	instpb "cloud.google.com/go/spanner/admin/instance/apiv1/instancepb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/spanload/spanload/localspanner/storage"
)

// TestListInstanceConfigsTellsWhichServerAnswers: the answer carries the
// server's version, pid and absolute data directory ("" in memory), which is
// how Spanload's launcher tells its own server from another on a taken port.
func TestListInstanceConfigsTellsWhichServerAnswers(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, dataDir, want string
	}{
		{"on disk", dir, dir},
		{"in memory", "", ""},
	} {
		reg, err := storage.OpenRegistry(tc.dataDir)
		if err != nil {
			t.Fatal(err)
		}
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := NewGRPCServer()
		ctx, cancel := context.WithCancel(context.Background())
		Start(ctx, srv, reg).Version = "1.2.3"
		go func() { _ = srv.Serve(lis) }()
		conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		var header metadata.MD
		_, err = instpb.NewInstanceAdminClient(conn).ListInstanceConfigs(ctx, &instpb.ListInstanceConfigsRequest{Parent: "projects/p"}, grpc.Header(&header))
		conn.Close()
		srv.Stop()
		cancel()
		reg.Close()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		values := header.Get(IdentityHeader)
		if len(values) != 1 {
			t.Fatalf("%s: %s: %q, want one value", tc.name, IdentityHeader, values)
		}
		var got Identity
		if err := json.Unmarshal([]byte(values[0]), &got); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if want := (Identity{Version: "1.2.3", PID: os.Getpid(), DataDir: tc.want}); got != want {
			t.Errorf("%s: identity %+v, want %+v", tc.name, got, want)
		}
	}
}
