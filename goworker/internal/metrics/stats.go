package metrics

import (
	"context"
	"errors"
	"reflect"
	"sync"

	"cloud.google.com/go/spanner"
	"github.com/jackc/pgx/v5/pgconn"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spanload/spanload/goworker/internal/protocol"
)

// SessionPoolTimeout is the error code of an operation that got no pooled session in time.
const SessionPoolTimeout = protocol.ErrorCodeSessionPoolTimeout

// ErrSessionPoolTimeout is returned by the emulated session pool when no session freed in time.
var ErrSessionPoolTimeout = errors.New("no pooled session within the pool's timeout")

// codeNames are the gRPC status code names as Python's grpc.StatusCode spells them.
var codeNames = map[codes.Code]string{
	codes.OK:                 "OK",
	codes.Canceled:           protocol.ErrorCodeCancelled,
	codes.Unknown:            protocol.ErrorCodeUnknown,
	codes.InvalidArgument:    protocol.ErrorCodeInvalidArgument,
	codes.DeadlineExceeded:   protocol.ErrorCodeDeadlineExceeded,
	codes.NotFound:           protocol.ErrorCodeNotFound,
	codes.AlreadyExists:      protocol.ErrorCodeAlreadyExists,
	codes.PermissionDenied:   protocol.ErrorCodePermissionDenied,
	codes.ResourceExhausted:  protocol.ErrorCodeResourceExhausted,
	codes.FailedPrecondition: protocol.ErrorCodeFailedPrecondition,
	codes.Aborted:            protocol.ErrorCodeAborted,
	codes.OutOfRange:         protocol.ErrorCodeOutOfRange,
	codes.Unimplemented:      protocol.ErrorCodeUnimplemented,
	codes.Internal:           protocol.ErrorCodeInternal,
	codes.Unavailable:        protocol.ErrorCodeUnavailable,
	codes.DataLoss:           protocol.ErrorCodeDataLoss,
	codes.Unauthenticated:    protocol.ErrorCodeUnauthenticated,
}

// Code is the gRPC code of a client error, or a name for what is not a gRPC error.
func Code(err error) codes.Code {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return codes.DeadlineExceeded
	case errors.Is(err, context.Canceled):
		return codes.Canceled
	}
	return spanner.ErrCode(err)
}

// ErrorCode is the name of an error's gRPC code ("ABORTED"...; a PostgreSQL driver's, by its
// SQLSTATE), SESSION_POOL_TIMEOUT, or else the error's type name.
func ErrorCode(err error) string {
	if errors.Is(err, ErrSessionPoolTimeout) {
		return SessionPoolTimeout
	}
	if code, ok := pgErrorCode(err); ok {
		return code
	}
	if !isGrpc(err) {
		return typeName(err)
	}
	code := Code(err)
	if name, ok := codeNames[code]; ok {
		return name
	}
	return code.String()
}

// pgErrorCode is the errors_by_code key of a PostgreSQL driver's error (the pgadapter interface):
// by its SQLSTATE (protocol.PgSQLStateCodes), UNAVAILABLE when PGAdapter could not be reached.
func pgErrorCode(err error) (string, bool) {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		if code, ok := protocol.PgSQLStateCodes[pgErr.Code]; ok {
			return code, true
		}
		if code, ok := protocol.PgSQLStateCodes[pgErr.Code[:min(2, len(pgErr.Code))]]; ok {
			return code, true
		}
		return protocol.ErrorCodeUnknown, true
	}
	var connectErr *pgconn.ConnectError
	if errors.As(err, &connectErr) {
		return protocol.ErrorCodeUnavailable, true
	}
	return "", false
}

// isGrpc says whether err carries a gRPC status (from the client or a context deadline).
func isGrpc(err error) bool {
	var se *spanner.Error
	var st interface{ GRPCStatus() *status.Status }
	return errors.As(err, &se) || errors.As(err, &st) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}

// OutcomeUnknown says whether a failed commit may have been applied anyway; an error that never
// reached the server (no free session, no key) is not one.
func OutcomeUnknown(err error) bool {
	if !isGrpc(err) {
		return false
	}
	switch Code(err) {
	case codes.DeadlineExceeded, codes.Unavailable, codes.Internal, codes.Unknown:
		return true
	}
	return false
}

// typeName is an error's bare type name ("KeyBusyError"), as Python's type(err).__name__.
func typeName(err error) string {
	t := reflect.TypeOf(err)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Name() == "" {
		return t.String()
	}
	return t.Name()
}

