package frontend

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/spanload/spanload/localspanner/internal/spanerr"
	"github.com/spanload/spanload/localspanner/sqlfn"
	"github.com/spanload/spanload/localspanner/txn"
)

func TestToStatus(t *testing.T) {
	tests := []struct {
		name      string
		err       error
		code      codes.Code
		retryInfo bool
	}{
		{"aborted", fmt.Errorf("commit: %w", &txn.AbortedError{Msg: "conflict", Delay: txn.AbortRetryDelay}), codes.Aborted, true},
		{"wrapped spanner error", fmt.Errorf("statement: %w", spanerr.NotFound("Table not found: T")), codes.NotFound, false},
		{"sql function error", sqlfn.RuntimeError(errors.New("spanner: int64 overflow")), codes.OutOfRange, false},
		{"canceled", fmt.Errorf("read: %w", context.Canceled), codes.Canceled, false},
		{"unknown", errors.New("disk on fire"), codes.Internal, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var trailer metadata.MD
			st := status.Convert(toStatus(tc.err, func(md metadata.MD) { trailer = md }))
			if st.Code() != tc.code {
				t.Fatalf("code %v, want %v (%v)", st.Code(), tc.code, tc.err)
			}
			if st.Message() == "" {
				t.Errorf("empty message")
			}
			hasDetail := false
			for _, d := range st.Details() {
				if ri, ok := d.(*errdetails.RetryInfo); ok && ri.RetryDelay.AsDuration() > 0 {
					hasDetail = true
				}
			}
			hasTrailer := len(trailer.Get("google.rpc.retryinfo-bin")) == 1
			if hasDetail != tc.retryInfo || hasTrailer != tc.retryInfo {
				t.Errorf("retry info detail=%v trailer=%v, want %v", hasDetail, hasTrailer, tc.retryInfo)
			}
		})
	}
}
