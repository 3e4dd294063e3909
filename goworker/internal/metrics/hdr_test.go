package metrics

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"cloud.google.com/go/spanner"
	"github.com/jackc/pgx/v5/pgconn"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/spanload/spanload/goworker/internal/ledger"
)

// pythonFixture is testdata/python_hdrh.txt: written by Python's hdrh (tests/engine/test_go_worker.py
// regenerates and checks it) from the values listed on its first line.
func TestDecodesWhatPythonsHdrhEncoded(t *testing.T) {
	data, err := os.ReadFile("testdata/python_hdrh.txt")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	h, err := Decode(lines[1])
	if err != nil {
		t.Fatal(err)
	}
	// 1000 values 1..1000 us, then 10 of 250000 us and 1 of 3600000000 us (the range's top)
	checks := []struct {
		name      string
		got, want int64
	}{
		{"count", h.TotalCount(), 1011},
		{"min", h.Min(), 1},
		{"p50", h.ValueAtPercentile(50), 506},
		{"p99", h.ValueAtPercentile(99), 250_111},
		{"max", h.Max(), 3_600_809_983}, // the range top's highest equivalent value, as hdrh says
		{"lowest", h.LowestTrackableValue(), LowestUS},
		{"highest", h.HighestTrackableValue(), HighestUS},
		{"digits", h.SignificantFigures(), SignificantDigits},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %d; want %d", c.name, c.got, c.want)
		}
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	cases := []struct {
		values             []float64
		count, p50, maxVal int64
	}{
		{[]float64{1}, 1, 1, 1},
		{[]float64{0.2, 5, 1500, 1500}, 4, 5, 1500},
		{[]float64{100, 200, 300, 1000, 5_000_000}, 5, 300, 5_001_215},
		{[]float64{7e12}, 1, 3_600_809_983, 3_600_809_983}, // clamped into the range
	}
	for _, c := range cases {
		r := NewRecorder()
		r.RecordMany("op", c.values)
		taken, err := r.Take()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(taken["op"], "HISTF") {
			t.Fatalf("not the compressed V2 encoding: %q", taken["op"])
		}
		h, err := Decode(taken["op"])
		if err != nil {
			t.Fatal(err)
		}
		if h.TotalCount() != c.count || h.ValueAtPercentile(50) != c.p50 || h.Max() != c.maxVal {
			t.Errorf("%v: count %d p50 %d max %d; want %d %d %d", c.values, h.TotalCount(),
				h.ValueAtPercentile(50), h.Max(), c.count, c.p50, c.maxVal)
		}
		if again, _ := r.Take(); len(again) != 0 {
			t.Errorf("a second Take returned %v; want nothing (deltas)", again)
		}
	}
}

