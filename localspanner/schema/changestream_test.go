package schema

import (
	"strings"
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
)

// Spanner's quotas, "Change stream limits": "Change streams watching any given non-key column: 3",
// and a stream that "watches an entire table or database implicitly watches every column in that
// table or database, and therefore counts towards this limit".
func TestChangeStreamsPerColumnLimit(t *testing.T) {
	base := []string{"CREATE TABLE T (Id INT64 NOT NULL, A STRING(MAX), B STRING(MAX)) PRIMARY KEY (Id)"}
	tests := []struct {
		name    string
		streams []string
		code    codes.Code
		column  string // the column the error names
	}{
		{"three on a column", []string{"CREATE CHANGE STREAM S1 FOR T(A)", "CREATE CHANGE STREAM S2 FOR T(A)", "CREATE CHANGE STREAM S3 FOR T(A)"}, codes.OK, ""},
		{"a fourth on a column", []string{"CREATE CHANGE STREAM S1 FOR T(A)", "CREATE CHANGE STREAM S2 FOR T(A)", "CREATE CHANGE STREAM S3 FOR T(A)", "CREATE CHANGE STREAM S4 FOR T(A)"}, codes.FailedPrecondition, "A"},
		{"other columns are free", []string{"CREATE CHANGE STREAM S1 FOR T(A)", "CREATE CHANGE STREAM S2 FOR T(A)", "CREATE CHANGE STREAM S3 FOR T(A)", "CREATE CHANGE STREAM S4 FOR T(B)"}, codes.OK, ""},
		{"FOR ALL and FOR T count", []string{"CREATE CHANGE STREAM S1 FOR ALL", "CREATE CHANGE STREAM S2 FOR T", "CREATE CHANGE STREAM S3 FOR T(B)", "CREATE CHANGE STREAM S4 FOR T(B)"}, codes.FailedPrecondition, "B"},
		{"key-only streams do not count", []string{"CREATE CHANGE STREAM S1 FOR T()", "CREATE CHANGE STREAM S2 FOR T()", "CREATE CHANGE STREAM S3 FOR T()", "CREATE CHANGE STREAM S4 FOR T(A)"}, codes.OK, ""},
		{"an ALTER that makes a fourth", []string{"CREATE CHANGE STREAM S1 FOR T(A)", "CREATE CHANGE STREAM S2 FOR T(A)", "CREATE CHANGE STREAM S3 FOR T(A)", "CREATE CHANGE STREAM S4 FOR T(B)", "ALTER CHANGE STREAM S4 SET FOR T(A, B)"}, codes.FailedPrecondition, "A"},
		{"an ALTER of one of the three", []string{"CREATE CHANGE STREAM S1 FOR T(A)", "CREATE CHANGE STREAM S2 FOR T(A)", "CREATE CHANGE STREAM S3 FOR T(A)", "ALTER CHANGE STREAM S3 SET FOR T"}, codes.OK, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Build(append(append([]string{}, base...), tc.streams...))
			if got := codeOf(err); got != tc.code {
				t.Fatalf("code %v (%v), want %v", got, err, tc.code)
			}
			if tc.code != codes.OK {
				want := "because it is not allowed to have more than 3 Change Streams tracking the same table or non-key column or ALL: " + tc.column + "."
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q, want it to end %q", err, want)
				}
			}
		})
	}
}

// "Change streams per database: 10" (Spanner's quotas).
func TestChangeStreamsPerDatabaseLimit(t *testing.T) {
	ddl := []string{"CREATE TABLE T (Id INT64 NOT NULL) PRIMARY KEY (Id)"}
	for i := 0; i < 11; i++ {
		ddl = append(ddl, "CREATE CHANGE STREAM S"+string(rune('a'+i))+" FOR T()")
	}
	if _, err := Build(ddl[:11]); err != nil {
		t.Fatalf("10 streams: %v", err)
	}
	_, err := Build(ddl)
	if codeOf(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), "Cannot add Change Stream Sk : because the maximum number of Change Streams per Database (limit 10) has been reached.") {
		t.Fatalf("an 11th stream: %v", err)
	}
}

func codeOf(err error) codes.Code {
	if err == nil {
		return codes.OK
	}
	return spanerr.Code(err, codes.Unknown)
}
