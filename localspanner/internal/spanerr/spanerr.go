// Package spanerr carries a gRPC status code through the layers of the local
// Spanner server. Lower layers return *Error (possibly wrapped with %w); the
// frontend turns any error into a gRPC status in one place with Code.
package spanerr

import (
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"
)

// Error is an error with the gRPC code Spanner would answer.
type Error struct {
	Code   codes.Code
	Msg    string
	syntax bool // a DDL statement that does not parse (Syntax)
}

func (e *Error) Error() string { return e.Msg }

// New returns an *Error with a formatted message.
func New(code codes.Code, format string, args ...any) error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// InvalidArgument, NotFound, ... are shorthands for New with that code.
func InvalidArgument(format string, args ...any) error {
	return New(codes.InvalidArgument, format, args...)
}

// NotFound returns a NOT_FOUND error.
func NotFound(format string, args ...any) error { return New(codes.NotFound, format, args...) }

// AlreadyExists returns an ALREADY_EXISTS error.
func AlreadyExists(format string, args ...any) error {
	return New(codes.AlreadyExists, format, args...)
}

// FailedPrecondition returns a FAILED_PRECONDITION error.
func FailedPrecondition(format string, args ...any) error {
	return New(codes.FailedPrecondition, format, args...)
}

// Unimplemented returns an UNIMPLEMENTED error.
func Unimplemented(format string, args ...any) error {
	return New(codes.Unimplemented, format, args...)
}

// Aborted returns an ABORTED error.
func Aborted(format string, args ...any) error { return New(codes.Aborted, format, args...) }

// Code returns the code of the first *Error in err's chain, or dflt when there is none.
func Code(err error, dflt codes.Code) codes.Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return dflt
}

// OutOfRange returns an OUT_OF_RANGE error.
func OutOfRange(format string, args ...any) error { return New(codes.OutOfRange, format, args...) }

// Syntax returns the INVALID_ARGUMENT error of a DDL statement Spanner cannot parse.
// Spanner rejects such a statement before it makes an operation, so the admin call
// itself fails with it (see IsSyntax); its message names the statement already.
func Syntax(format string, args ...any) error {
	return &Error{Code: codes.InvalidArgument, Msg: fmt.Sprintf(format, args...), syntax: true}
}

// IsSyntax reports whether err's chain holds an error made by Syntax.
func IsSyntax(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.syntax
}
