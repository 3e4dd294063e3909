package query

import (
	"errors"
	"fmt"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Error is a query-layer error with the gRPC code Spanner would answer.
// Unsupported constructs are codes.Unimplemented (or InvalidArgument for syntax
// errors); semantic errors (unknown table/column, type mismatch, missing parameter)
// are codes.InvalidArgument; runtime errors (overflow, division by zero) are
// codes.OutOfRange.
type Error struct {
	Code codes.Code
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// GRPCStatus lets status.FromError and status.Code read the code directly.
func (e *Error) GRPCStatus() *status.Status { return status.New(e.Code, e.Msg) }

func errorf(code codes.Code, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// runtimePrefix starts the message of every error a registered SQL function raises,
// so RuntimeError can tell them from other SQLite errors.
const runtimePrefix = "spanner: "

// RuntimeError converts an error returned by SQLite while running compiled SQL into an
// *Error with Spanner's code when it was raised by one of this package's functions
// (INT64 overflow, division by zero, bad CAST: OUT_OF_RANGE / INVALID_ARGUMENT) or by
// SQLite's own integer overflow in SUM. Other errors are returned unchanged.
func RuntimeError(err error) error {
	if err == nil {
		return nil
	}
	var qe *Error
	if errors.As(err, &qe) {
		return qe
	}
	msg := err.Error()
	for i := 0; i+len(runtimePrefix) <= len(msg); i++ {
		if msg[i:i+len(runtimePrefix)] == runtimePrefix {
			rest := msg[i+len(runtimePrefix):]
			code := codes.OutOfRange
			if len(rest) > 4 && rest[:4] == "[IA]" {
				code, rest = codes.InvalidArgument, rest[4:]
			}
			return &Error{Code: code, Msg: rest}
		}
	}
	switch {
	case msg == "integer overflow":
		return &Error{Code: codes.OutOfRange, Msg: "int64 overflow"}
	case msg == "Recursion limit" || strings.HasPrefix(msg, "Expression tree is too large"):
		return &Error{Code: codes.InvalidArgument, Msg: "Statement is too deeply nested: " + msg}
	case strings.HasPrefix(msg, "bad JSON path"):
		return &Error{Code: codes.InvalidArgument, Msg: "Invalid JSONPath: " + strings.TrimPrefix(msg, "bad JSON path: ")}
	}
	return err
}
