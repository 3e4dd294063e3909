package nullspanner

import (
	"cloud.google.com/go/longrunning/autogen/longrunningpb"
	dbpb "cloud.google.com/go/spanner/admin/database/apiv1/databasepb"
	instpb "cloud.google.com/go/spanner/admin/instance/apiv1/instancepb"
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/grpc"
)

// Register registers the do-nothing data API, admin APIs and operations on srv.
func Register(srv *grpc.Server) {
	spannerpb.RegisterSpannerServer(srv, &data{})
	dbpb.RegisterDatabaseAdminServer(srv, &admin{})
	instpb.RegisterInstanceAdminServer(srv, instances{})
	longrunningpb.RegisterOperationsServer(srv, operations{})
}