// Stats holds interval deltas: counters, errors by code, histograms and breakdown sums.
type Stats struct {
	Recorder *Recorder
	mu       sync.Mutex
	counters map[string]int64
	errors   map[string]int64
	timings  map[string]*protocol.OpTiming
}

func NewStats() *Stats {
	return &Stats{Recorder: NewRecorder(), counters: map[string]int64{}, errors: map[string]int64{},
		timings: map[string]*protocol.OpTiming{}}
}

// MaxStatements bounds the distinct statement texts kept per operation kind and interval.
const (
	MaxStatements     = 64
	maxStatementChars = 4000
	usPerS            = 1e6
	usPerMs           = 1e3
)

// OpParts is what one operation's RPCs said and how long it waited for a session.
type OpParts struct {
	ServerMs    float64
	ServerSeen  bool
	SessionWait float64 // seconds
	Pooled      bool    // a session pool was asked (else multiplexed sessions: not applicable)
	Statements  []string
	Commits     int64
}

// Succeeded records a successful operation of kind op that was due at intended and started at
// actual (pacing seconds; intended < 0: not paced) and ends at end: its histograms (op from the
// actual start, op_intended when paced, op_server when the server said) and its breakdown parts.
func (s *Stats) Succeeded(op string, intended, actual, end float64, parts OpParts) {
	start := actual
	if intended >= 0 {
		start = min(intended, actual)
		s.Recorder.Record(op+protocol.IntendedSuffix, (end-start)*usPerS)
	}
	s.Recorder.Record(op, (end-actual)*usPerS)
	if parts.ServerSeen {
		s.Recorder.Record(op+protocol.ServerSuffix, parts.ServerMs*usPerMs)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.timings[op]
	if t == nil {
		t = &protocol.OpTiming{SessionWait: protocol.SessionWaitNotApplicable, Statements: map[string]int64{}}
		s.timings[op] = t
	}
	t.Count++
	t.TotalUS += (end - start) * usPerS
	t.QueueUS += (actual - start) * usPerS
	if parts.Pooled {
		t.SessionWait = protocol.SessionWaitMeasured
		t.SessionUS += parts.SessionWait * usPerS
	}
	if parts.ServerSeen {
		t.ServerCount++
		t.ServerUS += parts.ServerMs * usPerMs
	}
	t.Commits += parts.Commits
	for _, text := range parts.Statements {
		if len(text) > maxStatementChars {
			text = text[:maxStatementChars]
		}
		if _, ok := t.Statements[text]; ok || len(t.Statements) < MaxStatements {
			t.Statements[text]++
		}
	}
}

// TakeTimings returns each operation kind's breakdown sums since the previous call.
func (s *Stats) TakeTimings() map[string]*protocol.OpTiming {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.timings
	s.timings = map[string]*protocol.OpTiming{}
	return out
}

func (s *Stats) Count(counter string, n int64) {
	s.mu.Lock()
	s.counters[counter] += n
	s.mu.Unlock()
}

// Error counts a failed operation by code, and as an abort when it is ABORTED.
func (s *Stats) Error(err error) { s.countError(ErrorCode(err)) }

// Failed counts a failed operation and times it (from its actual start) in op's failure
// histogram (op + FailedSuffix). An operation whose deadline ran out while it retried a failed
// RPC (lastRPC, codes.OK if none) counts as that failure's code: UNAVAILABLE from a target
// that is down, not DEADLINE_EXCEEDED.
func (s *Stats) Failed(op string, err error, elapsedUS float64, lastRPC codes.Code) {
	code := ErrorCode(err)
	if code == codeNames[codes.DeadlineExceeded] && lastRPC != codes.OK && lastRPC != codes.DeadlineExceeded {
		if name, ok := codeNames[lastRPC]; ok {
			code = name
		}
	}
	s.countError(code)
	s.Recorder.Record(op+protocol.FailedSuffix, elapsedUS)
}

func (s *Stats) countError(code string) {
	s.mu.Lock()
	s.errors[code]++
	s.counters[protocol.CounterErrors]++
	if code == protocol.ErrorCodeAborted {
		s.counters[protocol.CounterAborts]++
	}
	s.mu.Unlock()
}

// Take returns (counters, errors by code, encoded histograms) since the previous call.
func (s *Stats) Take() (map[string]int64, map[string]int64, map[string]string, error) {
	s.mu.Lock()
	counters, errs := s.counters, s.errors
	s.counters, s.errors = map[string]int64{}, map[string]int64{}
	s.mu.Unlock()
	hdr, err := s.Recorder.Take()
	return counters, errs, hdr, err
}
