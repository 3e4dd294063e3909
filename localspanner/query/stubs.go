package query

import (
	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"github.com/mattn/go-sqlite3"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/spanload/spanload/localspanner/schema"
)

type template struct{}

func (t *template) decode(row []any) ([]*structpb.Value, error) {
	return nil, errorf(codes.Unimplemented, "query decoding is not implemented yet")
}

type dmlTemplate struct{}

func (t *dmlTemplate) decodeReturning(row []any) ([]*structpb.Value, error) {
	return nil, errorf(codes.Unimplemented, "THEN RETURN is not implemented yet")
}

func compileQuery(cat *schema.Catalog, sql string, params Params, src Source) (*Plan, error) {
	return nil, errorf(codes.Unimplemented, "queries are not implemented yet")
}

func compileDML(cat *schema.Catalog, sql string, params Params, src Source) (*DMLPlan, error) {
	return nil, errorf(codes.Unimplemented, "DML is not implemented yet")
}

func compileColumnExpr(t *schema.Table, exprSQL string) (string, *spannerpb.Type, error) {
	return "", nil, errorf(codes.Unimplemented, "column expressions are not implemented yet")
}

// RegisterFunctions registers this package's SQL functions (FARM_FINGERPRINT, checked
// INT64 arithmetic, CAST, timestamp and string functions) on one SQLite connection.
// Call it from the sqlite3.SQLiteDriver ConnectHook of every connection.
func RegisterFunctions(conn *sqlite3.SQLiteConn) error {
	return nil
}

// CurrentRows is the Source of a strong read outside a read-write transaction: every
// table is read from its SQLite table of current rows, hints applied. It knows no
// SPANNER_SYS tables.
type CurrentRows struct{}

// Table implements Source.
func (CurrentRows) Table(t *schema.Table) (From, error) {
	return From{SQL: t.SQLName, Indexable: true}, nil
}

// SysTable implements Source.
func (CurrentRows) SysTable(string) (*schema.Table, From, bool) { return nil, From{}, false }

// Key implements Source.
func (CurrentRows) Key() string { return "current" }