func TestSelftestEncodesAndDecodes(t *testing.T) {
	text, err := Selftest("7,70,700,7000")
	if err != nil {
		t.Fatal(err)
	}
	summary, err := Selftest("@" + text)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"count":4,"max":7003,"min":7,"p50":70,"p90":7003,"p99":7003,"p99.9":7003}`
	if summary != want {
		t.Errorf("summary %s; want %s", summary, want)
	}
	if _, err := Selftest("7,x"); err == nil {
		t.Error("a bad value list was accepted")
	}
	if _, err := Selftest("@bm90IGEgaGlzdG9ncmFt"); err == nil {
		t.Error("a bad encoding was accepted")
	}
}

func TestErrorCodesAreGrpcNames(t *testing.T) {
	cases := []struct {
		err     error
		code    string
		unknown bool
	}{
		{status.Error(codes.Aborted, "x"), "ABORTED", false},
		{status.Error(codes.DeadlineExceeded, "x"), "DEADLINE_EXCEEDED", true},
		{status.Error(codes.Unavailable, "x"), "UNAVAILABLE", true},
		{status.Error(codes.Internal, "x"), "INTERNAL", true},
		{status.Error(codes.InvalidArgument, "x"), "INVALID_ARGUMENT", false},
		{status.Error(codes.AlreadyExists, "x"), "ALREADY_EXISTS", false},
		{spanner.ToSpannerError(status.Error(codes.FailedPrecondition, "x")), "FAILED_PRECONDITION", false},
		{ErrSessionPoolTimeout, SessionPoolTimeout, false},
		{errors.New("plain"), "errorString", false},
		{&ledger.KeyBusyError{Slots: 3}, "KeyBusyError", false},
	}
	for _, c := range cases {
		if got := ErrorCode(c.err); got != c.code {
			t.Errorf("ErrorCode(%v) = %q; want %q", c.err, got, c.code)
		}
		if got := OutcomeUnknown(c.err); got != c.unknown {
			t.Errorf("OutcomeUnknown(%v) = %v; want %v", c.err, got, c.unknown)
		}
	}
}

func TestStatsCountErrorsAbortsAndHandOutDeltas(t *testing.T) {
	s := NewStats()
	s.Count("transactions", 3)
	s.Error(status.Error(codes.Aborted, "a"))
	s.Error(status.Error(codes.Aborted, "b"))
	s.Error(status.Error(codes.Unavailable, "c"))
	s.Recorder.Record("updater.txn", 1000)
	counters, errs, hdr, err := s.Take()
	if err != nil {
		t.Fatal(err)
	}
	if counters["transactions"] != 3 || counters["errors"] != 3 || counters["aborts"] != 2 || len(counters) != 3 {
		t.Errorf("counters %v", counters)
	}
	if errs["ABORTED"] != 2 || errs["UNAVAILABLE"] != 1 || len(errs) != 2 {
		t.Errorf("errors %v", errs)
	}
	if len(hdr) != 1 || hdr["updater.txn"] == "" {
		t.Errorf("hdr %v", hdr)
	}
	counters, errs, hdr, _ = s.Take()
	if len(counters)+len(errs)+len(hdr) != 0 {
		t.Errorf("second take not empty: %v %v %v", counters, errs, hdr)
	}
}

func TestFailedOperationsAreTimedApartAndCountedByTheCodeThatKeptThemRetrying(t *testing.T) {
	s := NewStats()
	deadline := spanner.ToSpannerError(context.DeadlineExceeded)
	s.Failed("updater.txn", deadline, 5000, codes.Unavailable)      // retried UNAVAILABLE until the deadline
	s.Failed("updater.txn", deadline, 6000, codes.DeadlineExceeded) // its RPC ran out of time
	s.Failed("reader.read", deadline, 7000, codes.OK)               // no RPC failed before
	s.Failed("reader.read", status.Error(codes.Aborted, "x"), 100, codes.Aborted)
	counters, errs, hdr, err := s.Take()
	if err != nil {
		t.Fatal(err)
	}
	if errs["UNAVAILABLE"] != 1 || errs["DEADLINE_EXCEEDED"] != 2 || errs["ABORTED"] != 1 || len(errs) != 3 {
		t.Errorf("errors by code %v", errs)
	}
	if counters["errors"] != 4 || counters["aborts"] != 1 {
		t.Errorf("counters %v", counters)
	}
	for op, want := range map[string]int64{"updater.txn.failed": 2, "reader.read.failed": 2} {
		h, err := Decode(hdr[op])
		if err != nil || h.TotalCount() != want {
			t.Errorf("%s: %v histogram, %v; want %d failures", op, h, err, want)
		}
	}
	if _, ok := hdr["updater.txn"]; ok {
		t.Error("a failure went into the success histogram")
	}
}

// A PostgreSQL driver's error counts under the gRPC code behind its SQLSTATE (PostgreSQL's
// Appendix A names them: 40001 serialization_failure, 23505 unique_violation, class 42 syntax
// error or access rule violation), the same key the Python worker gives psycopg's errors.
func TestPostgreSQLErrorsCountByTheirSQLState(t *testing.T) {
	cases := []struct {
		err  error
		code string
	}{
		{&pgconn.PgError{Code: "40001"}, "ABORTED"},
		{fmt.Errorf("commit: %w", &pgconn.PgError{Code: "23505"}), "ALREADY_EXISTS"},
		{&pgconn.PgError{Code: "42703"}, "INVALID_ARGUMENT"},
		{&pgconn.PgError{Code: "P0001"}, "UNKNOWN"},
	}
	for _, c := range cases {
		if got := ErrorCode(c.err); got != c.code {
			t.Errorf("ErrorCode(%v) = %q; want %q", c.err, got, c.code)
		}
	}
}
