package query

import (
	"fmt"

	"google.golang.org/grpc/codes"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
)

// errorf is a query-layer error with the gRPC code Spanner would answer.
// Unsupported constructs are codes.Unimplemented (or InvalidArgument for syntax
// errors); semantic errors (unknown table/column, type mismatch, missing parameter)
// are codes.InvalidArgument; runtime errors (overflow, division by zero) are
// codes.OutOfRange.
func errorf(code codes.Code, format string, args ...any) *spanerr.Error {
	return &spanerr.Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}
