package sqlfn

import (
	"errors"
	"fmt"
	"strings"

	"google.golang.org/grpc/codes"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
)

// runtimePrefix starts the message of every error a registered SQL function raises,
// so RuntimeError can tell them from other SQLite errors.
const runtimePrefix = "spanner: "

// rtErr is an error raised while a statement runs; RuntimeError maps it to a code.
func rtErr(format string, args ...any) error {
	return fmt.Errorf(runtimePrefix+format, args...)
}

func rtInvalid(format string, args ...any) error {
	return fmt.Errorf(runtimePrefix+"[IA]"+format, args...)
}

// RuntimeError converts an error returned by SQLite while running compiled SQL into a
// *spanerr.Error with Spanner's code when it was raised by one of this package's
// functions (INT64 overflow, division by zero, bad CAST: OUT_OF_RANGE /
// INVALID_ARGUMENT) or by SQLite's own integer overflow in SUM. Other errors are
// returned unchanged.
func RuntimeError(err error) error {
	if err == nil {
		return nil
	}
	var qe *spanerr.Error
	if errors.As(err, &qe) {
		return qe
	}
	msg := err.Error()
	if i := strings.Index(msg, runtimePrefix); i >= 0 {
		rest := msg[i+len(runtimePrefix):]
		code := codes.OutOfRange
		if len(rest) > 4 && rest[:4] == "[IA]" {
			code, rest = codes.InvalidArgument, rest[4:]
		}
		return &spanerr.Error{Code: code, Msg: rest}
	}
	switch {
	case msg == "integer overflow":
		return &spanerr.Error{Code: codes.OutOfRange, Msg: "int64 overflow"}
	case msg == "Recursion limit" || strings.HasPrefix(msg, "Expression tree is too large"):
		return &spanerr.Error{Code: codes.InvalidArgument, Msg: "Statement is too deeply nested: " + msg}
	case strings.HasPrefix(msg, "bad JSON path"):
		return &spanerr.Error{Code: codes.InvalidArgument, Msg: "Invalid JSONPath: " + strings.TrimPrefix(msg, "bad JSON path: ")}
	}
	return err
}
