// Package value converts Spanner wire values (structpb.Value + spannerpb.Type) to the
// SQLite storage encoding defined in package schema's doc comment, and back.
package value

import (
	"errors"

	"cloud.google.com/go/spanner/apiv1/spannerpb"
	"google.golang.org/protobuf/types/known/structpb"
)

// ToSQLite converts a wire value of type t to its storage encoding: int64, float64,
// string, []byte or nil. Errors are *Error with codes.InvalidArgument.
func ToSQLite(v *structpb.Value, t *spannerpb.Type) (any, error) {
	return nil, errors.New("value.ToSQLite: not implemented yet")
}

// FromSQLite converts a storage-encoded cell (as go-sqlite3 scans it) of type t to its
// wire value.
func FromSQLite(x any, t *spannerpb.Type) (*structpb.Value, error) {
	return nil, errors.New("value.FromSQLite: not implemented yet")
}
